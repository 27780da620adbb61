"""A small JSON Schema checker for the subset the harness's schemas use (no third-party packages).

Supported keywords: type, enum, const, properties, required, additionalProperties, items, minItems,
minimum, minLength, pattern, oneOf, anyOf, $ref (local "#/$defs/..."). Any other validation keyword
raises, so a schema can never silently use something this checker ignores.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List

SCHEMA_DIR = Path(__file__).resolve().parent / "schema"

_ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "default", "examples", "$comment"}
_SUPPORTED = {
    "type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems",
    "minimum", "minLength", "pattern", "oneOf", "anyOf", "$ref",
} | _ANNOTATIONS

_TYPE_CHECKS = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    # JSON has no bool/int distinction problem, Python does: True is an int.
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def load_schema(name: str) -> Dict[str, Any]:
    """Load `schema/<name>.schema.json` shipped with the harness."""
    with open(SCHEMA_DIR / f"{name}.schema.json", encoding="utf-8") as handle:
        return json.load(handle)


def validate(instance: Any, schema: Dict[str, Any]) -> List[str]:
    """Return the list of problems (empty when `instance` conforms), each prefixed with its JSON path."""
    return _check(instance, schema, root=schema, path="$")


def _resolve(ref: str, root: Dict[str, Any]) -> Dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported, got {ref}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _check(value: Any, schema: Dict[str, Any], root: Dict[str, Any], path: str) -> List[str]:
    unknown = set(schema) - _SUPPORTED
    if unknown:
        raise ValueError(f"schema at {path} uses unsupported keywords {sorted(unknown)}")
    if "$ref" in schema:
        return _check(value, _resolve(schema["$ref"], root), root, path)
    errors: List[str] = []
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPE_CHECKS[t](value) for t in types):
            return [f"{path}: expected {' or '.join(types)}, got {json.dumps(value)[:80]}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: expected {json.dumps(schema['const'])}, got {json.dumps(value)[:80]}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {json.dumps(value)[:80]} is not one of {json.dumps(schema['enum'])}")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and "minimum" in schema:
        if value < schema["minimum"]:
            errors.append(f"{path}: {value} is below the minimum {schema['minimum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{path}: string shorter than {schema['minLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path}: {json.dumps(value)} does not match {schema['pattern']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{path}: needs at least {schema['minItems']} items")
        if "items" in schema:
            for index, item in enumerate(value):
                errors.extend(_check(item, schema["items"], root, f"{path}[{index}]"))
    if isinstance(value, dict):
        errors.extend(_check_object(value, schema, root, path))
    if "oneOf" in schema:
        errors.extend(_check_alternatives(value, schema["oneOf"], root, path, exactly_one=True))
    if "anyOf" in schema:
        errors.extend(_check_alternatives(value, schema["anyOf"], root, path, exactly_one=False))
    return errors


def _check_object(value: Dict[str, Any], schema: Dict[str, Any], root: Dict[str, Any], path: str) -> List[str]:
    errors = [f"{path}: missing required field {name!r}" for name in schema.get("required", []) if name not in value]
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            errors.extend(_check(item, properties[name], root, f"{path}.{name}"))
        elif extra is False:
            errors.append(f"{path}: unexpected field {name!r}")
        elif isinstance(extra, dict):
            errors.extend(_check(item, extra, root, f"{path}.{name}"))
    return errors


def _check_alternatives(value: Any, options: List[Dict[str, Any]], root: Dict[str, Any], path: str,
                        exactly_one: bool) -> List[str]:
    results = [_check(value, option, root, path) for option in options]
    matches = sum(1 for problems in results if not problems)
    if matches == 1 or (matches > 1 and not exactly_one):
        return []
    if matches > 1:
        return [f"{path}: matches {matches} alternatives of oneOf, expected exactly one"]
    # None matched: report the closest alternative's problems (fewest errors), which names the real mistake.
    return min(results, key=len)

"""Reads and validates the JSON spec the extension writes, and fills in defaults from spec.schema.json."""

from __future__ import annotations

import copy
import json
from typing import Any, Dict, Optional

from .schema_check import load_schema, validate

UNKNOWN_RUN_ID = "unknown"


class SpecError(Exception):
    """The spec file cannot be read or does not follow spec.schema.json; the run cannot start."""

    def __init__(self, message: str, run_id: str = UNKNOWN_RUN_ID):
        super().__init__(message)
        self.message = message
        self.run_id = run_id


def load_spec(path: str) -> Dict[str, Any]:
    """Parse, validate and complete the spec at `path`; raise SpecError with a one-line reason."""
    try:
        with open(path, encoding="utf-8") as handle:
            raw = json.load(handle)
    except OSError as exc:
        raise SpecError(f"cannot read spec file {path}: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SpecError(f"spec file {path} is not valid JSON: {exc}") from exc
    return check_spec(raw)


def check_spec(raw: Any) -> Dict[str, Any]:
    """Validate an already-parsed spec and return a copy with every default filled in."""
    run_id = _salvage_run_id(raw)
    schema = load_schema("spec")
    problems = validate(raw, schema)
    if problems:
        shown = "; ".join(problems[:3]) + (f" (+{len(problems) - 3} more)" if len(problems) > 3 else "")
        raise SpecError(f"invalid spec: {shown}", run_id)
    spec = _with_defaults(raw, schema["$defs"][raw["kind"]], schema)
    if spec["kind"] == "layer":
        _check_layer_dims(spec)
    return spec


def _salvage_run_id(raw: Any) -> str:
    run_id: Optional[Any] = raw.get("runId") if isinstance(raw, dict) else None
    return run_id if isinstance(run_id, str) and run_id else UNKNOWN_RUN_ID


def _with_defaults(raw: Dict[str, Any], kind_schema: Dict[str, Any], root: Dict[str, Any]) -> Dict[str, Any]:
    spec = copy.deepcopy(raw)
    for name, prop in kind_schema["properties"].items():
        if "$ref" in prop:
            prop = _follow(prop["$ref"], root)
        if name not in spec and "default" in prop:
            spec[name] = copy.deepcopy(prop["default"])
    if spec["kind"] == "layer":
        high_default = root["$defs"]["inputTemplate"]["properties"]["high"]["default"]
        for template in spec["inputs"]:
            template.setdefault("high", high_default)
    return spec


def _follow(ref: str, root: Dict[str, Any]) -> Dict[str, Any]:
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _check_layer_dims(spec: Dict[str, Any]) -> None:
    """Every named size must resolve: from `dims`, or from `batchSizes` for the batch dimension."""
    known = set(spec["dims"])
    if spec["batchSizes"]:
        known.add(spec["batchDim"])
    for index, template in enumerate(spec["inputs"]):
        for size in template["shape"]:
            if isinstance(size, str) and size not in known:
                raise SpecError(
                    f"invalid spec: inputs[{index}].shape names {size!r}, which is not in dims"
                    f" ({', '.join(sorted(known)) or 'none'})",
                    spec["runId"],
                )

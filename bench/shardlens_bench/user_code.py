"""Loads the user's file by path and evaluates the spec's constructor expression in its namespace."""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any, Dict, Optional

import torch
from torch import nn

from .errors import HarnessError, one_line


def load_namespace(file: Optional[str], workspace_root: Optional[str]) -> Dict[str, Any]:
    """The module's globals plus `torch` and `nn` (without overriding the user's own names).
    The workspace root and the file's folder go on sys.path so the file's own imports resolve."""
    namespace: Dict[str, Any] = {}
    if file:
        namespace.update(vars(_import_file(file, workspace_root)))
    namespace.setdefault("torch", torch)
    namespace.setdefault("nn", nn)
    return namespace


def _import_file(file: str, workspace_root: Optional[str]) -> Any:
    if not os.path.isfile(file):
        raise HarnessError("import", f"cannot import {file}: no such file")
    for folder in (os.path.dirname(os.path.abspath(file)), workspace_root):
        if folder and folder not in sys.path:
            sys.path.insert(0, folder)
    stem = os.path.splitext(os.path.basename(file))[0]
    # NOTE: a stem that shadows an imported module (e.g. a user file named json.py) gets a private name.
    name = stem if stem.isidentifier() and stem not in sys.modules else f"shardlens_user_{abs(hash(file))}"
    module_spec = importlib.util.spec_from_file_location(name, file)
    if module_spec is None or module_spec.loader is None:
        raise HarnessError("import", f"cannot import {file}: not a Python source file")
    module = importlib.util.module_from_spec(module_spec)
    # dataclasses and pickling look the module up in sys.modules while the file executes.
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:
        sys.modules.pop(name, None)
        raise HarnessError("import", f"importing {file} called sys.exit({exc.code}); move script code under"
                                     " `if __name__ == \"__main__\":`") from exc
    except BaseException as exc:
        sys.modules.pop(name, None)
        raise HarnessError("import", f"importing {file} failed: {one_line(exc)}") from exc
    return module


def construct(expression: str, namespace: Dict[str, Any]) -> nn.Module:
    """Evaluate the constructor expression; it must produce an nn.Module."""
    try:
        value = eval(compile(expression, "<constructor>", "eval"), namespace)  # noqa: S307 - the user's own code
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise HarnessError("construct", f"constructor {expression!r} failed: {one_line(exc)}") from exc
    if not isinstance(value, nn.Module):
        raise HarnessError("construct", f"constructor {expression!r} returned {type(value).__name__}, not an nn.Module")
    return value

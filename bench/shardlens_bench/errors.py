"""Error kinds of the events contract and the rules that map a Python exception to one of them."""

from __future__ import annotations

import traceback
from typing import Optional

# The `kind` values of an `error` event (events.schema.json).
ERROR_KINDS = ("oom", "import", "construct", "shape", "no_gpu", "unsupported", "other")

MAX_MESSAGE_CHARS = 400


class HarnessError(Exception):
    """An error the harness reports as one `error` event of a known kind."""

    def __init__(self, kind: str, message: str, recoverable: bool = False):
        super().__init__(message)
        assert kind in ERROR_KINDS, kind
        self.kind = kind
        self.message = message
        self.recoverable = recoverable


def one_line(exc: BaseException) -> str:
    """`TypeName: first line of the message`, cut to MAX_MESSAGE_CHARS, for an event's `message`."""
    text = str(exc).strip()
    first_line = text.splitlines()[0] if text else ""
    line = f"{type(exc).__name__}: {first_line}" if first_line else type(exc).__name__
    return line if len(line) <= MAX_MESSAGE_CHARS else line[: MAX_MESSAGE_CHARS - 3] + "..."


def is_out_of_memory(exc: BaseException) -> bool:
    """True for torch.cuda.OutOfMemoryError (PyTorch >= 1.13) or a RuntimeError saying out of memory."""
    try:
        import torch

        oom_type: Optional[type] = getattr(torch.cuda, "OutOfMemoryError", None)
    except ImportError:  # pragma: no cover - the harness always has torch
        oom_type = None
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    text = str(exc).lower()
    # NOTE: CPU allocations fail with "DefaultCPUAllocator: can't allocate memory", not "out of memory".
    return isinstance(exc, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)


def classify_case_error(exc: BaseException) -> str:
    """Kind of an exception raised while running one case (the user's forward or backward)."""
    if is_out_of_memory(exc):
        return "oom"
    if isinstance(exc, NotImplementedError) or "not implemented for" in str(exc):
        # e.g. "addmm_impl_cpu_" not implemented for 'Half': the dtype is unsupported on this device.
        return "unsupported"
    if isinstance(exc, (RuntimeError, ValueError, IndexError, TypeError, AssertionError)):
        return "shape"
    return "other"


def format_traceback(exc: BaseException) -> str:
    """The full traceback, printed to stderr for the person watching the terminal."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

"""Shared machinery of the `.view()` truth tables: runs code with real PyTorch, records
whether it succeeds or raises PyTorch's stride error, and writes (or prints) a table. Used
by generate_view_truth.py (expression cases) and generate_function_truth.py (functions).
"""
import json
import sys

import torch

# The error `.view()` raises when the strides do not allow it (ATen's computeStride failed).
STRIDE_ERROR = "view size is not compatible with input tensor's size and stride"


def run_case(code, env):
    """Runs `code` in `env` (plus `torch`): (True, None), or (False, first line of the RuntimeError)."""
    scope = {"torch": torch}
    scope.update(env or {})
    try:
        exec(compile(code, "<case>", "exec"), scope)
        return True, None
    except RuntimeError as error:
        return False, str(error).splitlines()[0]


def torch_version():
    return torch.__version__.split("+")[0]


def emit(table, path):
    """`--stdout` prints the table (the tests compare it with the committed file); else writes `path`."""
    text = json.dumps(table, indent=2) + "\n"
    if "--stdout" in sys.argv:
        sys.stdout.write(text)
        return
    with open(path, "w") as handle:
        handle.write(text)
    print(f"wrote {len(table['cases'])} cases to {path}")


# Function cases registered by the `view_case` decorator, in definition order.
FUNCTION_CASES = []


def view_case(expect, *calls):
    """Registers a function as a truth-table case: `expect` is SL201's verdict on it ("warning",
    "information" or "silent"), and each call is the text of its arguments (`randn(2, 3), 4`),
    run with `randn` = torch.randn, i.e. contiguous inputs."""

    def register(function):
        FUNCTION_CASES.append((function, expect, calls))
        return function

    return register

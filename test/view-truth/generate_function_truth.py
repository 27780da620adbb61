#!/usr/bin/env python3
"""Regenerates function-cases.json: runs every case of function_cases.py with real PyTorch and
records, per call, whether the function's one `.view()` succeeds or raises the stride error.
Any other exception means the call does not fit the code, and generation fails. The SL201
rule is checked against this table by test/unit/rules/layout-view-truth.test.ts.
Usage: /usr/bin/python3 generate_function_truth.py [--stdout]
"""
import inspect
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import function_cases  # noqa: E402  (registers the cases)
from truth_runner import FUNCTION_CASES, STRIDE_ERROR, emit, run_case, torch_version  # noqa: E402

TABLE = os.path.join(HERE, "function-cases.json")
SOURCE = os.path.join(HERE, "function_cases.py")


def build():
    cases = []
    for function, expect, calls in FUNCTION_CASES:
        lines, first = inspect.getsourcelines(function)
        body = "".join(lines)
        if body.count(".view(") != 1:
            raise SystemExit(f"{function.__name__}: a case holds exactly one `.view(`")
        runs = []
        for args in calls:
            owner, _, name = function.__qualname__.rpartition(".")
            call = f"{owner}().{name}({args})" if owner else f"{name}({args})"
            ok, error = run_case(f"out = {call}", {"randn": function_cases.torch.randn, **vars(function_cases)})
            if not ok and STRIDE_ERROR not in error:
                raise SystemExit(f"{call}: raised something other than the stride error: {error}")
            runs.append({"call": call, "ok": ok, "error": error})
        cases.append(
            {
                "name": function.__qualname__,
                "expect": expect,
                # Zero-based lines of function_cases.py, decorator included.
                "startLine": first - 1,
                "endLine": first - 1 + len(lines) - 1,
                "runs": runs,
            }
        )
    return {"torch": torch_version(), "source": os.path.basename(SOURCE), "cases": cases}


def main():
    emit(build(), TABLE)


if __name__ == "__main__":
    main()

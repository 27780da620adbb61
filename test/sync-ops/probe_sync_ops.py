"""Regenerates the `syncs` column of sync-ops.json on a CUDA machine.

Runs each snippet under torch.cuda.set_sync_debug_mode("warn") and records whether PyTorch
warned about a synchronising operation. Needs a CUDA GPU; without one it exits with status 2
and the FACTS.md list (PyTorch 2.11, H100) stays the checked source.

Usage: python test/sync-ops/probe_sync_ops.py [--write]
"""

import json
import sys
import warnings
from pathlib import Path

TABLE = Path(__file__).with_name("sync-ops.json")


def context(torch):
    x = torch.randn(16, device="cuda")
    params = [torch.nn.Parameter(torch.randn(4, device="cuda"))]
    for p in params:
        p.grad = torch.randn_like(p)
    return {
        "torch": torch,
        "x": x,
        "counts": torch.ones(16, dtype=torch.long, device="cuda"),
        "idx": torch.arange(4, device="cuda"),
        "params": params,
    }


def syncs(torch, snippet):
    env = context(torch)
    torch.cuda.synchronize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            exec(compile(snippet, "<snippet>", "exec"), env)
        finally:
            torch.cuda.set_sync_debug_mode("default")
    return any("synchroniz" in str(w.message) for w in caught)


def main():
    import torch

    if not torch.cuda.is_available():
        print("probe_sync_ops.py needs a CUDA GPU; FACTS.md stays the source.", file=sys.stderr)
        return 2
    table = json.loads(TABLE.read_text())
    changed = []
    for row in table["rows"]:
        measured = syncs(torch, row["snippet"])
        if measured != row["syncs"]:
            changed.append(f"{row['snippet']}: table {row['syncs']}, measured {measured}")
        row["syncs"] = measured
    table["source"] = f"probe_sync_ops.py, PyTorch {torch.__version__}, {torch.cuda.get_device_name()}"
    print("\n".join(changed) or "the table agrees with this machine")
    if "--write" in sys.argv:
        TABLE.write_text(json.dumps(table, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

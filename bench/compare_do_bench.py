"""Runs a fixed set of layers through the Shardlens harness and through triton.testing.do_bench (and
do_bench_cudagraph where capture works) in one process on a CUDA/ROCm GPU, and writes
bench/results/<gpu-slug>.json (schema: shardlens_bench/schema/compare.schema.json).

    python bench/compare_do_bench.py            # every case, bf16 and fp32, forward and forward+backward
    python bench/compare_do_bench.py --dry-run  # list the cases; needs no GPU
    python bench/compare_do_bench.py --only linear-64 --out /tmp/results

Exit codes: 0 written (and every compute-bound case within 5% of do_bench), 1 written with cases outside 5%,
2 nothing written (no GPU, no triton, or a bad argument).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from shardlens_bench.compare_report import agreement_problems, build_report, case_row, gpu_slug  # noqa: E402
from shardlens_bench.errors import one_line  # noqa: E402
from shardlens_bench.events import EventWriter  # noqa: E402
from shardlens_bench.inputs import RUN_DTYPES, build_inputs  # noqa: E402
from shardlens_bench.layer import make_step, run_layer  # noqa: E402
from shardlens_bench.peaks import find_peak  # noqa: E402
from shardlens_bench.spec import check_spec  # noqa: E402
from shardlens_bench.user_code import construct, load_namespace  # noqa: E402

DTYPES = ("bf16", "fp32")
ROUNDS = 3  # turns of do_bench and the harness per row
MODES = ("forward", "forward_backward")
EXIT_OK, EXIT_DISAGREES, EXIT_NOTHING_WRITTEN = 0, 1, 2


# ---- the layers (GPT-2 and ResNet shapes written from their papers' definitions) ----------------------------
class CausalSelfAttention(nn.Module):
    """GPT-2 attention (Radford et al. 2019): fused QKV projection, causal softmax attention, output projection."""

    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, steps, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        q, k, v = (t.view(batch, steps, self.heads, width // self.heads).transpose(1, 2) for t in (q, k, v))
        if hasattr(F, "scaled_dot_product_attention"):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:  # PyTorch < 2.0
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            mask = torch.ones(steps, steps, dtype=torch.bool, device=x.device).tril()
            y = scores.masked_fill(~mask, float("-inf")).softmax(dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(batch, steps, width))


class GptBlock(nn.Module):
    """Pre-norm transformer block of GPT-2: x + attn(ln(x)), then x + mlp(ln(x)) with a 4x GELU MLP."""

    def __init__(self, width: int = 768, heads: int = 12):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attn = CausalSelfAttention(width, heads)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Bottleneck(nn.Module):
    """ResNet-50 bottleneck (He et al. 2016, Table 1): 1x1 reduce, 3x3, 1x1 expand, batch norms, identity add."""

    def __init__(self, channels: int = 256, reduced: int = 64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, reduced, 1, bias=False), nn.BatchNorm2d(reduced), nn.ReLU(inplace=True),
            nn.Conv2d(reduced, reduced, 3, padding=1, bias=False), nn.BatchNorm2d(reduced), nn.ReLU(inplace=True),
            nn.Conv2d(reduced, channels, 1, bias=False), nn.BatchNorm2d(channels),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + x)


class Sdpa(nn.Module):
    """F.scaled_dot_product_attention on (batch, heads, steps, head dim) query, key and value."""

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v)


class Case(NamedTuple):
    name: str
    constructor: str  # evaluated in this file's namespace, as the harness does for a user's file
    shapes: List[List[int]]
    needs: Optional[str] = None  # an attribute torch must have, e.g. SDPA needs PyTorch 2.0


CASES = [
    Case("linear-4096-64", "nn.Linear(4096, 4096)", [[64, 4096]]),
    Case("linear-4096-8192", "nn.Linear(4096, 4096)", [[8192, 4096]]),
    Case("layernorm-4096-8192", "nn.LayerNorm(4096)", [[8192, 4096]]),
    Case("gpt2-block-768-t1024-b8", "GptBlock(768, 12)", [[8, 1024, 768]]),
    Case("resnet-bottleneck-256-56x56-b32", "Bottleneck(256, 64)", [[32, 256, 56, 56]]),
    Case("conv2d-64-3x3-56x56-b32", "nn.Conv2d(64, 64, 3, padding=1)", [[32, 64, 56, 56]]),
    Case("sdpa-b8-h12-t1024-d64", "Sdpa()", [[8, 12, 1024, 64]] * 3, needs="scaled_dot_product_attention"),
]


# ---- measuring ---------------------------------------------------------------------------------------------
def harness_events(case: Case, dtype: str, device: str = "cuda:0",
                   modes: tuple = MODES, cuda_graph: bool = True) -> Dict[str, Dict[str, Any]]:
    """Modes of one case and dtype through the harness (run_layer), as case events by mode."""
    spec = check_spec({
        "version": 1, "kind": "layer", "runId": f"compare-{case.name}-{dtype}", "file": str(Path(__file__).resolve()),
        "workspaceRoot": str(BENCH_DIR), "constructor": case.constructor,
        "inputs": [{"shape": shape, "dtype": "float"} for shape in case.shapes],
        "dtype": dtype, "modes": list(modes), "device": device, "cudaGraph": cuda_graph,
    })
    with tempfile.TemporaryDirectory(prefix="shardlens-compare-") as folder:
        writer = EventWriter(os.path.join(folder, "events.jsonl"), spec["runId"])
        run_layer(spec, writer)
        writer.close()
        with open(os.path.join(folder, "events.jsonl"), encoding="utf-8") as handle:
            events = [json.loads(line) for line in handle if line.strip()]
    for event in events:
        if event["type"] == "error":
            print(f"  harness error ({event.get('case', {}).get('mode', '-')}): {event['message']}", file=sys.stderr)
    return {event["case"]["mode"]: event for event in events if event["type"] == "case"}


def step_for(case: Case, dtype: str, mode: str, device: str = "cuda:0") -> tuple:
    """The same module, inputs and step the harness builds (make_step), and the tensors to reset."""
    torch.manual_seed(0)
    model = construct(case.constructor, load_namespace(str(Path(__file__).resolve()), str(BENCH_DIR)))
    model = model.to(device=device, dtype=RUN_DTYPES[dtype]).train(mode == "forward_backward")
    dims: Dict[str, int] = {}
    inputs = build_inputs([{"shape": s, "dtype": "float"} for s in case.shapes], dims, dtype=RUN_DTYPES[dtype],
                          device=device, requires_grad=mode == "forward_backward")
    step = make_step(model, inputs, mode)
    return step, (list(model.parameters()) + inputs if mode == "forward_backward" else [])


def middle_run(events: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The harness case event with the median of the runs' medians; the last run's graph timing (only the
    last turn replays graphs) is kept on it."""
    ordered = sorted(events, key=lambda e: e["timing"]["medianMs"])
    middle = dict(ordered[len(ordered) // 2])
    graphed = [e for e in events if e.get("graphTiming")]
    if graphed and not middle.get("graphTiming"):
        middle["graphTiming"] = graphed[-1]["graphTiming"]
    return middle


def _median(value: Any) -> float:
    return float(value[0] if isinstance(value, (list, tuple)) else value)


def _median_of(bench: Callable[..., Any], step: Callable[[], None], reset: List[torch.Tensor],
               notes: List[str]) -> float:
    """The median from a triton bench function, across its signatures: `quantiles` (triton >= 2.1),
    `percentiles` (triton 2.0), or neither (an early do_bench_cudagraph returns the mean)."""
    grads = reset or None
    try:
        return _median(bench(step, grad_to_none=grads, quantiles=[0.5]))
    except TypeError:
        pass
    try:
        return _median(bench(step, grad_to_none=grads, percentiles=(0.5,)))
    except TypeError:
        notes.append(f"{bench.__name__} returns the mean in this triton, not the median")
        return _median(bench(step, grad_to_none=grads))


def do_bench_median(step: Callable[[], None], reset: List[torch.Tensor], notes: List[str]) -> float:
    """do_bench's median ms of `step`."""
    import triton.testing as tt

    return _median_of(tt.do_bench, step, reset, notes)


def cudagraph_median(step: Callable[[], None], reset: List[torch.Tensor], notes: List[str]) -> Optional[float]:
    """do_bench_cudagraph's median ms of `step`, or None (the notes say why)."""
    import triton.testing as tt

    cudagraph_ms = None
    if hasattr(tt, "do_bench_cudagraph"):
        try:
            # NOTE: graph capture is refused on the default stream, so do_bench_cudagraph runs on a side stream.
            with torch.cuda.stream(torch.cuda.Stream()):
                cudagraph_ms = _median_of(tt.do_bench_cudagraph, step, reset, notes)
        except Exception as exc:  # capture fails for some steps; the row says why
            notes.append(f"do_bench_cudagraph failed: {one_line(exc)}")
            torch.cuda.synchronize()
    else:
        notes.append("this triton has no do_bench_cudagraph")
    return cudagraph_ms


def run_cases(cases: List[Case]) -> List[Dict[str, Any]]:
    device_name = torch.cuda.get_device_name(0)
    backend = "rocm" if getattr(torch.version, "hip", None) else "cuda"
    rows = []
    for case in cases:
        if case.needs and not hasattr(F, case.needs):
            print(f"skipping {case.name}: torch {torch.__version__} has no F.{case.needs}", file=sys.stderr)
            continue
        for dtype in DTYPES:
            ridge = find_peak(device_name, dtype, backend).ridge_flops_per_byte
            for mode in MODES:
                # NOTE: do_bench and the harness take turns, ROUNDS times each, and the row has the median
                # of each tool's medians, so a drift of the GPU's clocks or the host's speed during the case
                # counts alike for both. On an H200 one do_bench of the same step read 0.343-0.387 ms (a
                # bf16 Linear at 8192 tokens) and 0.28-0.48 ms (SDPA's bf16 forward+backward, whose eager
                # time is set by the host's launches) within minutes (docs/benchmark.md). CUDA graphs are
                # replayed only after the eager timings.
                notes: List[str] = []
                step, reset = step_for(case, dtype, mode)
                do_bench_runs: List[float] = []
                harness_runs: List[Dict[str, Any]] = []
                for turn in range(ROUNDS):
                    do_bench_runs.append(do_bench_median(step, reset, notes))
                    last = turn == ROUNDS - 1
                    harness_runs.extend(harness_events(case, dtype, modes=(mode,), cuda_graph=last).values())
                cudagraph_ms = cudagraph_median(step, reset, notes)
                del step, reset
                torch.cuda.empty_cache()
                if len(harness_runs) < ROUNDS:
                    print(f"  {case.name} {dtype} {mode}: the harness has no result; skipped", file=sys.stderr)
                    continue
                do_bench_ms = statistics.median(do_bench_runs)
                event = middle_run(harness_runs)
                spread = [round(e["timing"]["medianMs"], 4) for e in harness_runs]
                notes.append(f"medians of {ROUNDS} turns: do_bench {[round(x, 4) for x in do_bench_runs]}, harness {spread}")
                row = case_row(layer=case.name, dtype=dtype, mode=mode, harness_event=event,
                               do_bench_ms=do_bench_ms, cudagraph_ms=cudagraph_ms, ridge=ridge, notes=notes)
                print(f"{case.name:34} {dtype:5} {mode:16} harness {row['harnessMedianMs']:.4f} ms"
                      f"  do_bench {do_bench_ms:.4f} ms  graph {cudagraph_ms if cudagraph_ms is None else round(cudagraph_ms, 4)}"
                      f"  {row['regime']}", flush=True)
                rows.append(row)
    return rows


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(BENCH_DIR / "results"), help="folder for <gpu-slug>.json")
    parser.add_argument("--only", nargs="*", default=None, help="case names to run (see --dry-run)")
    parser.add_argument("--dry-run", action="store_true", help="list the cases and exit; needs no GPU")
    return parser.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    cases = [c for c in CASES if args.only is None or c.name in args.only]
    unknown = sorted(set(args.only or []) - {c.name for c in CASES})
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(c.name for c in CASES)}", file=sys.stderr)
        return EXIT_NOTHING_WRITTEN
    if args.dry_run:
        for case in cases:
            print(f"{case.name}: {case.constructor} on {' + '.join('x'.join(map(str, s)) for s in case.shapes)}"
                  f" x {'/'.join(DTYPES)} x {'/'.join(MODES)}")
        return EXIT_OK
    if not torch.cuda.is_available():
        print(f"compare_do_bench.py needs a CUDA or ROCm GPU; torch {torch.__version__} sees none. Nothing written.",
              file=sys.stderr)
        return EXIT_NOTHING_WRITTEN
    try:
        import triton
    except ImportError:
        print("compare_do_bench.py needs triton (pip install triton); nothing written.", file=sys.stderr)
        return EXIT_NOTHING_WRITTEN
    rows = run_cases(cases)
    report = build_report(device=torch.cuda.get_device_name(0), torch_version=str(torch.__version__),
                          triton_version=getattr(triton, "__version__", None), rows=rows)
    out = Path(args.out) / f"{gpu_slug(report['device'])}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    problems = agreement_problems(rows)
    for problem in problems:
        print(f"outside 5% of do_bench: {problem}", file=sys.stderr)
    return EXIT_DISAGREES if problems else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

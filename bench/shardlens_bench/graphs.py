"""CUDA-graph timing mode and torch.compile warm-up for one case.

Graph replay follows the PyTorch CUDA-graphs notes ("CUDA Graphs", whole-network capture): warm up on a side
stream, set gradients to None so backward allocates them from the graph's private pool, capture one step with
torch.cuda.graph, then time replays. torch.compile cases report the first call's wall time (compilation
included) separately and are timed only once no new graph is compiled between calls.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

import torch

from .budget import Budget, measure
from .errors import one_line
from .timing import TimingResult, device_clock_name, host_timed_ms, summarize, synchronize

SIDE_STREAM_WARMUP_CALLS = 3
# A compiled step is steady once this many calls in a row compiled nothing new.
STEADY_CALLS = 2
MAX_SETTLE_CALLS = 10


def graph_replay_timing(step: Callable[[], Any], *, backend: str, budget: Budget, tensors: List[torch.Tensor],
                        flush: Optional[Callable[[], None]]) -> Tuple[Optional[TimingResult], Optional[str]]:
    """Capture `step` in a CUDA graph and time its replays; (timing, None) or (None, why not)."""
    if backend not in ("cuda", "rocm"):
        return None, "CUDA-graph replay is measured on CUDA/ROCm GPUs only"
    if not hasattr(torch.cuda, "CUDAGraph") or not hasattr(torch.cuda, "graph"):
        return None, f"torch {torch.__version__} has no torch.cuda.graph"

    def clear_grads() -> None:
        for tensor in tensors:
            tensor.grad = None

    graph = None
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(SIDE_STREAM_WARMUP_CALLS):
                clear_grads()
                step()
        torch.cuda.current_stream().wait_stream(side)
        clear_grads()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        torch.cuda.synchronize()
        # NOTE: no gradient reset between replays: the captured backward writes the same .grad memory.
        samples, plan = measure(graph.replay, backend=backend, budget=budget, before_each=flush)
    except Exception as exc:  # capture is refused by many ops (host syncs, CPU tensors, dynamic shapes)
        return None, f"CUDA-graph capture failed: {one_line(exc)}"
    finally:
        del graph
        gc.collect()
        torch.cuda.empty_cache()
    method = device_clock_name(backend) + ", CUDA-graph replay" + (", L2 flushed" if flush is not None else "")
    return summarize(samples, method, plan.warmup, plan.capped), None


@dataclass
class CompileWarmup:
    """What the first calls of a compiled step cost."""

    first_call_ms: float
    recompiles: int
    steady_after_calls: int

    def to_event(self) -> dict:
        return {"firstCallMs": self.first_call_ms, "recompiles": self.recompiles,
                "steadyAfterCalls": self.steady_after_calls}


def compiled_graph_count() -> Optional[int]:
    """Graphs TorchDynamo has compiled so far in this process, or None where the counter is missing."""
    try:
        from torch._dynamo.utils import counters  # type: ignore[import-not-found]
    except ImportError:
        return None
    return int(counters["stats"]["unique_graphs"])


def settle_compiled(step: Callable[[], Any], *, backend: str,
                    before_each: Optional[Callable[[], None]]) -> CompileWarmup:
    """Make the first call (it compiles), then call until STEADY_CALLS calls in a row compile nothing new."""
    first_call_ms = host_timed_ms(step, backend, before_each)
    after_first = compiled_graph_count()
    last, quiet, calls = after_first, 0, 1
    while quiet < STEADY_CALLS and calls < MAX_SETTLE_CALLS:
        if before_each is not None:
            before_each()
        step()
        calls += 1
        count = compiled_graph_count()
        quiet = quiet + 1 if count == last else 0
        last = count
    synchronize(backend)
    recompiles = (last - after_first) if last is not None and after_first is not None else 0
    return CompileWarmup(first_call_ms, recompiles, calls)

"""Names the regime a case runs in: launch-bound when eager time is well above CUDA-graph replay of the same
work (the host's kernel launches set the pace), else compute- or memory-bound from the roofline (Williams,
Waterman & Patterson, "Roofline", CACM 2009: arithmetic intensity against the ridge point peak FLOP/s over
peak bytes/s). Each verdict comes with one sentence the panel shows."""

from __future__ import annotations

from typing import Optional, Tuple

# Eager over graph replay above this ratio means launch overhead dominates (the threshold issue 12 set;
# on an H100 a bf16 LayerNorm(4096) fwd+bwd measured 0.52 ms by do_bench against 0.16 ms by graph replay).
LAUNCH_BOUND_RATIO = 1.3


def classify_regime(*, eager_ms: float, graph_ms: Optional[float], intensity: Optional[float],
                    ridge: Optional[float]) -> Tuple[Optional[str], str]:
    """(regime or None, one sentence). `intensity` is FLOPs per byte moved; `ridge` the device's ridge point."""
    if graph_ms is not None and graph_ms > 0 and eager_ms / graph_ms > LAUNCH_BOUND_RATIO:
        ratio = eager_ms / graph_ms
        return "launch-bound", (
            f"Launch-bound: eager takes {ratio:.1f}x the CUDA-graph replay of the same work, so CPU-side kernel"
            " launches set the time; inside a captured or compiled training step expect the graph figure.")
    if intensity is not None and ridge is not None:
        if intensity > ridge:
            return "compute-bound", (
                f"Compute-bound: {intensity:.0f} FLOP/byte is above this GPU's ridge point of {ridge:.0f}"
                " FLOP/byte, so the math units set the time.")
        return "memory-bound", (
            f"Memory-bound: {intensity:.1f} FLOP/byte is below this GPU's ridge point of {ridge:.0f}"
            " FLOP/byte, so memory bandwidth sets the time.")
    if intensity is None:
        return None, "No regime: the FLOPs of this module could not be counted, so the roofline cannot place it."
    return None, "No regime: this device has no peak figures in the table, so the roofline cannot place it."

"""Derived per-case metrics: achieved TFLOP/s, percent of peak, bytes moved, GB/s, arithmetic intensity
and the roofline verdict (Williams, Waterman & Patterson, "Roofline", CACM 2009)."""

from __future__ import annotations

from typing import Any, Dict, Optional

from .peaks import Peak

# Backward reads and writes about twice what forward does (weights and saved inputs read again,
# gradients of weights and inputs written), so a training step moves about 3x the forward bytes.
FORWARD_BACKWARD_BYTES_FACTOR = 3
BYTES_MOVED_NOTE = (
    "approximation: parameter + input + output bytes (x3 for forward_backward); intermediate activations"
    " and cache reuse are ignored, so it is a lower bound on DRAM traffic"
)


def bytes_moved(param_bytes: int, input_bytes: int, output_bytes: int, mode: str) -> int:
    forward_bytes = param_bytes + input_bytes + output_bytes
    return forward_bytes * (FORWARD_BACKWARD_BYTES_FACTOR if mode == "forward_backward" else 1)


def derived_metrics(*, flops: Optional[int], moved_bytes: int, median_ms: float, peak: Peak) -> Dict[str, Any]:
    """The case event's achievedTflops, percentOfPeak, achievedGBps, arithmeticIntensity and roofline."""
    seconds = median_ms / 1e3
    achieved_tflops = flops / seconds / 1e12 if flops is not None and seconds > 0 else None
    percent = achieved_tflops / peak.tflops * 100 if achieved_tflops is not None and peak.tflops else None
    achieved_gbps = moved_bytes / seconds / 1e9 if seconds > 0 else None
    intensity = flops / moved_bytes if flops is not None and moved_bytes > 0 else None
    ridge = peak.ridge_flops_per_byte
    verdict = None
    if intensity is not None and ridge is not None:
        verdict = "compute-bound" if intensity > ridge else "memory-bound"
    return {
        "achievedTflops": achieved_tflops,
        "percentOfPeak": percent,
        "achievedGBps": achieved_gbps,
        "arithmeticIntensity": intensity,
        "roofline": verdict,
    }

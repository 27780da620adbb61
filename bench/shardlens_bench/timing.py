"""Timing: device events around each call on CUDA/ROCm, the host clock elsewhere; median, IQR and min.

GPU method follows triton.testing.do_bench: warm-up calls, then per repetition zero a 256 MB buffer
(flushing L2), record a start event, call, record an end event; synchronise once at the end. The counts
come from a time budget as in do_bench (25 ms of warm-up, 100 ms of measurement, sized from a first
estimate of one call), within minimum and maximum counts and a per-case cap (budget.py).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

import torch

# triton.testing.do_bench (runtime/driver get_empty_cache_for_benchmark): 256 MB of int32 zeroed per call.
L2_FLUSH_BYTES = 256 * 1024 * 1024


@dataclass
class TimingResult:
    """Summary of one case's repetitions, in milliseconds."""

    method: str
    median_ms: float
    iqr_ms: float
    min_ms: float
    repetitions: int
    warmup: Optional[int] = None
    capped: bool = False

    def to_event(self) -> dict:
        event = {
            "method": self.method,
            "medianMs": self.median_ms,
            "iqrMs": self.iqr_ms,
            "minMs": self.min_ms,
            "repetitions": self.repetitions,
        }
        if self.warmup is not None:
            event["warmup"] = self.warmup
        if self.capped:
            event["capped"] = True
        return event


def summarize(samples_ms: List[float], method: str, warmup: Optional[int] = None, capped: bool = False) -> TimingResult:
    """Median, IQR (p75 - p25, linear interpolation as numpy's default) and min of the samples."""
    if len(samples_ms) >= 2:
        p25, _, p75 = statistics.quantiles(samples_ms, n=4, method="inclusive")
        iqr_ms = max(0.0, p75 - p25)
    else:
        iqr_ms = 0.0
    return TimingResult(method, statistics.median(samples_ms), iqr_ms, min(samples_ms), len(samples_ms), warmup, capped)


def uses_device_events(backend: str) -> bool:
    """CUDA and ROCm (HIP) both expose torch.cuda.Event."""
    return backend in ("cuda", "rocm")


def device_clock_name(backend: str) -> str:
    """Method label of the clock used on this backend."""
    if uses_device_events(backend):
        return "hip-events" if backend == "rocm" else "cuda-events"
    return "host clock"


def synchronize(backend: str) -> None:
    """Wait for the device's queued work (CUDA/ROCm, MPS); a no-op on CPU."""
    if uses_device_events(backend):
        torch.cuda.synchronize()
    elif backend == "mps" and hasattr(torch, "mps") and hasattr(torch.mps, "synchronize"):
        torch.mps.synchronize()


def host_timed_ms(fn: Callable[[], object], backend: str,
                  before_each: Optional[Callable[[], None]] = None) -> float:
    """One call of `fn` on the host clock, the device synchronised before and after; `before_each`
    runs outside the timed region."""
    if before_each is not None:
        before_each()
    synchronize(backend)
    began = time.perf_counter()
    fn()
    synchronize(backend)
    return (time.perf_counter() - began) * 1e3


def sample_durations_ms(
    fn: Callable[[], object],
    *,
    backend: str,
    warmup: int,
    repetitions: int,
    before_each: Optional[Callable[[], None]] = None,
) -> List[float]:
    """Call `fn` `warmup` times, then `repetitions` times, returning each timed call's duration in ms.
    `before_each` runs outside the timed region (L2 flush, gradient reset, barrier)."""
    for _ in range(warmup):
        if before_each is not None:
            before_each()
        fn()
    synchronize(backend)
    if uses_device_events(backend):
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(repetitions)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(repetitions)]
        for start, end in zip(starts, ends):
            if before_each is not None:
                before_each()
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in zip(starts, ends)]
    return [host_timed_ms(fn, backend, before_each) for _ in range(repetitions)]


def make_l2_flush(backend: str, torch_device: str) -> Optional[Callable[[], None]]:
    """A callable zeroing a 256 MB device buffer (do_bench's L2 flush), or None off the GPU."""
    if not uses_device_events(backend):
        return None
    cache = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device=torch_device)
    return cache.zero_


def l2_flush_bytes(flush: Optional[Callable[[], None]]) -> int:
    return L2_FLUSH_BYTES if flush is not None else 0

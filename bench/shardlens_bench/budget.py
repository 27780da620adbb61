"""Repetition counts by time budget, sized as triton.testing.do_bench sizes them (python/triton/testing.py:
`do_bench(fn, warmup=25, rep=100)` estimates one call from 5 calls, then runs warmup / estimate warm-up
calls and rep / estimate timed calls), kept within minimum and maximum counts and a per-case cap so a
5 s CPU call cannot make one case take minutes. Fixed counts (`warmup`, `repetitions`) still win when
the spec gives them."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch

from .timing import host_timed_ms, sample_durations_ms, synchronize, uses_device_events

# triton.testing.do_bench defaults: 25 ms of warm-up, 100 ms of repetitions, 5 calls for the estimate.
DO_BENCH_WARMUP_MS = 25.0
DO_BENCH_MEASURE_MS = 100.0
ESTIMATE_CALLS = 5
# Warm-up calls when the spec fixes the repetitions but not the warm-up.
FIXED_MODE_WARMUP = 5


@dataclass(frozen=True)
class Budget:
    """How long to warm up and measure one case, and the bounds on the counts."""

    warmup_ms: float = DO_BENCH_WARMUP_MS
    measure_ms: float = DO_BENCH_MEASURE_MS
    min_repetitions: int = 5
    max_repetitions: int = 1000
    max_case_seconds: float = 10.0
    fixed_warmup: Optional[int] = None
    fixed_repetitions: Optional[int] = None

    @classmethod
    def from_spec(cls, spec: Dict[str, Any]) -> "Budget":
        """The budget of a spec with its defaults filled in (spec.py)."""
        return cls(
            warmup_ms=float(spec["warmupMs"]),
            measure_ms=float(spec["measureMs"]),
            min_repetitions=int(spec["minRepetitions"]),
            max_repetitions=max(int(spec["maxRepetitions"]), int(spec["minRepetitions"])),
            max_case_seconds=float(spec["maxCaseSeconds"]),
            fixed_warmup=spec.get("warmup"),
            fixed_repetitions=spec.get("repetitions"),
        )

    @property
    def fixed(self) -> bool:
        return self.fixed_repetitions is not None


@dataclass(frozen=True)
class Plan:
    """Counts of the calls still to make for one case."""

    warmup: int
    repetitions: int
    capped: bool  # True when the per-case cap cut the counts below what the budget asked for


def plan_counts(budget: Budget, estimate_ms: float, spent_ms: float) -> Plan:
    """Warm-up and timed calls for a call estimated at `estimate_ms`, after `spent_ms` already spent on the
    case (the estimation calls, which count as warm-up). The cap wins over the minimum count, but at least
    one timed call is always made."""
    if budget.fixed:
        warmup = budget.fixed_warmup if budget.fixed_warmup is not None else FIXED_MODE_WARMUP
        return Plan(warmup, int(budget.fixed_repetitions or 1), False)
    per_call_ms = max(estimate_ms, 1e-6)
    warmup = max(0, int((budget.warmup_ms - spent_ms) / per_call_ms))
    repetitions = min(max(int(budget.measure_ms / per_call_ms), budget.min_repetitions), budget.max_repetitions)
    affordable = int(math.floor((budget.max_case_seconds * 1e3 - spent_ms) / per_call_ms))
    if warmup + repetitions <= affordable:
        return Plan(warmup, repetitions, False)
    repetitions = max(1, min(repetitions, affordable))
    return Plan(max(0, min(warmup, affordable - repetitions)), repetitions, True)


def estimate_call_ms(fn: Callable[[], object], *, backend: str,
                     before_each: Optional[Callable[[], None]], warmup_ms: float) -> Tuple[float, int]:
    """(estimated ms per call, calls made). The first call is timed alone (it pays lazy initialisation);
    when it already exceeds the warm-up budget it is the estimate. Otherwise up to ESTIMATE_CALLS more
    calls are timed, on the host clock stopping once the warm-up budget is spent, as do_bench does."""
    first_ms = host_timed_ms(fn, backend, before_each)
    if first_ms >= warmup_ms:
        return first_ms, 1
    if uses_device_events(backend):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(ESTIMATE_CALLS):
            if before_each is not None:
                before_each()
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / ESTIMATE_CALLS, 1 + ESTIMATE_CALLS
    samples: List[float] = []
    while len(samples) < ESTIMATE_CALLS and first_ms + sum(samples) < warmup_ms:
        samples.append(host_timed_ms(fn, backend, before_each))
    return sum(samples) / len(samples), 1 + len(samples)


def measure(fn: Callable[[], object], *, backend: str, budget: Budget,
            before_each: Optional[Callable[[], None]] = None) -> Tuple[List[float], Plan]:
    """Time `fn` by the budget (or the fixed counts); returns the timed samples in ms and the plan used.
    `Plan.warmup` counts every untimed call, the estimation calls included."""
    if budget.fixed:
        plan = plan_counts(budget, 0.0, 0.0)
        samples = sample_durations_ms(fn, backend=backend, warmup=plan.warmup, repetitions=plan.repetitions,
                                      before_each=before_each)
        return samples, plan
    began = time.perf_counter()
    estimate_ms, calls = estimate_call_ms(fn, backend=backend, before_each=before_each, warmup_ms=budget.warmup_ms)
    plan = plan_counts(budget, estimate_ms, (time.perf_counter() - began) * 1e3)
    samples = sample_durations_ms(fn, backend=backend, warmup=plan.warmup, repetitions=plan.repetitions,
                                  before_each=before_each)
    return samples, Plan(plan.warmup + calls, plan.repetitions, plan.capped)

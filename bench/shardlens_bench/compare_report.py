"""The report of bench/compare_do_bench.py: one row per (layer, dtype, mode) with the harness's median beside
triton.testing.do_bench's and do_bench_cudagraph's, the regime, and the agreement check. Pure functions, so
CI checks them without a GPU; the schema is schema/compare.schema.json."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from .regime import classify_regime
from .schema_check import load_schema, validate

# Issue 12's acceptance: a compute-bound case's harness median within 5% of do_bench's.
COMPUTE_BOUND_TOLERANCE = 0.05


def gpu_slug(device_name: str) -> str:
    """File-name slug of a device name: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"."""
    slug = re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")
    return slug or "unknown-gpu"


def case_row(*, layer: str, dtype: str, mode: str, harness_event: Dict[str, Any], do_bench_ms: Optional[float],
             cudagraph_ms: Optional[float], ridge: Optional[float], notes: Optional[List[str]] = None) -> Dict[str, Any]:
    """One report row. The regime uses the harness's eager median against graph replay (do_bench_cudagraph's,
    else the harness's own replay) and the roofline of the case's arithmetic intensity."""
    harness_ms = harness_event["timing"]["medianMs"]
    harness_graph = harness_event.get("graphTiming")
    harness_graph_ms = harness_graph["medianMs"] if harness_graph else None
    graph_ms = cudagraph_ms if cudagraph_ms is not None else harness_graph_ms
    regime, regime_note = classify_regime(eager_ms=harness_ms, graph_ms=graph_ms,
                                          intensity=harness_event.get("arithmeticIntensity"), ridge=ridge)
    ratio = harness_ms / do_bench_ms if do_bench_ms else None
    return {
        "layer": layer,
        "dtype": dtype,
        "mode": mode,
        "harnessMedianMs": harness_ms,
        "doBenchMedianMs": do_bench_ms,
        "cudagraphMedianMs": cudagraph_ms,
        "regime": regime,
        "regimeNote": regime_note,
        "harnessGraphMedianMs": harness_graph_ms,
        "harnessOverDoBench": ratio,
        "peakMemoryBytes": harness_event.get("peakMemoryBytes"),
        "notes": list(notes or []),
    }


def agreement_problems(rows: List[Dict[str, Any]]) -> List[str]:
    """Compute-bound rows whose harness median is more than 5% away from do_bench's (the issue's bar)."""
    problems = []
    for row in rows:
        ratio = row["harnessOverDoBench"]
        if row["regime"] == "compute-bound" and ratio is not None and abs(ratio - 1) > COMPUTE_BOUND_TOLERANCE:
            problems.append(f"{row['layer']} {row['dtype']} {row['mode']}: harness {row['harnessMedianMs']:.4f} ms"
                            f" vs do_bench {row['doBenchMedianMs']:.4f} ms ({(ratio - 1) * 100:+.1f}%)")
    return problems


def build_report(*, device: str, torch_version: str, triton_version: Optional[str],
                 rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The bench/results/<gpu-slug>.json document; raises ValueError when it does not match its schema."""
    report = {"device": device, "torch": torch_version, "triton": triton_version, "cases": rows}
    problems = validate(report, load_schema("compare"))
    if problems:
        raise ValueError("report does not match compare.schema.json: " + "; ".join(problems[:3]))
    return report

"""Peak compute and memory bandwidth per GPU model (dense, no 2:4 sparsity), matched by device name.

The figures come from presets.json beside this file: the one table of GPU and link presets that the
extension's estimates and cluster picker read too. Each row there names its vendor data sheet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

PRESETS_PATH = Path(__file__).with_name("presets.json")


@dataclass(frozen=True)
class GpuPeak:
    """One row of the table: every substring in `match` must appear in the device name (case-insensitive)."""

    label: str
    match: Tuple[str, ...]
    half_tflops: float  # dense bf16 tensor-core (NVIDIA) or matrix-core (AMD) TFLOP/s
    fp32_tflops: float  # fp32 matrix peak without TF32 (NVIDIA: the FP32 figure; AMD: FP32 matrix)
    bandwidth_gbps: float  # HBM/GDDR bandwidth, GB/s (1e9 bytes)
    fp16_tflops: Optional[float] = None  # dense fp16 TFLOP/s when it differs from bf16's
    id: str = ""
    source: str = ""


def load_presets(path: Path = PRESETS_PATH) -> Dict[str, Any]:
    """The parsed presets.json: {"gpus": [...], "links": [...]}."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _peaks_from(presets: Dict[str, Any]) -> Tuple[GpuPeak, ...]:
    rows = [
        GpuPeak(
            label=row["name"],
            match=tuple(part.lower() for part in row["deviceNameMatch"]),
            half_tflops=float(row["tflops"]["bf16"]),
            fp32_tflops=float(row["tflops"]["fp32"]),
            bandwidth_gbps=float(row["memoryBandwidthGBps"]),
            fp16_tflops=float(row["tflops"]["fp16"]),
            id=row["id"],
            source=row["source"],
        )
        for row in presets["gpus"]
    ]
    # First match wins, so rows naming more substrings (H100 PCIe, A100 80GB PCIe) come first;
    # the sort is stable, so the file's order decides among equals.
    return tuple(sorted(rows, key=lambda row: -len(row.match)))


GPU_PEAKS = _peaks_from(load_presets())


@dataclass(frozen=True)
class Peak:
    """Peaks for one device and dtype, as reported in the `started` event."""

    tflops: Optional[float]
    bandwidth_gbps: Optional[float]
    source: str

    def to_event(self) -> dict:
        return {"tflops": self.tflops, "bandwidthGBps": self.bandwidth_gbps, "source": self.source}

    @property
    def ridge_flops_per_byte(self) -> Optional[float]:
        """Roofline ridge point: peak FLOP/s over peak bytes/s."""
        if self.tflops is None or not self.bandwidth_gbps:
            return None
        return self.tflops * 1e12 / (self.bandwidth_gbps * 1e9)


def find_row(device_name: str) -> Optional[GpuPeak]:
    """The first row whose substrings all appear in the device name, or None."""
    name = device_name.lower()
    for row in GPU_PEAKS:
        if all(part in name for part in row.match):
            return row
    return None


def find_peak(device_name: str, dtype: str, backend: str) -> Peak:
    """Look the device up by name; unknown devices (and CPUs) get null peaks with the reason as source."""
    if backend in ("cpu", "mps"):
        return Peak(None, None, f"no peak table for {backend} devices")
    row = find_row(device_name)
    if row is None:
        return Peak(None, None, f"device {device_name!r} is not in the peak table")
    if dtype == "fp32":
        tflops, kind = row.fp32_tflops, "fp32 (no TF32)"
    elif dtype == "fp16" and row.fp16_tflops is not None:
        tflops, kind = row.fp16_tflops, "dense fp16"
    else:
        tflops, kind = row.half_tflops, "dense bf16/fp16"
    return Peak(tflops, row.bandwidth_gbps, f"{row.label}: {row.source}; {kind}")

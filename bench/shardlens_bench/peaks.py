"""Peak compute and memory bandwidth per GPU model (dense, no 2:4 sparsity), matched by device name.

Sources: vendor data sheets, as gathered in the steering FACTS.md "GPU presets" table:
NVIDIA H100 Tensor Core GPU data sheet (SXM5 / PCIe), H200 data sheet, A100 data sheet (SXM4 / PCIe),
L40S data sheet, A10 data sheet, GeForce RTX 4090 (Ada whitepaper, fp16/bf16 with fp32 accumulate),
AMD Instinct MI300X and MI250X data sheets. fp16 and bf16 peaks are equal on every listed part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class GpuPeak:
    """One row of the table: every substring in `match` must appear in the device name (case-insensitive)."""

    label: str
    match: Tuple[str, ...]
    half_tflops: float  # dense bf16/fp16 tensor-core (NVIDIA) or matrix-core (AMD) TFLOP/s
    fp32_tflops: float  # fp32 without TF32 (NVIDIA CUDA cores; AMD matrix cores for fp32 GEMM)
    bandwidth_gbps: float  # HBM/GDDR bandwidth, GB/s (1e9 bytes)


# First match wins, so more specific rows come first (H100 PCIe before H100, A100 80GB PCIe before A100 80GB).
GPU_PEAKS = (
    GpuPeak("H100 PCIe", ("h100", "pcie"), 756.0, 51.0, 2000.0),
    GpuPeak("H100 NVL", ("h100", "nvl"), 835.0, 60.0, 3900.0),
    GpuPeak("H100 SXM", ("h100",), 989.0, 67.0, 3350.0),
    GpuPeak("H200", ("h200",), 989.0, 67.0, 4800.0),
    GpuPeak("A100 80GB PCIe", ("a100", "80gb", "pcie"), 312.0, 19.5, 1935.0),
    GpuPeak("A100 SXM 80GB", ("a100", "80gb"), 312.0, 19.5, 2039.0),
    GpuPeak("A100 40GB", ("a100",), 312.0, 19.5, 1555.0),
    GpuPeak("L40S", ("l40s",), 362.0, 91.6, 864.0),
    # NOTE: A10G is AWS's variant of the A10; NVIDIA publishes no separate sheet, so these are the A10's figures.
    GpuPeak("A10G", ("a10g",), 125.0, 31.2, 600.0),
    GpuPeak("RTX 4090", ("4090",), 165.2, 82.6, 1008.0),
    GpuPeak("MI300X", ("mi300x",), 1307.4, 163.4, 5300.0),
    GpuPeak("MI250X", ("mi250x",), 383.0, 95.7, 3276.8),
)


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


def find_peak(device_name: str, dtype: str, backend: str) -> Peak:
    """Look the device up by name; unknown devices (and CPUs) get null peaks with the reason as source."""
    if backend in ("cpu", "mps"):
        return Peak(None, None, f"no peak table for {backend} devices")
    name = device_name.lower()
    for row in GPU_PEAKS:
        if all(part in name for part in row.match):
            tflops = row.fp32_tflops if dtype == "fp32" else row.half_tflops
            kind = "fp32 (no TF32)" if dtype == "fp32" else "dense bf16/fp16"
            return Peak(tflops, row.bandwidth_gbps, f"{row.label} data sheet, {kind}")
    return Peak(None, None, f"device {device_name!r} is not in the peak table")

"""Device detection: resolves the requested device, names the backend (cuda, rocm, mps, cpu), the device,
its memory and warp size, the library versions, and the collective backend (nccl, rccl, gloo)."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from typing import Optional

import torch

from .errors import HarnessError

NVIDIA_WARP_SIZE = 32
AMD_WAVEFRONT_SIZE = 64


@dataclass
class DeviceInfo:
    """Everything the `started` event says about where the benchmark runs."""

    torch_device: str  # "cuda:0", "mps" or "cpu"
    backend: str  # "cuda" | "rocm" | "mps" | "cpu"
    name: str
    memory_bytes: Optional[int]
    warp_size: Optional[int]
    index: Optional[int]
    collective_backend: str  # "nccl" | "rccl" | "gloo"

    def to_event(self) -> dict:
        return {"name": self.name, "memoryBytes": self.memory_bytes, "warpSize": self.warp_size, "index": self.index}


def is_rocm() -> bool:
    """ROCm builds of PyTorch set torch.version.hip and expose the GPU through torch.cuda."""
    return bool(getattr(torch.version, "hip", None))


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def resolve_device(requested: str) -> str:
    """Map "auto" to cuda:0 (CUDA or ROCm), else mps, else cpu; raise a no_gpu HarnessError when the
    requested accelerator does not exist."""
    if requested == "auto":
        if torch.cuda.is_available():
            return "cuda:0"
        return "mps" if _mps_available() else "cpu"
    if requested == "cpu":
        return "cpu"
    if requested == "mps":
        if not _mps_available():
            raise HarnessError("no_gpu", "device 'mps' was requested but MPS is not available")
        return "mps"
    index = int(requested.split(":", 1)[1]) if ":" in requested else 0
    if not torch.cuda.is_available():
        raise HarnessError("no_gpu", f"device {requested!r} was requested but this PyTorch sees no CUDA/ROCm GPU"
                                     f" (torch {torch.__version__})")
    count = torch.cuda.device_count()
    if index >= count:
        raise HarnessError("no_gpu", f"device {requested!r} was requested but only {count} GPU(s) are visible")
    return f"cuda:{index}"


def warp_size_of(index: int) -> int:
    """Warp (NVIDIA) or wavefront (AMD) size: the device property when PyTorch has it, else 64 on ROCm, 32 on CUDA."""
    props = torch.cuda.get_device_properties(index)
    size = getattr(props, "warp_size", None)
    if isinstance(size, int) and size > 0:
        return size
    return AMD_WAVEFRONT_SIZE if is_rocm() else NVIDIA_WARP_SIZE


def collective_backend_for(backend: str) -> str:
    """The library behind torch.distributed's default backend on this device: RCCL is NCCL's ROCm port."""
    return {"cuda": "nccl", "rocm": "rccl"}.get(backend, "gloo")


def describe_device(torch_device: str) -> DeviceInfo:
    """Describe a device string returned by resolve_device."""
    if torch_device.startswith("cuda"):
        index = int(torch_device.split(":", 1)[1]) if ":" in torch_device else 0
        backend = "rocm" if is_rocm() else "cuda"
        return DeviceInfo(
            torch_device=torch_device,
            backend=backend,
            name=torch.cuda.get_device_name(index),
            memory_bytes=int(torch.cuda.get_device_properties(index).total_memory),
            warp_size=warp_size_of(index),
            index=index,
            collective_backend=collective_backend_for(backend),
        )
    if torch_device == "mps":
        return DeviceInfo("mps", "mps", f"Apple MPS ({platform.machine()})", None, None, None, "gloo")
    return DeviceInfo("cpu", "cpu", _cpu_name(), _host_memory_bytes(), None, None, "gloo")


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def _host_memory_bytes() -> Optional[int]:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def versions() -> dict:
    """Versions for the `started` event; torch.version.cuda is None on ROCm builds and hip None on CUDA ones."""
    return {
        "python": platform.python_version(),
        "torch": str(torch.__version__),
        "cuda": getattr(torch.version, "cuda", None),
        "hip": getattr(torch.version, "hip", None) or None,
    }

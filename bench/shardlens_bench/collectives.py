"""Collectives benchmark: an all_reduce / all_gather / reduce_scatter size sweep over `worldSize` local
processes (torch.multiprocessing.spawn; gloo on CPU, NCCL on CUDA, RCCL on ROCm). Rank 0 writes events.

Bandwidths follow nccl-tests doc/PERFORMANCE.md: algbw = S / t with S the whole buffer (all_reduce
buffer, all_gather output, reduce_scatter input), busbw = algbw * factor, factor 2(n-1)/n for
all_reduce and (n-1)/n for all_gather and reduce_scatter.
"""

from __future__ import annotations

import os
import socket
import statistics
import sys
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
import torch.distributed as dist
import torch.multiprocessing as torch_mp

from .device import collective_backend_for, describe_device, versions
from .errors import HarnessError, format_traceback, is_out_of_memory, one_line
from .events import EventWriter
from .peaks import find_peak
from .timing import sample_durations_ms

BYTES_PER_ELEMENT = 4  # float32 buffers
PROCESS_GROUP_TIMEOUT = timedelta(minutes=5)


def bus_bandwidth_factor(op: str, world_size: int) -> float:
    """nccl-tests doc/PERFORMANCE.md: AllReduce 2(n-1)/n; AllGather and ReduceScatter (n-1)/n."""
    ring_steps = (world_size - 1) / world_size
    return 2 * ring_steps if op == "all_reduce" else ring_steps


def bandwidths_gbps(op: str, size_bytes: int, time_ms: float, world_size: int) -> Dict[str, float]:
    """The collective event's algbwGBps, busbwGBps and busbwFactor (GB = 1e9 bytes, as nccl-tests)."""
    algbw_gbps = size_bytes / (time_ms / 1e3) / 1e9
    factor = bus_bandwidth_factor(op, world_size)
    return {"algbwGBps": algbw_gbps, "busbwGBps": algbw_gbps * factor, "busbwFactor": factor}


def element_count(size_bytes: int, world_size: int) -> int:
    """float32 elements for a buffer of about `size_bytes`, divisible by the world size (at least one per rank)."""
    per_rank = max(1, size_bytes // BYTES_PER_ELEMENT // world_size)
    return per_rank * world_size


def find_free_port() -> int:
    """Bind port 0 on localhost and return the port the OS chose."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class WorkerConfig:
    """What each spawned rank needs (picklable)."""

    spec: Dict[str, Any]
    events_path: str
    port: int
    dist_backend: str  # torch.distributed backend name: "gloo" or "nccl" (RCCL registers as "nccl")
    device_backend: str  # "cuda" | "rocm" | "cpu"


def _choose_backends(spec: Dict[str, Any]) -> Tuple[str, str]:
    """(torch.distributed backend, torch device type) for the spec; raise HarnessError when impossible."""
    has_gpu = torch.cuda.is_available()
    wants_gpu = spec["device"] == "cuda" or spec["backend"] == "nccl"
    if wants_gpu and not has_gpu:
        raise HarnessError("no_gpu", f"backend {spec['backend']!r} / device {spec['device']!r} needs a CUDA or ROCm"
                                     " GPU, but this PyTorch sees none")
    if spec["backend"] == "nccl" and spec["device"] == "cpu":
        raise HarnessError("unsupported", "NCCL/RCCL work on GPU tensors only; use backend gloo for device cpu")
    dist_backend = spec["backend"] if spec["backend"] != "auto" else ("nccl" if has_gpu and spec["device"] != "cpu" else "gloo")
    device_type = "cuda" if (dist_backend == "nccl" or spec["device"] == "cuda") else "cpu"
    if device_type == "cuda" and torch.cuda.device_count() < spec["worldSize"]:
        raise HarnessError("no_gpu", f"worldSize {spec['worldSize']} needs one GPU per process, but only"
                                     f" {torch.cuda.device_count()} are visible")
    if not dist.is_available():
        raise HarnessError("unsupported", "this PyTorch build has no torch.distributed")
    return dist_backend, device_type


def run_collectives(spec: Dict[str, Any], writer: EventWriter) -> None:
    """Run a `kind: "collectives"` spec; the caller emits `done` (with rank 0's counts folded in)."""
    dist_backend, device_type = _choose_backends(spec)
    device = describe_device("cuda:0" if device_type == "cuda" else "cpu")
    library = collective_backend_for(device.backend) if dist_backend == "nccl" else "gloo"
    writer.emit("started", backend=device.backend, device=device.to_event(), versions=versions(),
                collectiveBackend=library, peak=find_peak(device.name, "fp32", device.backend).to_event(),
                totalCases=len(spec["ops"]) * len(spec["sizesBytes"]))
    config = WorkerConfig(spec, writer.path, find_free_port(), dist_backend, device.backend)
    results = torch_mp.get_context("spawn").SimpleQueue()
    torch_mp.spawn(_worker, args=(config, results), nprocs=spec["worldSize"], join=True)
    if results.empty():
        raise HarnessError("other", "rank 0 finished without reporting its results")
    writer.add_counts(*results.get())


def _make_collective(op: str, numel: int, world_size: int, config: WorkerConfig, device: str) -> Callable[[], Any]:
    """A no-argument callable running one collective on preallocated buffers."""
    chunk = numel // world_size
    full = torch.ones(numel, dtype=torch.float32, device=device)
    part = torch.ones(chunk, dtype=torch.float32, device=device)
    # The *_tensor variants avoid list copies on NCCL; gloo in 1.13 implements only the list forms.
    tensor_forms = config.dist_backend != "gloo"
    if op == "all_reduce":
        return lambda: dist.all_reduce(full)
    if op == "all_gather":
        if tensor_forms and hasattr(dist, "all_gather_into_tensor"):
            return lambda: dist.all_gather_into_tensor(full, part)
        parts = [torch.empty_like(part) for _ in range(world_size)]
        return lambda: dist.all_gather(parts, part)
    if tensor_forms and hasattr(dist, "reduce_scatter_tensor"):
        return lambda: dist.reduce_scatter_tensor(part, full)
    inputs = list(full.chunk(world_size))
    return lambda: dist.reduce_scatter(part, inputs)


def _slowest_rank_median_ms(samples_ms: List[float], device: str) -> float:
    """Per repetition keep the slowest rank's time (a collective ends when its last rank does), then the median."""
    times = torch.tensor(samples_ms, dtype=torch.float64, device=device)
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    return statistics.median(times.tolist())


def _worker(rank: int, config: WorkerConfig, results: Any) -> None:
    spec = config.spec
    world_size = spec["worldSize"]
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(config.port)
    device = "cpu"
    if config.device_backend in ("cuda", "rocm"):
        torch.cuda.set_device(rank)
        device = f"cuda:{rank}"
    dist.init_process_group(config.dist_backend, rank=rank, world_size=world_size, timeout=PROCESS_GROUP_TIMEOUT)
    writer: Optional[EventWriter] = EventWriter(config.events_path, spec["runId"]) if rank == 0 else None
    try:
        _sweep(rank, config, device, writer)
    finally:
        if writer is not None:
            results.put((writer.result_count, writer.error_count, writer.unrecoverable))
            writer.close()
        dist.destroy_process_group()


def _sweep(rank: int, config: WorkerConfig, device: str, writer: Optional[EventWriter]) -> None:
    spec = config.spec
    world_size = spec["worldSize"]
    sizes_bytes = sorted(spec["sizesBytes"])
    total = len(spec["ops"]) * len(sizes_bytes)
    done = 0
    for op in spec["ops"]:
        for position, size_bytes in enumerate(sizes_bytes):
            if writer is not None:
                writer.emit("progress", done=done, total=total, message=f"{op} {size_bytes} B on {world_size} ranks")
            done += 1
            numel = element_count(size_bytes, world_size)
            try:
                fn = _make_collective(op, numel, world_size, config, device)
                samples_ms = sample_durations_ms(fn, backend=config.device_backend, warmup=spec["warmup"],
                                                 repetitions=spec["repetitions"], before_each=dist.barrier)
                time_ms = _slowest_rank_median_ms(samples_ms, device)
            except RuntimeError as exc:
                # Raised on every rank alike (an unsupported op, or the same allocation failing), so all ranks move on.
                stop_op = _report_failure(writer, op, size_bytes, exc)
                if stop_op:
                    done += len(sizes_bytes) - position - 1  # the skipped larger sizes count as done
                    break
                continue
            if writer is not None:
                writer.emit("collective", op=op, sizeBytes=numel * BYTES_PER_ELEMENT, worldSize=world_size,
                            timeMs=time_ms, **bandwidths_gbps(op, numel * BYTES_PER_ELEMENT, time_ms, world_size))
    if writer is not None:
        writer.emit("progress", done=total, total=total, message="all collectives finished")


def _report_failure(writer: Optional[EventWriter], op: str, size_bytes: int, exc: RuntimeError) -> bool:
    """Emit the error on rank 0; return True when the op's remaining sizes should be skipped."""
    text = str(exc).lower()
    unsupported = "does not support" in text or "not supported" in text or "not implemented" in text
    oom = is_out_of_memory(exc)
    if writer is not None:
        if unsupported:
            message = f"{op} is not supported by this backend ({one_line(exc)}); skipping it"
            writer.error("unsupported", message, recoverable=True, op=op)
        else:
            writer.error("oom" if oom else "other", f"{op} of {size_bytes} B failed: {one_line(exc)}", recoverable=True, op=op)
            print(format_traceback(exc), file=sys.stderr, flush=True)
    return unsupported or oom

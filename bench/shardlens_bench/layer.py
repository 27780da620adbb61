"""Layer benchmark: imports the user's module, builds it, and times every (compiled, batch size, mode)
case by time budget, reporting timing, CUDA-graph replay, the regime, peak memory, FLOPs and roofline
metrics as `case` events."""

from __future__ import annotations

import gc
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
from torch import nn

from . import flops as flop_counting
from .budget import Budget, measure
from .device import DeviceInfo, describe_device, resolve_device, versions
from .errors import HarnessError, classify_case_error, format_traceback, one_line
from .events import EventWriter
from .graphs import graph_replay_timing, settle_compiled
from .inputs import RUN_DTYPES, build_inputs, differentiable_outputs, tensor_bytes
from .peaks import Peak, find_peak
from .regime import classify_regime
from .roofline import BYTES_MOVED_NOTE, bytes_moved, derived_metrics
from .timing import device_clock_name, l2_flush_bytes, make_l2_flush, summarize
from .user_code import construct, load_namespace

CPU_PEAK_MEMORY_NOTE = "peak memory is measured on CUDA/ROCm only (torch.cuda.max_memory_allocated)"
GPU_PEAK_MEMORY_NOTE = "torch.cuda.max_memory_allocated: parameters, inputs and activations; excludes the L2-flush buffer"


@dataclass(frozen=True)
class Case:
    compiled: bool
    batch_size: Optional[int]
    mode: str

    def key(self, dtype: str) -> dict:
        return {"batchSize": self.batch_size, "mode": self.mode, "dtype": dtype, "compiled": self.compiled}

    def label(self) -> str:
        return f"batch {self.batch_size} {self.mode} {'compiled' if self.compiled else 'eager'}"


@dataclass
class LayerRun:
    """State shared by the cases of one run."""

    spec: Dict[str, Any]
    writer: EventWriter
    device: DeviceInfo
    peak: Peak
    model: nn.Module
    compiled_model: Optional[Callable[..., Any]] = None
    flush: Optional[Callable[[], None]] = None
    flops_cache: Dict[Tuple[Optional[int], str], flop_counting.FlopCount] = field(default_factory=dict)
    budget: Budget = field(default_factory=Budget)

    @property
    def dtype(self) -> torch.dtype:
        return RUN_DTYPES[self.spec["dtype"]]


def compile_available() -> bool:
    """torch.compile exists from PyTorch 2.0."""
    return hasattr(torch, "compile")


def plan_cases(spec: Dict[str, Any], with_compiled: bool) -> List[Case]:
    """Eager cases first, then compiled; batch sizes ascending so an OOM can skip the larger ones."""
    batch_sizes = sorted(set(spec["batchSizes"])) if spec["batchSizes"] else [spec["dims"].get(spec["batchDim"])]
    flags = [False, True] if with_compiled else [False]
    return [Case(c, b, m) for c in flags for b in batch_sizes for m in spec["modes"]]


def run_layer(spec: Dict[str, Any], writer: EventWriter) -> None:
    """Run a `kind: "layer"` spec; the caller emits `done`."""
    torch_device = resolve_device(spec["device"])
    device = describe_device(torch_device)
    peak = find_peak(device.name, spec["dtype"], device.backend)
    with_compiled = spec["compile"] and compile_available()
    cases = plan_cases(spec, with_compiled)
    writer.emit("started", backend=device.backend, device=device.to_event(), versions=versions(),
                collectiveBackend=device.collective_backend, peak=peak.to_event(), totalCases=len(cases))
    if spec["compile"] and not with_compiled:
        writer.error("unsupported", f"torch.compile needs PyTorch >= 2.0 (found {torch.__version__});"
                                    " running eager only", recoverable=True)
    torch.manual_seed(0)
    model = construct(spec["constructor"], load_namespace(spec["file"], spec["workspaceRoot"]))
    try:
        model = model.to(device=torch_device, dtype=RUN_DTYPES[spec["dtype"]])
    except Exception as exc:
        kind = "oom" if classify_case_error(exc) == "oom" else "construct"
        raise HarnessError(kind, f"moving the module to {torch_device} as {spec['dtype']} failed: {one_line(exc)}") from exc
    run = LayerRun(spec, writer, device, peak, model, flush=make_l2_flush(device.backend, torch_device),
                   budget=Budget.from_spec(spec))
    if with_compiled:
        run.compiled_model = torch.compile(model)
    _run_cases(run, cases)


def _run_cases(run: LayerRun, cases: List[Case]) -> None:
    oom_batch_size: Dict[Tuple[bool, str], int] = {}
    began = time.perf_counter()
    for done, case in enumerate(cases):
        limit = oom_batch_size.get((case.compiled, case.mode))
        if limit is not None and case.batch_size is not None and case.batch_size > limit:
            run.writer.emit("progress", done=done, total=len(cases),
                            message=f"skipped {case.label()}: out of memory at batch {limit}")
            continue
        left = {} if done == 0 else {"secondsLeft": (time.perf_counter() - began) / done * (len(cases) - done)}
        run.writer.emit("progress", done=done, total=len(cases), message=f"running {case.label()}", **left)
        failed_with_oom = False
        try:
            run.writer.emit("case", **_measure(run, case))
        except Exception as exc:  # one case failing must not stop the others
            kind = exc.kind if isinstance(exc, HarnessError) else classify_case_error(exc)
            prefix = "torch.compile: " if case.compiled else ""
            run.writer.error(kind, prefix + (exc.message if isinstance(exc, HarnessError) else one_line(exc)),
                             recoverable=True, case=case.key(run.spec["dtype"]))
            print(format_traceback(exc), file=sys.stderr, flush=True)
            failed_with_oom = kind == "oom"
        if failed_with_oom:
            if case.batch_size is not None:
                oom_batch_size[(case.compiled, case.mode)] = case.batch_size
            _free_memory()
    run.writer.emit("progress", done=len(cases), total=len(cases), message="all cases finished")


def _free_memory() -> None:
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def make_step(runner: Callable[..., Any], inputs: List[torch.Tensor], mode: str) -> Callable[[], Any]:
    """The timed call of one case: a forward under no_grad, or a forward and a backward of the sum of the
    outputs (compare_do_bench.py times this same step with do_bench)."""
    if mode == "forward":
        def forward() -> Any:
            with torch.no_grad():
                return runner(*inputs)
        return forward

    def forward_backward() -> None:
        outputs = differentiable_outputs(runner(*inputs))
        if not outputs:
            raise HarnessError("unsupported", "forward_backward needs a floating-point output that requires grad;"
                                              " this module's outputs have none")
        loss = outputs[0].sum()
        for output in outputs[1:]:
            loss = loss + output.sum()
        loss.backward()
    return forward_backward


def _measure(run: LayerRun, case: Case) -> Dict[str, Any]:
    spec = run.spec
    backward = case.mode == "forward_backward"
    dims = dict(spec["dims"])
    if case.batch_size is not None:
        dims[spec["batchDim"]] = case.batch_size
    run.model.train(backward)  # forward alone is inference: eval mode, no autograd graph
    inputs = build_inputs(spec["inputs"], dims, dtype=run.dtype, device=run.device.torch_device, requires_grad=backward)
    eager_forward = make_step(run.model, inputs, "forward")
    output_bytes = tensor_bytes(eager_forward())  # eager probe: surfaces shape errors with a clear trace
    eager_step = make_step(run.model, inputs, case.mode)
    flop_count = _flops_for(run, case, eager_forward, eager_step, inputs)
    step = make_step(run.compiled_model, inputs, case.mode) if case.compiled else eager_step
    params = list(run.model.parameters())

    def before_each() -> None:
        for tensor in params + inputs:
            tensor.grad = None  # as do_bench's grad_to_none: no gradient accumulation between calls
        if run.flush is not None:
            run.flush()

    on_gpu = run.device.backend in ("cuda", "rocm")
    if on_gpu:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats(run.device.torch_device)
    compile_fields: Dict[str, Any] = {}
    if case.compiled:
        # The first call compiles: reported apart, and timing starts once no call compiles anything new.
        compile_fields["compile"] = settle_compiled(step, backend=run.device.backend, before_each=before_each).to_event()
    samples_ms, plan = measure(step, backend=run.device.backend, budget=run.budget, before_each=before_each)
    method = device_clock_name(run.device.backend)
    if run.flush is not None:
        method += ", L2 flushed (do_bench style)"
    timing = summarize(samples_ms, method, plan.warmup, plan.capped)
    peak_memory = None
    if on_gpu:
        peak_memory = max(0, torch.cuda.max_memory_allocated(run.device.torch_device) - l2_flush_bytes(run.flush))
    graph_timing, graph_note = None, "not measured for torch.compile cases; see the eager case"
    if not case.compiled and spec["cudaGraph"]:
        graph_timing, graph_note = graph_replay_timing(step, backend=run.device.backend, budget=run.budget,
                                                       tensors=params + inputs, flush=run.flush)
    elif not spec["cudaGraph"]:
        graph_note = "CUDA-graph timing was turned off in the spec"
    param_bytes = tensor_bytes(params) + tensor_bytes(list(run.model.buffers()))
    moved = bytes_moved(param_bytes, tensor_bytes(inputs), output_bytes, case.mode)
    metrics = derived_metrics(flops=flop_count.value, moved_bytes=moved, median_ms=timing.median_ms, peak=run.peak)
    regime, regime_note = classify_regime(
        eager_ms=timing.median_ms, graph_ms=graph_timing.median_ms if graph_timing else None,
        intensity=metrics["arithmeticIntensity"], ridge=run.peak.ridge_flops_per_byte)
    return {
        "case": case.key(spec["dtype"]),
        "timing": timing.to_event(),
        "graphTiming": graph_timing.to_event() if graph_timing else None,
        **({} if graph_timing else {"graphNote": graph_note}),
        "regime": regime,
        "regimeNote": regime_note,
        **compile_fields,
        "peakMemoryBytes": peak_memory,
        "peakMemoryNote": GPU_PEAK_MEMORY_NOTE if on_gpu else CPU_PEAK_MEMORY_NOTE,
        "flops": flop_count.to_event(),
        "bytesMoved": moved,
        "bytesMovedNote": BYTES_MOVED_NOTE,
        **metrics,
        "params": sum(p.numel() for p in params),
    }


def _flops_for(run: LayerRun, case: Case, eager_forward: Callable[[], Any], eager_step: Callable[[], Any],
               inputs: List[torch.Tensor]) -> flop_counting.FlopCount:
    """Counted once per (batch size, mode) on the eager module: compiling does not change the math."""
    key = (case.batch_size, case.mode)
    if key not in run.flops_cache:
        run.flops_cache[key] = flop_counting.count_flops(run.model, eager_forward, eager_step, case.mode)
        for tensor in list(run.model.parameters()) + inputs:
            tensor.grad = None
    return run.flops_cache[key]

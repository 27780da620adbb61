"""FLOP counts per case: torch.utils.flop_counter.FlopCounterMode when available (PyTorch >= 2.1), else
analytic formulas for modules built only from known layers, else null with the reason."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any, Callable, Dict, List, Optional, Tuple

import torch
from torch import nn

# Training step = forward + backward, backward ≈ 2× forward (Kaplan et al. 2020, "Scaling Laws for Neural
# Language Models", arXiv:2001.08361, §2.1).
BACKWARD_TO_FORWARD_RATIO = 2

_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
# Layers whose work is elementwise, a lookup or a reduction: negligible next to matmuls, counted as 0.
_NEGLIGIBLE = (
    nn.Sequential, nn.ModuleList, nn.ModuleDict, nn.Identity, nn.Dropout, nn.Flatten, nn.Unflatten,
    nn.ReLU, nn.GELU, nn.SiLU, nn.Tanh, nn.Sigmoid, nn.Softmax, nn.LeakyReLU, nn.Mish,
    nn.LayerNorm, nn.GroupNorm, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.Embedding,
    nn.MaxPool1d, nn.MaxPool2d, nn.AvgPool1d, nn.AvgPool2d, nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d,
)
ANALYTIC_NOTE = (
    "analytic: Linear 2*in*out*rows, Conv 2*Cout*(Cin/groups)*prod(kernel)*output positions;"
    " elementwise, norm and bias ops not counted; backward = 2x forward"
)


@dataclass
class FlopCount:
    value: Optional[int]
    source: Optional[str]  # "flop_counter" | "analytic" | None
    note: Optional[str] = None

    def to_event(self) -> dict:
        event: Dict[str, Any] = {"value": self.value, "source": self.source}
        if self.note:
            event["note"] = self.note
        return event


def flop_counter_mode() -> Optional[type]:
    """FlopCounterMode from PyTorch >= 2.1, or None."""
    try:
        from torch.utils.flop_counter import FlopCounterMode  # type: ignore[import-not-found]
    except ImportError:
        return None
    return FlopCounterMode


def count_flops(module: nn.Module, run_forward: Callable[[], Any], run_step: Callable[[], Any],
                mode: str) -> FlopCount:
    """FLOPs of one call of `run_step` (the timed callable). `run_forward` runs the forward alone."""
    counter_type = flop_counter_mode()
    if counter_type is not None:
        with counter_type(display=False) as counter:
            run_step()
        return FlopCount(int(counter.get_total_flops()), "flop_counter", "torch.utils.flop_counter (2*m*n*k per matmul)")
    forward_flops, unknown = analytic_forward_flops(module, run_forward)
    if unknown:
        names = ", ".join(sorted(unknown))
        return FlopCount(None, None, f"PyTorch {torch.__version__} has no FlopCounterMode (needs >= 2.1) and"
                                     f" {names} has no analytic formula")
    factor = 1 + BACKWARD_TO_FORWARD_RATIO if mode == "forward_backward" else 1
    return FlopCount(forward_flops * factor, "analytic", ANALYTIC_NOTE)


def analytic_forward_flops(module: nn.Module, run_forward: Callable[[], Any]) -> Tuple[int, List[str]]:
    """Run the forward once with hooks; return (FLOPs of Linear and Conv layers, unknown module class names).
    Any module type outside the known set may do matmuls in its own forward, so the count is then unusable."""
    unknown = sorted({type(m).__name__ for m in module.modules() if not isinstance(m, (nn.Linear,) + _CONVS + _NEGLIGIBLE)})
    if unknown:
        return 0, unknown
    total = [0]

    def on_forward(layer: nn.Module, inputs: Any, output: Any) -> None:
        if isinstance(layer, nn.Linear):
            rows = inputs[0].numel() // layer.in_features
            total[0] += 2 * layer.in_features * layer.out_features * rows
        elif isinstance(layer, _CONVS):
            # output.numel() = N * Cout * output positions
            total[0] += 2 * output.numel() * (layer.in_channels // layer.groups) * prod(layer.kernel_size)

    handles = [m.register_forward_hook(on_forward) for m in module.modules() if isinstance(m, (nn.Linear,) + _CONVS)]
    try:
        run_forward()
    finally:
        for handle in handles:
            handle.remove()
    return total[0], []

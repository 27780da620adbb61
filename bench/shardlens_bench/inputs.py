"""Builds input tensors from the spec's templates and measures tensors held in nested outputs."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List

import torch

RUN_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def resolve_shape(shape: List[Any], dims: Dict[str, int]) -> List[int]:
    """Replace dimension names by their sizes (the spec checker guarantees every name is known)."""
    return [dims[size] if isinstance(size, str) else int(size) for size in shape]


def build_inputs(
    templates: List[Dict[str, Any]], dims: Dict[str, int], *, dtype: torch.dtype, device: str, requires_grad: bool
) -> List[torch.Tensor]:
    """float templates: torch.randn in the run dtype (requires_grad for backward); long: randint(0, high)."""
    tensors = []
    for template in templates:
        shape = resolve_shape(template["shape"], dims)
        if template["dtype"] == "long":
            tensors.append(torch.randint(0, template["high"], shape, device=device, dtype=torch.long))
        else:
            tensors.append(torch.randn(shape, device=device, dtype=dtype, requires_grad=requires_grad))
    return tensors


def iter_tensors(value: Any) -> Iterator[torch.Tensor]:
    """Every tensor inside a (possibly nested) tuple/list/dict output."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_tensors(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from iter_tensors(item)


def tensor_bytes(value: Any) -> int:
    """Bytes of every tensor in `value` (storage views counted by their own size)."""
    return sum(tensor.numel() * tensor.element_size() for tensor in iter_tensors(value))


def differentiable_outputs(value: Any) -> List[torch.Tensor]:
    """Floating-point outputs that take part in autograd: the ones backward sums over."""
    return [t for t in iter_tensors(value) if t.is_floating_point() and t.requires_grad]

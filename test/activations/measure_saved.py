"""Measures what autograd saves for backward during one training forward pass.

For each case (JSON list on stdin: module file or torchvision builder, input shape, labels),
builds the model in train mode, runs forward and the loss under
torch.autograd.graph.saved_tensors_hooks, and sums the bytes of the unique storages saved,
leaving out parameters and buffers (model state, not activations). Prints one JSON object
per case. Used by test/unit/forward/saved-tensors.test.ts; needs only PyTorch (CPU).
"""
import importlib
import importlib.util
import json
import sys

import torch
import torch.nn.functional as F


def build(case):
    if "builder" in case:
        module_name, _, attr = case["builder"].rpartition(".")
        return getattr(importlib.import_module(module_name), attr)(**case.get("kwargs", {}))
    spec = importlib.util.spec_from_file_location("case_module", case["file"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, case["class"])()


def storage_key(t):
    s = t.storage()
    return s.data_ptr(), s.size() * t.element_size()


def measure(case):
    torch.manual_seed(0)
    model = build(case)
    model.train()
    state = {storage_key(p)[0] for p in model.parameters()} | {storage_key(b)[0] for b in model.buffers()}
    shape = case["input"]
    if case.get("tokens"):
        x = torch.randint(0, case["tokens"], shape)
    else:
        x = torch.randn(*shape)
    saved = {}

    def pack(t):
        ptr, nbytes = storage_key(t)
        if ptr not in state and nbytes > 0:
            saved[ptr] = max(saved.get(ptr, 0), nbytes)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if case.get("labels"):
            out = model(x, **{case["labels"]: torch.randint(0, case["tokens"], shape)})
        else:
            out = model(x)
        first = out[0] if isinstance(out, (tuple, list)) else out
        loss = out[1] if isinstance(out, (tuple, list)) and out[1] is not None else None
        if loss is None:
            loss = F.cross_entropy(first.reshape(-1, first.shape[-1]), torch.zeros(first.reshape(-1, first.shape[-1]).shape[0], dtype=torch.long))
    loss.backward()
    return {"name": case["name"], "savedBytes": sum(saved.values()), "tensors": len(saved)}


def main():
    cases = json.load(sys.stdin)
    for case in cases:
        try:
            print(json.dumps(measure(case)), flush=True)
        except Exception as error:  # report and go on: one case must not hide the others
            print(json.dumps({"name": case["name"], "error": f"{type(error).__name__}: {error}"}), flush=True)


if __name__ == "__main__":
    main()

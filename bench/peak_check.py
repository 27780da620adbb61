"""GPU peak memory of real training steps, for the analyzer's peak estimate (docs/estimates.md, "Peak on a GPU").

    python bench/peak_check.py            # needs a CUDA GPU and torchvision; prints one JSON line per case

Each case builds a torchvision model, wraps it in DistributedDataParallel on one rank (NCCL), and runs three
steps of AdamW (zero_grad(set_to_none=True), forward under autocast when asked, cross-entropy, backward, step) on
random images. The figure is torch.cuda.max_memory_allocated() over the third step, less what was allocated
before the model was built. The input batch and labels are counted in it.
"""

import json
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torchvision
from torch.nn.parallel import DistributedDataParallel

CASES = [
    ("resnet50", torchvision.models.resnet50),
    ("vit_b_16", torchvision.models.vit_b_16),
]
PRECISIONS = ("fp32", "amp-bf16")
BATCH = 64
MIB = 2**20


def peak_of(make, precision: str) -> dict:
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    model = DistributedDataParallel(make().cuda(), device_ids=[0])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    images = torch.randn(BATCH, 3, 224, 224, device="cuda")
    labels = torch.randint(0, 1000, (BATCH,), device="cuda")
    peaks = []
    for _ in range(3):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=precision == "amp-bf16"):
            loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
        peaks.append((torch.cuda.max_memory_allocated() - base) / MIB)
    params = sum(p.numel() for p in model.parameters())
    del model, optimizer, images, labels
    return {"params": params, "peakMiBPerStep": [round(p, 1) for p in peaks]}


def main() -> int:
    if not torch.cuda.is_available():
        print("peak_check.py needs a CUDA GPU", file=sys.stderr)
        return 2
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    dist.init_process_group("nccl", rank=0, world_size=1)
    print(json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                      "torchvision": torchvision.__version__, "batch": BATCH}), flush=True)
    for name, make in CASES:
        for precision in PRECISIONS:
            print(json.dumps({"model": name, "precision": precision, **peak_of(make, precision)}), flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

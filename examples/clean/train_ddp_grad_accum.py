# Data-parallel training of the GPT in model.py with DistributedDataParallel, launched by
# torchrun: DistributedSampler reshuffled every epoch, gradient accumulation that skips
# the all-reduce on all but the last micro-batch (`no_sync()`), fp16 autocast with a
# GradScaler, rank-0 logging every N steps and checkpoints.
# Run: torchrun --standalone --nproc_per_node=8 train_ddp_grad_accum.py
import contextlib
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data import TokenWindows, init_distributed
from model import GPT, GPTConfig

EPOCHS = 4
MICRO_BATCH = 8
ACCUM_STEPS = 8
LOG_EVERY = 20
SAVE_EVERY = 1000
LEARNING_RATE = 3e-4
DATA_PATH = os.environ.get("DATA_PATH", "data/train.bin")
OUT_DIR = os.environ.get("OUT_DIR", "checkpoints")


def main() -> None:
    rank, local_rank, world_size, device = init_distributed()
    is_main = rank == 0

    config = GPTConfig()
    model = GPT(config).to(device)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.1, fused=True)
    scaler = torch.amp.GradScaler("cuda")

    dataset = TokenWindows(DATA_PATH, config.block_size)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, drop_last=True)
    loader = DataLoader(
        dataset, batch_size=MICRO_BATCH, sampler=sampler, num_workers=4, pin_memory=True, drop_last=True
    )

    step = 0
    running_loss = torch.zeros((), device=device)
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        model.train()
        for micro_step, (x, y) in enumerate(loader):
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            last_micro_step = (micro_step + 1) % ACCUM_STEPS == 0
            # Gradients are all-reduced only on the micro-batch that ends an accumulation.
            sync_context = contextlib.nullcontext() if last_micro_step else model.no_sync()
            with sync_context:
                with torch.autocast("cuda", dtype=torch.float16):
                    _, loss = model(x, y)
                    loss = loss / ACCUM_STEPS
                scaler.scale(loss).backward()
            running_loss += loss.detach()
            if not last_micro_step:
                continue

            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            step += 1

            if step % LOG_EVERY == 0:
                dist.all_reduce(running_loss, op=dist.ReduceOp.AVG)
                if is_main:
                    print(f"epoch {epoch} step {step}: loss {running_loss.item() / LOG_EVERY:.4f}")
                running_loss.zero_()
            if step % SAVE_EVERY == 0 and is_main:
                state = {
                    "model": model.module.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scaler": scaler.state_dict(),
                    "step": step,
                    "epoch": epoch,
                }
                torch.save(state, os.path.join(OUT_DIR, f"step{step:07d}.pt"))

    dist.destroy_process_group()


if __name__ == "__main__":
    main()

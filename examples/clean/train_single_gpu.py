# Pre-trains the GPT in model.py on one GPU: AdamW, bf16 autocast, cosine learning rate,
# a loss that stays on the GPU between log lines, and a checkpoint every few thousand
# steps. Run: python train_single_gpu.py --data data/train.bin
import argparse
import math
import os
import time

import torch
from torch.utils.data import DataLoader

from data import TokenWindows
from model import GPT, GPTConfig


def lr_at(step: int, args) -> float:
    if step < args.warmup_steps:
        return args.lr * (step + 1) / args.warmup_steps
    progress = (step - args.warmup_steps) / max(1, args.max_steps - args.warmup_steps)
    return args.min_lr + 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0))) * (args.lr - args.min_lr)


def save_checkpoint(path: str, model, optimizer, step: int, config: GPTConfig) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step, "config": config}
    torch.save(state, path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/train.bin")
    parser.add_argument("--out-dir", default="checkpoints")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=6e-4)
    parser.add_argument("--min-lr", type=float, default=6e-5)
    parser.add_argument("--warmup-steps", type=int, default=2000)
    parser.add_argument("--max-steps", type=int, default=100_000)
    parser.add_argument("--log-every", type=int, default=50)
    parser.add_argument("--save-every", type=int, default=5000)
    args = parser.parse_args()

    torch.manual_seed(1337)
    torch.backends.cuda.matmul.allow_tf32 = True
    device = torch.device("cuda")

    config = GPTConfig()
    model = GPT(config).to(device)
    optimizer = model.configure_optimizer(weight_decay=0.1, learning_rate=args.lr, betas=(0.9, 0.95), fused=True)
    dataset = TokenWindows(args.data, config.block_size)
    loader = DataLoader(
        dataset,
        batch_size=args.batch_size,
        shuffle=True,
        num_workers=4,
        pin_memory=True,
        drop_last=True,
        persistent_workers=True,
    )

    model.train()
    step = 0
    running_loss = torch.zeros((), device=device)
    last_log = time.perf_counter()
    while step < args.max_steps:
        for x, y in loader:
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step, args)

            with torch.autocast("cuda", dtype=torch.bfloat16):
                _, loss = model(x, y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            running_loss += loss.detach()
            step += 1

            if step % args.log_every == 0:
                # One sync per log interval, not one per step.
                mean_loss = running_loss.item() / args.log_every
                running_loss.zero_()
                now = time.perf_counter()
                ms_per_step = 1000 * (now - last_log) / args.log_every
                last_log = now
                print(f"step {step:6d} | loss {mean_loss:.4f} | lr {lr_at(step, args):.2e} | {ms_per_step:.0f} ms/step")
            if step % args.save_every == 0:
                save_checkpoint(os.path.join(args.out_dir, f"step{step:07d}.pt"), model, optimizer, step, config)
            if step >= args.max_steps:
                break

    save_checkpoint(os.path.join(args.out_dir, "final.pt"), model, optimizer, step, config)


if __name__ == "__main__":
    main()

# Distributed data-parallel training of the GPT in model.py under torchrun, with two
# mistakes that cost a lot at scale and raise no error: gradient accumulation that
# all-reduces on every micro-batch instead of once per optimizer step, and a
# DistributedSampler that is never told the epoch, so every epoch replays the same order.
# Each is marked with `# expect:`.
# Run: torchrun --standalone --nproc_per_node=8 train_ddp.py
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data import TokenFile
from model import GPT, GPTConfig

EPOCHS = 4
MICRO_BATCH = 4
ACCUM_STEPS = 16
LOG_EVERY = 10


def main() -> None:
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    config = GPTConfig()
    model = DDP(GPT(config).to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)

    dataset = TokenFile("data/train.bin", config.block_size)
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=MICRO_BATCH, sampler=sampler, num_workers=4, pin_memory=True)

    step = 0
    running_loss = torch.zeros((), device=device)
    for epoch in range(EPOCHS):  # expect: SL403 warning
        model.train()
        for micro_step, (x, y) in enumerate(loader):
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                _, loss = model(x, y)
            # Every backward all-reduces the full gradients, ACCUM_STEPS times per step.
            (loss / ACCUM_STEPS).backward()  # expect: SL402 warning
            running_loss += loss.detach() / ACCUM_STEPS
            if (micro_step + 1) % ACCUM_STEPS == 0:
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                step += 1
                if step % LOG_EVERY == 0:
                    if rank == 0:
                        # A deliberate sync once per log interval: reported as information only.
                        # expect: SL101 information
                        print(f"epoch {epoch} step {step}: loss {running_loss.item() / LOG_EVERY:.4f}")
                    running_loss.zero_()

        if rank == 0:
            torch.save(model.module.state_dict(), f"epoch{epoch}.pt")

    dist.destroy_process_group()


if __name__ == "__main__":
    main()

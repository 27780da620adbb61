# Fully sharded data-parallel training of the GPT in model.py: FSDP FULL_SHARD with bf16
# mixed precision, one FSDP unit per transformer block, non-reentrant activation
# checkpointing applied to the blocks, a DistributedSampler reshuffled every epoch, and
# sharded checkpoints written with torch.distributed.checkpoint (each rank saves its shard).
# Run: torchrun --nnodes=2 --nproc_per_node=8 train_fsdp.py
import functools
import os

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    CheckpointImpl,
    apply_activation_checkpointing,
    checkpoint_wrapper,
)
from torch.distributed.checkpoint.state_dict import get_state_dict
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import MixedPrecision, ShardingStrategy
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from data import TokenWindows, init_distributed
from model import GPT, Block, GPTConfig

EPOCHS = 2
BATCH_SIZE = 4
LOG_EVERY = 10
SAVE_EVERY = 500
DATA_PATH = os.environ.get("DATA_PATH", "data/train.bin")
CKPT_DIR = os.environ.get("CKPT_DIR", "checkpoints/fsdp")


def main() -> None:
    rank, local_rank, _, device = init_distributed()

    # FSDP's wrapper checkpoints the blocks here, so the model's own loop does not.
    config = GPTConfig(n_layer=48, n_head=25, n_embd=1600, activation_checkpointing=False)
    model = GPT(config)
    bf16 = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16, buffer_dtype=torch.bfloat16)
    model = FSDP(
        model,
        auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block}),
        sharding_strategy=ShardingStrategy.FULL_SHARD,
        mixed_precision=bf16,
        device_id=device,
        use_orig_params=True,
    )
    apply_activation_checkpointing(
        model,
        checkpoint_wrapper_fn=functools.partial(checkpoint_wrapper, checkpoint_impl=CheckpointImpl.NO_REENTRANT),
        check_fn=lambda module: isinstance(module, Block),
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4, betas=(0.9, 0.95), weight_decay=0.1)

    dataset = TokenWindows(DATA_PATH, config.block_size)
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler, num_workers=4, pin_memory=True)

    step = 0
    running_loss = torch.zeros((), device=device)
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            _, loss = model(x, y)
            loss.backward()
            model.clip_grad_norm_(1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            running_loss += loss.detach()
            step += 1

            if step % LOG_EVERY == 0:
                dist.all_reduce(running_loss, op=dist.ReduceOp.AVG)
                if rank == 0:
                    print(f"epoch {epoch} step {step}: loss {running_loss.item() / LOG_EVERY:.4f}")
                running_loss.zero_()
            if step % SAVE_EVERY == 0:
                model_state, optim_state = get_state_dict(model, optimizer)
                state = {"model": model_state, "optimizer": optim_state, "step": step}
                dcp.save(state, checkpoint_id=os.path.join(CKPT_DIR, f"step{step:07d}"))

    dist.destroy_process_group()


if __name__ == "__main__":
    main()

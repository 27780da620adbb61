# The data and process-group setup shared by the training scripts in this folder: windows
# of `block_size + 1` tokens from a flat uint16 token file, and torchrun's environment.
import os

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import Dataset


class TokenWindows(Dataset):
    """Consecutive windows of `block_size + 1` tokens: inputs and next-token targets."""

    def __init__(self, path: str, block_size: int):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.block_size = block_size

    def __len__(self) -> int:
        return len(self.tokens) // self.block_size - 1

    def __getitem__(self, i: int):
        start = i * self.block_size
        chunk = torch.from_numpy(self.tokens[start : start + self.block_size + 1].astype(np.int64))
        return chunk[:-1], chunk[1:]


def init_distributed():
    """Joins the NCCL process group torchrun set up; returns (rank, local_rank, world_size, device)."""
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return dist.get_rank(), local_rank, dist.get_world_size(), torch.device("cuda", local_rank)

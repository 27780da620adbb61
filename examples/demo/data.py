# Token data for the demo scripts: a flat uint16 token file read as (input, target) pairs.
import numpy as np
import torch
from torch.utils.data import Dataset


class TokenFile(Dataset):
    """Every `block_size` tokens of the file, paired with the same window shifted by one."""

    def __init__(self, path: str, block_size: int):
        self.data = np.fromfile(path, dtype=np.uint16)
        self.block_size = block_size

    def __len__(self) -> int:
        return (len(self.data) - 1) // self.block_size

    def __getitem__(self, index: int):
        offset = index * self.block_size
        window = self.data[offset : offset + self.block_size + 1].astype(np.int64)
        return torch.from_numpy(window[:-1]), torch.from_numpy(window[1:])

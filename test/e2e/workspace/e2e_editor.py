# The editor scenarios' training loop: SL101 (.item() every step), SL302 (checkpoint without
# use_reentrant=) and the deprecated torch.cuda.amp spellings of SL504.
import torch
from torch.utils.checkpoint import checkpoint


def train(model, block, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        with torch.cuda.amp.autocast(dtype=torch.float16):
            h = checkpoint(block, x)
            loss = model(h, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        print(loss.item())

# Fine-tunes the GPT in model.py on the GPUs of one machine, the way many first training
# scripts look: it works, but every step stalls on the host, fp16 gradients underflow, and
# DataParallel funnels everything through GPU 0. Each planted mistake is marked with an
# `# expect:` comment; run `shardlens check examples/demo` to see them all.
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import TokenFile
from model import GPT, GPTConfig

EPOCHS = 3
BATCH_SIZE = 8
LEARNING_RATE = 1e-4


def main() -> None:
    device = torch.device("cuda")
    config = GPTConfig()
    model = GPT(config).to(device)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)  # expect: SL401 warning
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.1)

    dataset = TokenFile("data/train.bin", config.block_size)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True)  # expect: SL501 information

    best_loss = math.inf
    total_loss = 0.0
    history = []
    model.train()
    for epoch in range(EPOCHS):
        for step, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            with torch.cuda.amp.autocast(dtype=torch.float16):  # expect: SL502 warning, SL504 information
                _, loss = model(x, y)
            loss = loss.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

            total_loss += loss  # expect: SL304 warning
            history.append(float(loss))  # expect: SL103 warning
            print(f"epoch {epoch} step {step}: loss {loss.item():.4f}")  # expect: SL101 warning
            print("loss tensor:", loss)  # expect: SL104 warning
            if loss < best_loss:  # expect: SL105 warning
                best_loss = loss.detach()
                torch.save(model.state_dict(), "best.pt")

        print(f"epoch {epoch}: mean loss {total_loss / len(loader)}")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, f"epoch{epoch}.pt")


if __name__ == "__main__":
    main()

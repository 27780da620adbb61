# End-to-end fixture: a small training script with one host-device sync in the hot loop
# (SL101), one .view() after a transpose (SL201) and an nn.Module class for hover and
# benchmark scenarios. Scenarios find their lines by text, not by number.
import torch
import torch.nn as nn


class TinyMLP(nn.Module):
    def __init__(self, d_model: int = 256, hidden: int = 1024):
        super().__init__()
        self.fc1 = nn.Linear(d_model, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, d_model)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def flatten_heads(batch: int = 4):
    # (batch, heads, seq, dim); merging heads and dim after a transpose cannot be a view
    x = torch.randn(batch, 8, 16, 32)
    y = x.transpose(1, 2)
    return y.view(batch, 16, -1)


def train(loader, steps: int = 100):
    device = torch.device("cuda")
    model = TinyMLP().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    total = 0.0
    for step, (inputs, targets) in enumerate(loader):
        inputs = inputs.to(device)
        targets = targets.to(device)
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total

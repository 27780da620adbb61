# End-to-end fixture: a second training script, opened after the broken and the 5 MB files
# to show that diagnostics still arrive for other files.
import torch


def train_epoch(model, loader, optimizer):
    model.cuda()
    losses = []
    for batch in loader:
        batch = batch.cuda()
        loss = model(batch).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses

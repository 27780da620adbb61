# End-to-end fixture: a second training script, opened after the broken and huge files to
# show that diagnostics still arrive for other files.
import torch


def evaluate_then_train(model, loader, optimizer):
    model.cuda()
    seen = []
    for batch in loader:
        batch = batch.cuda()
        loss = model(batch).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        seen.append(loss.item())
    return seen

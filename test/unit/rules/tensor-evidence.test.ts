// Tensor facts have a strength: a sync on a value that only a loader's name suggests is a
// tensor is information, and its detail says why; once the code uses the loader's elements
// as tensors (a module input, `.backward()`), the same sync warns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSource } from '../../helpers/analyze';

const step = (body: string, extra = '') => `import torch
${extra}

def train(model, opt, some_loader):
    for x, y in some_loader:
${body}
        loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(y.sum().item())
`;

async function itemFinding(source: string) {
  const { findings } = await analyzeSource(source, {});
  const found = findings.filter((f) => f.code === 'SL101');
  assert.equal(found.length, 1, JSON.stringify(findings.map((f) => f.code)));
  return found[0];
}

test('a loop over a parameter named like a loader, no evidence: information, and the detail names the loader', async () => {
  const finding = await itemFinding(step('        pass'));
  assert.equal(finding.severity, 'information');
  assert.equal(finding.role, 'hot');
  assert.match(finding.detail ?? '', /Only the name `some_loader` suggests that `y.sum\(\)` is a tensor/);
  assert.match(finding.detail ?? '', /information, not a warning/);
});

test('an element passed to a module instance call is evidence: the sync warns', async () => {
  const source = step('        embed(x)', 'embed = torch.nn.Embedding(10, 4)');
  const finding = await itemFinding(source);
  assert.equal(finding.severity, 'warning');
  assert.doesNotMatch(finding.detail ?? '', /Only the name/);
});

test('an element used through `.backward()` is evidence: the sync warns', async () => {
  const finding = await itemFinding(step('        (x * 2).sum().backward()'));
  assert.equal(finding.severity, 'warning');
});

test('a value computed by torch from the element is strong on its own', async () => {
  const source = step('        pass').replace('print(y.sum().item())', 'print(torch.sum(y).item())');
  const finding = await itemFinding(source);
  assert.equal(finding.severity, 'warning');
});

test('a loader attribute built later in the class is strong, though the first round guessed it from its name', async () => {
  const source = `import torch
from torch.utils.data import DataLoader

class Trainer:
    def fit(self):
        for x, y in self.train_loader:
            loss = self.model(x, y)
            loss.backward()
            self.opt.step()
            self.opt.zero_grad()
            print(y.sum().item())

    def setup(self, data):
        self.train_loader = DataLoader(data, batch_size=8)
`;
  const finding = await itemFinding(source);
  assert.equal(finding.severity, 'warning');
});

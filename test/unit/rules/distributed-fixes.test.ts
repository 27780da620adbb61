// Quick fixes of the distributed (SL4xx) rules: apply the fix's edits, re-analyse, and check
// the finding is gone and the text is what a person would have written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSource } from '../../helpers/analyze';
import { applyEdits } from '../../helpers/apply-edits';

const SAMPLER_SCRIPT = `import torch
from torch.utils.data import DataLoader, DistributedSampler


def fit(model, optimizer, dataset, epochs):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    for epoch in range(epochs):
        # one pass over the shard
        for x, y in loader:
            loss = model(x, y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
`;

test('SL403 fix inserts sampler.set_epoch(epoch) at the top of the epoch loop', async () => {
  const before = await analyzeSource(SAMPLER_SCRIPT);
  const finding = before.findings.find((f) => f.code === 'SL403');
  assert.ok(finding, 'SL403 fires on the unfixed script');
  assert.equal(finding.range.start.line, 7);
  assert.equal(finding.fixes.length, 1);
  const fixed = applyEdits(SAMPLER_SCRIPT, finding.fixes[0].edits);
  assert.match(fixed, /# one pass over the shard\n {8}sampler\.set_epoch\(epoch\)\n {8}for x, y in loader:/);
  const after = await analyzeSource(fixed);
  assert.deepEqual(
    after.findings.filter((f) => f.code === 'SL403'),
    [],
  );
  assert.equal(after.model?.hasSyntaxError, false);
});

test('SL403 offers no fix when the loop variable is not a plain name', async () => {
  const text = SAMPLER_SCRIPT.replace('for epoch in range(epochs):', 'for _ in range(epochs):');
  const { findings } = await analyzeSource(text);
  const finding = findings.find((f) => f.code === 'SL403');
  assert.ok(finding);
  assert.deepEqual(finding.fixes, []);
});

test('SL402 stays silent once the non-final micro-batches run under no_sync()', async () => {
  const accumulate = `import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def fit(model, optimizer, batches, accum):
    model = DDP(model, device_ids=[0])
    for chunks in batches:
        for i in range(accum):
            loss = model(chunks[i]).mean()
            loss.backward()
        optimizer.step()
`;
  const flagged = await analyzeSource(accumulate);
  assert.deepEqual(
    flagged.findings.filter((f) => f.code === 'SL402').map((f) => f.range.start.line),
    [9],
  );
  const synced = accumulate.replace(
    '            loss.backward()',
    '            with model.no_sync() if i < accum - 1 else contextlib.nullcontext():\n                loss.backward()',
  );
  const quiet = await analyzeSource(synced);
  assert.deepEqual(
    quiet.findings.filter((f) => f.code === 'SL402'),
    [],
  );
});

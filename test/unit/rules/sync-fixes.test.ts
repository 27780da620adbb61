// SL1xx quick fixes: apply each fix's edits to the text, re-analyse, and check the finding is
// gone and the file still parses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSource } from '../../helpers/analyze';
import { applyEdits } from '../../helpers/apply-edits';

const loop = (body: string, loader = '') =>
  [
    'import torch',
    'from torch.utils.data import DataLoader',
    '',
    'def train(model, dataset, optimizer, device):',
    `    loader = DataLoader(dataset, batch_size=8${loader})`,
    '    for x, y in loader:',
    `        ${body}`,
    '        loss = model(x, y)',
    '        loss.backward()',
    '        optimizer.step()',
    '',
  ].join('\n');

async function fixAndRecheck(text: string, code: string): Promise<string> {
  const before = await analyzeSource(text);
  const finding = before.findings.find((f) => f.code === code);
  assert.ok(finding, `${code} expected before the fix`);
  assert.equal(finding.fixes.length, 1, `${code} offers one fix`);
  const fixed = applyEdits(text, finding.fixes[0].edits);
  const after = await analyzeSource(fixed);
  assert.equal(after.model?.hasSyntaxError, false, `fixed text parses:\n${fixed}`);
  assert.deepEqual(
    after.findings.filter((f) => f.code === code).map((f) => f.message),
    [],
  );
  return fixed;
}

test('SL108 fix: torch.tensor(0.0, device=...) becomes torch.full((), 0.0, device=...)', async () => {
  const fixed = await fixAndRecheck(loop('zero = torch.tensor(0.0, device=device)'), 'SL108');
  assert.match(fixed, /zero = torch\.full\(\(\), 0\.0, device=device\)/);
});

test('SL108 offers no fix for a list or a Python variable (dtype could change)', async () => {
  const result = await analyzeSource(loop('w = torch.tensor([1.0, 2.0], device=device)'));
  const finding = result.findings.find((f) => f.code === 'SL108');
  assert.ok(finding);
  assert.equal(finding.fixes.length, 0);
});

test('SL109 fix: a blocking copy from a pinned loader gains non_blocking=True', async () => {
  const fixed = await fixAndRecheck(loop('x = x.to(device)', ', pin_memory=True'), 'SL109');
  assert.match(fixed, /x = x\.to\(device, non_blocking=True\)/);
});

test('SL109 fix: .cuda() from a pinned loader gains non_blocking=True', async () => {
  const fixed = await fixAndRecheck(loop('x = x.cuda()', ', pin_memory=True'), 'SL109');
  assert.match(fixed, /x = x\.cuda\(non_blocking=True\)/);
});

test('SL109 fix: non_blocking from an unpinned loader pins the loader', async () => {
  const fixed = await fixAndRecheck(loop('x = x.to(device, non_blocking=True)'), 'SL109');
  assert.match(fixed, /DataLoader\(dataset, batch_size=8, pin_memory=True\)/);
});

test('SL109 fix: pin_memory=False is turned to True', async () => {
  const fixed = await fixAndRecheck(
    loop('x = x.to(device, non_blocking=True)', ', pin_memory=False'),
    'SL109',
  );
  assert.match(fixed, /pin_memory=True\)/);
});

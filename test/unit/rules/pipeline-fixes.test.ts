// Quick fixes of the input pipeline and precision (SL5xx) rules: apply the edits, re-analyse,
// and check the finding is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSource } from '../../helpers/analyze';
import { applyEdits } from '../../helpers/apply-edits';

const LOADER_SCRIPT = `import torch
from torch.utils.data import DataLoader


def fit(model, optimizer, dataset):
    loader = DataLoader(
        dataset,
        batch_size=64,
        num_workers=4,
    )
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = model(x, y)
        loss.backward()
        optimizer.step()
`;

test('SL501 fix adds pin_memory=True and the finding goes away', async () => {
  const before = await analyzeSource(LOADER_SCRIPT);
  const finding = before.findings.find((f) => f.code === 'SL501');
  assert.ok(finding, 'SL501 fires without pin_memory');
  assert.equal(finding.severity, 'information');
  const fixed = applyEdits(LOADER_SCRIPT, finding.fixes[0].edits);
  assert.match(fixed, /num_workers=4, pin_memory=True,\n {4}\)/);
  const after = await analyzeSource(fixed);
  assert.equal(after.model?.hasSyntaxError, false);
  assert.deepEqual(
    after.findings.filter((f) => f.code === 'SL501'),
    [],
  );
});

test('SL501 has no fix when pin_memory=False was chosen explicitly', async () => {
  const text = LOADER_SCRIPT.replace('num_workers=4,', 'num_workers=4, pin_memory=False,');
  const finding = (await analyzeSource(text)).findings.find((f) => f.code === 'SL501');
  assert.ok(finding);
  assert.deepEqual(finding.fixes, []);
});

const AMP_SCRIPT = `import torch


def fit(model, optimizer, loader):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        with torch.cuda.amp.autocast(dtype=torch.float16, cache_enabled=False):
            loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
`;

test('SL504 fixes rewrite torch.cuda.amp calls to torch.amp with "cuda" and keep the arguments', async () => {
  const before = await analyzeSource(AMP_SCRIPT);
  const findings = before.findings.filter((f) => f.code === 'SL504');
  assert.equal(findings.length, 2);
  let fixed = AMP_SCRIPT;
  // Apply one fix at a time, re-analysing between them, as an editor would.
  for (let round = 0; round < 2; round++) {
    const next = (await analyzeSource(fixed)).findings.find((f) => f.code === 'SL504');
    assert.ok(next?.fixes[0]);
    fixed = applyEdits(fixed, next.fixes[0].edits);
  }
  assert.match(fixed, /scaler = torch\.amp\.GradScaler\("cuda"\)/);
  assert.match(fixed, /with torch\.amp\.autocast\("cuda", dtype=torch\.float16, cache_enabled=False\):/);
  const after = await analyzeSource(fixed);
  assert.deepEqual(
    after.findings.filter((f) => f.code === 'SL504'),
    [],
  );
});

test('SL504 offers no fix when positional arguments would change meaning', async () => {
  const text = AMP_SCRIPT.replace(
    'torch.cuda.amp.autocast(dtype=torch.float16, cache_enabled=False)',
    'torch.cuda.amp.autocast(True)',
  );
  const finding = (await analyzeSource(text)).findings.find(
    (f) => f.code === 'SL504' && f.range.start.line === 6,
  );
  assert.ok(finding);
  assert.deepEqual(finding.fixes, []);
});

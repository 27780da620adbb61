// Quick fixes of the memory rules (SL301 checkpoint the block call, SL302 use_reentrant,
// SL303 use_cache=False, SL304/SL305 detach): applying each removes the finding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSource } from '../../helpers/analyze';
import { applyEdits } from '../../helpers/apply-edits';

async function findings(text: string, code: string) {
  const analysis = await analyzeSource(text, { select: [code] });
  assert.deepEqual(analysis.failures, []);
  return analysis.findings.filter((f) => f.code === code);
}

async function fixRemoves(input: { code: string; text: string; contains: string }): Promise<void> {
  const [finding] = await findings(input.text, input.code);
  assert.ok(finding, `${input.code} fires before the fix`);
  assert.ok(finding.fixes.length > 0, `${input.code} offers a fix`);
  const fixed = applyEdits(input.text, finding.fixes[0].edits);
  assert.ok(fixed.includes(input.contains), fixed);
  assert.deepEqual(
    await findings(fixed, input.code),
    [],
    `${input.code} still fires after its fix:\n${fixed}`,
  );
}

const trainLoop = (accumulate: string) =>
  [
    'import torch',
    'import torch.nn.functional as F',
    '',
    '',
    'def train(model, loader, optimizer):',
    '    total = 0.0',
    '    history = []',
    '    for x, y in loader:',
    '        loss = F.cross_entropy(model(x), y)',
    '        loss.backward()',
    '        optimizer.step()',
    `        ${accumulate}`,
    '    return total, history',
    '',
  ].join('\n');

test('SL304: `total += loss` becomes `total += loss.detach()`', async () => {
  await fixRemoves({ code: 'SL304', text: trainLoop('total += loss'), contains: 'total += loss.detach()' });
  await fixRemoves({
    code: 'SL304',
    text: trainLoop('total = total + loss * 2'),
    contains: '(loss * 2).detach()',
  });
});

test('SL305: `history.append(loss)` becomes `history.append(loss.detach())`', async () => {
  await fixRemoves({
    code: 'SL305',
    text: trainLoop('history.append(loss)'),
    contains: 'history.append(loss.detach())',
  });
});

test('SL302: adds `use_reentrant=False`, also after a trailing comma', async () => {
  const text = (call: string) =>
    [
      'from torch.utils.checkpoint import checkpoint',
      '',
      '',
      'def f(block, x):',
      `    return ${call}`,
      '',
    ].join('\n');
  await fixRemoves({
    code: 'SL302',
    text: text('checkpoint(block, x)'),
    contains: 'checkpoint(block, x, use_reentrant=False)',
  });
  await fixRemoves({
    code: 'SL302',
    text: text('checkpoint(block, x,)'),
    contains: 'checkpoint(block, x, use_reentrant=False,)',
  });
});

test('SL303: `use_cache=True` becomes `use_cache=False`', async () => {
  const text = [
    'from transformers import AutoModelForCausalLM',
    '',
    'model = AutoModelForCausalLM.from_pretrained("gpt2", use_cache=True)',
    'model.gradient_checkpointing_enable()',
    '',
  ].join('\n');
  await fixRemoves({ code: 'SL303', text, contains: 'use_cache=False' });
});

test('SL301: wraps the block call in checkpoint and imports it', async () => {
  const text = [
    'import torch.nn as nn',
    '',
    '',
    'class Net(nn.Module):',
    '    def __init__(self, config):',
    '        super().__init__()',
    '        self.blocks = nn.ModuleList([nn.Linear(config.d, config.d) for _ in range(config.n_layer)])',
    '',
    '    def forward(self, x):',
    '        for block in self.blocks:',
    '            x = block(x)',
    '        return x',
    '',
  ].join('\n');
  await fixRemoves({ code: 'SL301', text, contains: 'x = checkpoint(block, x, use_reentrant=False)' });
  const [finding] = await findings(text, 'SL301');
  const fixed = applyEdits(text, finding.fixes[0].edits);
  assert.match(fixed, /^import torch\.nn as nn\nfrom torch\.utils\.checkpoint import checkpoint\n/);
  assert.deepEqual(await findings(fixed, 'SL302'), [], 'the inserted call passes use_reentrant');
});

test('SL301 offers no fix when `checkpoint` names something else in the file', async () => {
  const text = [
    'import torch',
    'import torch.nn as nn',
    '',
    'checkpoint = torch.load("ckpt.pt")',
    '',
    '',
    'class Net(nn.Module):',
    '    def __init__(self):',
    '        super().__init__()',
    '        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(16)])',
    '',
    '    def forward(self, x):',
    '        for block in self.blocks:',
    '            x = block(x)',
    '        return x',
    '',
  ].join('\n');
  const [finding] = await findings(text, 'SL301');
  assert.ok(finding);
  assert.deepEqual(finding.fixes, []);
});

// SL1xx severities follow the role: the fixture harness checks codes only, so this checks
// that logging-branch syncs are information, eval-loop syncs are hints, and hot-step syncs
// are warnings, on the framework-style fixtures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSource } from '../../helpers/analyze';
import { fixturesDir } from '../../helpers/paths';

async function severities(name: string): Promise<string[]> {
  const path = join(fixturesDir, 'rules', 'sl1', name);
  const result = await analyzeSource(readFileSync(path, 'utf8'), {}, path);
  return result.findings
    .filter((f) => f.code.startsWith('SL1'))
    .map((f) => `${f.range.start.line + 1} ${f.code} ${f.severity}`);
}

test('nanoGPT style: the eval .item() is a hint, the logging .item() is information, nothing warns', async () => {
  assert.deepEqual(await severities('nanogpt_style.py'), ['47 SL101 hint', '108 SL101 information']);
});

test('DeepSpeed style: per-step .item() warns', async () => {
  assert.deepEqual(await severities('deepspeed_style.py'), ['25 SL101 warning']);
});

test('accelerate style: logging-branch .item() is information, per-step .item() warns', async () => {
  assert.deepEqual(await severities('hf_accelerate_style.py'), ['40 SL101 information', '42 SL101 warning']);
});

test('SL107 in a log-interval branch is information; SL110 warns even in eval', async () => {
  const found = await severities('sl107_sl108.py');
  assert.ok(found.includes('45 SL107 information'), found.join('\n'));
  const copies = await severities('sl109_sl110.py');
  assert.ok(copies.includes('43 SL110 warning'), copies.join('\n'));
});

test('the role is named in the message: logging syncs say they run once per log interval', async () => {
  const path = join(fixturesDir, 'rules', 'sl1', 'nanogpt_style.py');
  const result = await analyzeSource(readFileSync(path, 'utf8'), {}, path);
  const logging = result.findings.find((f) => f.severity === 'information' && f.code === 'SL101');
  assert.match(logging?.message ?? '', /once per log interval/);
});

test('a rank-0 guard keeps the warning and says rank 0 stalls; an opt-in flag says it is off by default', async () => {
  const path = join(fixturesDir, 'rules', 'sl1', 'steps', 'guards.py');
  const result = await analyzeSource(readFileSync(path, 'utf8'), {}, path);
  const at = (line: number) =>
    result.findings.find((f) => f.range.start.line + 1 === line && f.code === 'SL101');
  const rankZero = at(36);
  assert.equal(rankZero?.severity, 'warning');
  assert.match(rankZero?.message ?? '', /every step on rank 0/);
  assert.match(rankZero?.detail ?? '', /other ranks wait/);
  const optIn = at(39);
  assert.equal(optIn?.severity, 'information');
  assert.match(optIn?.message ?? '', /opt-in `trace_grads`/);
  assert.match(optIn?.detail ?? '', /off by default/);
  const interval = at(23);
  assert.match(interval?.message ?? '', /once per log interval/);
});

/** The severities of SL107 findings on each (one-based) line of `source`. */
async function sl107SeveritiesByLine(source: string): Promise<(line: number) => string[]> {
  const result = await analyzeSource(source, {}, null);
  return (line) =>
    result.findings
      .filter((f) => f.code === 'SL107' && f.range.start.line + 1 === line)
      .map((f) => f.severity);
}

test('a counter stepped by one compared with == holds on one step: its sync is not a warning', async () => {
  const source = [
    'import torch',
    '',
    '',
    'def train(model, loader, optimizer, warmup_end):',
    '    iteration = 0',
    '    for x, y in loader:',
    '        loss = torch.nn.functional.mse_loss(model(x), y)',
    '        loss.backward()',
    '        optimizer.step()',
    '        if iteration == warmup_end + 1:',
    '            torch.cuda.synchronize()',
    '        if iteration == iteration_limit(iteration):',
    '            torch.cuda.synchronize()',
    '        iteration += 1',
    '',
  ].join('\n');
  const at = await sl107SeveritiesByLine(source);
  assert.deepEqual(at(11), ['information']);
  // The counter on both sides says nothing about how often: still every step.
  assert.deepEqual(at(13), ['warning']);
});

test("a flag's condition is read from its last assignment before the use, in the same function", async () => {
  const source = [
    'import torch',
    '',
    '',
    'def train(model, loader, optimizer, keep_going):',
    '    gate = keep_going',
    '',
    '    def every_hundred(step):',
    '        gate = step % 100 == 0',
    '        return gate',
    '',
    '    for step, (x, y) in enumerate(loader):',
    '        loss = torch.nn.functional.mse_loss(model(x), y)',
    '        loss.backward()',
    '        optimizer.step()',
    '        if gate:',
    '            torch.cuda.synchronize()',
    '        gate = step % 100 == 0',
    '        if gate:',
    '            torch.cuda.synchronize()',
    '        gate = keep_going',
    '',
  ].join('\n');
  const at = await sl107SeveritiesByLine(source);
  // Line 15 reads `gate = keep_going` (line 5): not line 8 (another function), nor line 17 (after it).
  assert.deepEqual(at(16), ['warning']);
  // Line 18 reads line 17: once per 100 steps.
  assert.deepEqual(at(19), ['information']);
});

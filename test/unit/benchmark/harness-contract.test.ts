// The contract between the Python harness and the extension: every event the real harness
// writes (Debian's PyTorch 1.13 here, where FLOPs of user modules are unknown) must pass the
// panel's validation, or results would be silently dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEventLine } from '../../../client/src/benchmark/events';
import { repoRoot, torchPython } from '../../helpers/paths';

test('every event of a real harness run is accepted by the panel', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shardlens-contract-'));
  const fixtures = join(repoRoot, 'test', 'harness', 'fixtures');
  const spec = {
    version: 1,
    kind: 'layer',
    runId: 'contract',
    workspaceRoot: fixtures,
    file: join(fixtures, 'gpt_block.py'),
    constructor: 'Block(GPTConfig())',
    inputs: [{ shape: ['B', 'T', 32], dtype: 'float' }],
    dims: { B: 2, T: 16 },
    batchDim: 'B',
    batchSizes: [1, 2],
    dtype: 'fp32',
    modes: ['forward', 'forward_backward'],
    compile: true,
    device: 'cpu',
    // By time budget (the extension's default way), kept short for CI.
    warmupMs: 5,
    measureMs: 10,
    maxCaseSeconds: 5,
  };
  writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
  const run = spawnSync(
    torchPython,
    ['-m', 'shardlens_bench', '--spec', join(dir, 'spec.json'), '--events', join(dir, 'events.jsonl')],
    { env: { ...process.env, PYTHONPATH: join(repoRoot, 'bench') }, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(run.status, 0, `the harness failed: ${run.stderr}`);
  const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
  const rejected = lines.filter((line) => !parseEventLine(line).event);
  assert.deepEqual(rejected, [], 'events the panel would drop');
  const types = lines.map((line) => JSON.parse(line).type);
  assert.ok(types.includes('started') && types.includes('case') && types.at(-1) === 'done', types.join(','));
});

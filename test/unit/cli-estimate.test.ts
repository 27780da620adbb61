// `shardlens estimate`: JSON shape (integer bytes, requested strategy first, unknown → null),
// text output, and exit code 2 for a missing file or bad flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runEstimate } from '../../server/src/cli-estimate';
import { fixturesDir, wasmDir } from '../helpers/paths';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runEstimate(argv, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    cwd: join(fixturesDir, 'models'),
    wasmDir,
  });
  return { code, out, err };
}

test('JSON: exact shape, integer bytes, requested strategy first', async () => {
  const { code, out } = await run([
    'gpt2_model.py',
    '--class',
    'GPT',
    '--format',
    'json',
    '--strategy',
    'zero3',
    '--gpus',
    '16',
  ]);
  assert.equal(code, 0);
  const json = JSON.parse(out) as { classes: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(json), ['classes']);
  assert.equal(json.classes.length, 1);
  const gpt = json.classes[0] as {
    name: string;
    line: number;
    params: { total: number; known: number; lowerBound: boolean; trainable: number; buffers: number };
    memoryBytes: Record<string, Record<string, number>>;
    comm: Record<string, { collective: string; bytesPerStep: number; secondsPerStep: number | null }>;
    assumptions: string[];
  };
  assert.deepEqual(Object.keys(gpt), [
    'name',
    'file',
    'line',
    'params',
    'memoryBytes',
    'comm',
    'assumptions',
  ]);
  assert.equal(gpt.name, 'GPT');
  assert.deepEqual(gpt.params, {
    total: 124_475_904,
    known: 124_475_904,
    lowerBound: false,
    trainable: 124_475_904,
    buffers: 0,
  });
  assert.equal(Object.keys(gpt.memoryBytes)[0], 'zero3');
  assert.equal(Object.keys(gpt.comm)[0], 'zero3');
  assert.ok(Object.keys(gpt.memoryBytes).includes('fsdp-full'));
  for (const memory of Object.values(gpt.memoryBytes)) {
    assert.deepEqual(Object.keys(memory), ['weights', 'grads', 'optimizer', 'activations', 'peak']);
    for (const bytes of Object.values(memory)) assert.ok(Number.isInteger(bytes) && bytes >= 0);
  }
  assert.ok(Number.isInteger(gpt.comm.zero3.bytesPerStep) && gpt.comm.zero3.bytesPerStep > 0);
  assert.match(gpt.comm.zero3.collective, /AllGather/);
  assert.ok(gpt.assumptions.some((a) => a.includes('16 GPUs')));
});

test('JSON: an unknown count is null with the reason in assumptions', async () => {
  const { code, out } = await run(['symbolic_model.py', '--format=json']);
  assert.equal(code, 0);
  const [tagger] = (
    JSON.parse(out) as {
      classes: { params: { total: number | null }; memoryBytes: object; assumptions: string[] }[];
    }
  ).classes;
  assert.equal(tagger.params.total, null);
  assert.deepEqual(tagger.memoryBytes, {});
  assert.ok(
    tagger.assumptions.some((a) => a.includes('nn.Linear(d, vocab)') && a.includes('vocab has no default')),
  );
});

test('text output lists every class with its strategies', async () => {
  const { code, out } = await run(['lstm_tagger.py', '--precision', 'fp32', '--batch', '4', '--seq', '128']);
  assert.equal(code, 0);
  assert.match(out, /^LSTMTagger \(.*lstm_tagger\.py:\d+\): 4\.9M params \(4,936,209\)/m);
  assert.match(out, /GRUTagger/);
  assert.match(out, /fp32/);
});

test('exit 2 with a clear message for a missing file or bad flags', async () => {
  for (const argv of [
    ['missing.py'],
    [],
    ['gpt2_model.py', '--strategy', 'zero9'],
    ['gpt2_model.py', '--precision', 'int4'],
    ['gpt2_model.py', '--gpus', 'x'],
    ['gpt2_model.py', '--gpus', '12'],
    ['gpt2_model.py', '--format', 'xml'],
    ['gpt2_model.py', '--bogus'],
    ['gpt2_model.py', '--class', 'Nope'],
  ]) {
    const { code, err, out } = await run(argv);
    assert.equal(code, 2, `${argv.join(' ')} → ${code}`);
    assert.match(err, /^shardlens estimate: \S/);
    assert.equal(out, '');
  }
});

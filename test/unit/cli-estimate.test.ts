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
    'lowerBoundCauses',
    'setup',
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
    assert.deepEqual(Object.keys(memory), [
      'weights',
      'grads',
      'optimizer',
      'activations',
      'buffers',
      'modelBuffers',
      'transient',
      'peak',
      'lowerBound',
    ]);
    assert.equal(memory.lowerBound, false);
    for (const [key, bytes] of Object.entries(memory))
      if (key !== 'lowerBound') assert.ok(Number.isInteger(bytes) && bytes >= 0, key);
  }
  assert.ok(Number.isInteger(gpt.comm.zero3.bytesPerStep) && gpt.comm.zero3.bytesPerStep > 0);
  assert.match(gpt.comm.zero3.collective, /AllGather/);
  assert.ok(gpt.assumptions.some((a) => a.includes('16 GPUs')));
});

test('JSON: an unknown count is null; memory is still given for the known part, marked as a lower bound', async () => {
  const { code, out } = await run(['symbolic_model.py', '--format=json']);
  assert.equal(code, 0);
  const [tagger] = (
    JSON.parse(out) as {
      classes: {
        params: { total: number | null; known: number; lowerBound: boolean };
        memoryBytes: Record<string, { peak: number; lowerBound: boolean }>;
        lowerBoundCauses: string[];
      }[];
    }
  ).classes;
  assert.equal(tagger.params.total, null);
  assert.equal(tagger.params.lowerBound, true);
  assert.ok(tagger.params.known > 0);
  const ddp = tagger.memoryBytes.ddp;
  assert.ok(ddp.peak > 0 && ddp.lowerBound);
  assert.ok(
    tagger.lowerBoundCauses.some(
      (a) => a.includes('nn.Linear(d, vocab)') && a.includes('`vocab` has no default'),
    ),
  );
  // One line per distinct cause.
  assert.equal(new Set(tagger.lowerBoundCauses).size, tagger.lowerBoundCauses.length);
});

test('flags win over the script: --seq over block_size, --precision, --optimizer, --checkpointing', async () => {
  const json = async (argv: string[]) =>
    (
      JSON.parse((await run(['gpt2_model.py', '--class', 'GPT', '--format', 'json', ...argv])).out) as {
        classes: {
          setup: Record<string, { value: unknown; source: string }>;
          memoryBytes: Record<
            string,
            { weights: number; grads: number; optimizer: number; activations: number; buffers: number }
          >;
          comm: Record<string, { bytesPerStep: number }>;
        }[];
      }
    ).classes[0];
  const base = await json(['--precision', 'amp-bf16', '--batch', '2', '--gpus', '1']);
  const longer = await json(['--precision', 'amp-bf16', '--batch', '2', '--gpus', '1', '--seq', '2048']);
  assert.equal(longer.setup.seq.value, 2048);
  assert.equal(longer.setup.seq.source, 'flag');
  assert.ok(longer.memoryBytes.ddp.activations > 1.9 * base.memoryBytes.ddp.activations);
  // Autocast: fp32 weights and gradients (4 + 4), Adam state 8 bytes per parameter.
  const params = 124_475_904;
  assert.equal(base.memoryBytes.ddp.weights, 4 * params);
  assert.equal(base.memoryBytes.ddp.grads, 4 * params);
  assert.equal(base.memoryBytes.ddp.optimizer, 8 * params);
  const sgd = await json(['--precision', 'amp-bf16', '--batch', '2', '--gpus', '1', '--optimizer', 'sgd']);
  assert.equal(sgd.memoryBytes.ddp.optimizer, 0);
  assert.equal(sgd.setup.optimizer.source, 'flag');
  const ckpt = await json(['--precision', 'amp-bf16', '--batch', '2', '--gpus', '1', '--checkpointing']);
  // The 12 blocks keep their inputs only; the logits and their log_softmax stay.
  assert.ok(ckpt.memoryBytes.ddp.activations < 0.7 * base.memoryBytes.ddp.activations);
  assert.equal(ckpt.setup.checkpointing.value, true);
  // Mixed bf16 (2-byte grads) moves half the all-reduce bytes of autocast (fp32 grads).
  const mixed = await json(['--precision', 'bf16', '--batch', '2', '--gpus', '8']);
  const amp = await json(['--precision', 'amp-bf16', '--batch', '2', '--gpus', '8']);
  assert.equal(amp.comm.ddp.bytesPerStep, 2 * mixed.comm.ddp.bytesPerStep);
  // One GPU: no DDP bucket buffer; eight: one gradient-sized bucket set.
  assert.equal(base.memoryBytes.ddp.buffers, 0);
  assert.equal(amp.memoryBytes.ddp.buffers, 4 * params);
});

test('--help prints the usage and every flag', async () => {
  const { code, out } = await run(['--help']);
  assert.equal(code, 0);
  for (const flag of [
    '--class',
    '--batch',
    '--seq',
    '--input-shape',
    '--precision',
    '--optimizer',
    '--checkpointing',
    '--gpus',
    '--strategy',
    '--format',
  ])
    assert.ok(out.includes(flag), flag);
  assert.match(out, /amp-bf16/);
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
    ['gpt2_model.py', '--optimizer', 'lion'],
    ['gpt2_model.py', '--input-shape', '3,224'],
    ['gpt2_model.py', '--seq', '128', '--input-shape', '3,32,32'],
  ]) {
    const { code, err, out } = await run(argv);
    assert.equal(code, 2, `${argv.join(' ')} → ${code}`);
    assert.match(err, /^shardlens estimate: \S/);
    assert.equal(out, '');
  }
});

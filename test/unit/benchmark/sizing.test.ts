// Sizing a benchmark for the machine before it runs: the interpreter probe against real
// Pythons (Debian's with torch, and the same Python started without site-packages, which has
// no torch), the CPU-sized form, and the estimated total shown under Run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { torchPython } from '../../helpers/paths';
import { describeProbe, parseProbeOutput, probeInterpreter } from '../../../client/src/benchmark/probe';
import {
  cpuSizedForm,
  defaultLayerForm,
  describeEstimate,
  estimateRun,
} from '../../../client/src/benchmark/spec';

/** A Python that cannot import torch: the real interpreter with site-packages turned off (-S). */
function pythonWithoutTorch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shardlens-notorch-'));
  const path = join(dir, 'python3');
  writeFileSync(path, `#!/bin/sh\nexec ${torchPython} -S "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

test('the probe reads torch and the device from a real interpreter', async () => {
  const probe = await probeInterpreter(torchPython);
  assert.equal(probe.status, 'ok', JSON.stringify(probe));
  if (probe.status !== 'ok') return;
  assert.match(probe.torch, /^\d+\.\d+/);
  // CI has no GPU: "auto" falls back to the CPU, which the panel says in words.
  assert.equal(probe.backend, 'cpu');
  assert.equal(probe.gpuCount, 0);
  assert.match(describeProbe(torchPython, probe), /no GPU visible.*CPU/);
});

test('a Python without torch is reported as such, with what to do', async () => {
  const python = pythonWithoutTorch();
  const probe = await probeInterpreter(python);
  assert.equal(probe.status, 'no-torch', JSON.stringify(probe));
  assert.match(describeProbe(python, probe), /PyTorch is not installed for .*Choose an interpreter/);
});

test('a missing interpreter and garbage output are errors, not crashes', async () => {
  const missing = await probeInterpreter('/no/such/python3');
  assert.equal(missing.status, 'no-python');
  assert.equal(parseProbeOutput('Traceback (most recent call last):\n  boom').status, 'error');
  assert.equal(parseProbeOutput('{"status": "ok", "torch": 1}').status, 'error');
});

test('on a CPU the sweep keeps the two smallest batch sizes', () => {
  const form = { ...defaultLayerForm(null), batchSizes: [8, 1, 4, 2] };
  assert.deepEqual(cpuSizedForm(form).batchSizes, [1, 2]);
  assert.deepEqual(cpuSizedForm({ ...form, batchSizes: [] }).batchSizes, []);
});

test('the estimate counts cases, the do_bench budget and the per-case cap', () => {
  const form = {
    ...defaultLayerForm(null),
    batchSizes: [1, 2, 4, 8],
    modes: ['forward' as const, 'forward_backward' as const],
  };
  // 8 cases on a CPU: 8 x (25 + 100) ms typical, 8 x 10 s at most.
  const cpu = estimateRun(form, false);
  assert.deepEqual(cpu, { cases: 8, typicalSeconds: 1, maxSeconds: 80 });
  assert.equal(
    describeEstimate(cpu, form),
    '8 cases: about 1 s when each call takes under 25 ms, at most 80 s (10 s cap per case), plus start-up.',
  );
  // On a GPU each eager case is timed twice (eager and CUDA-graph replay); compiled cases once.
  const gpu = estimateRun({ ...form, compile: true }, true);
  assert.deepEqual(gpu, { cases: 16, typicalSeconds: 3, maxSeconds: 240 });
  const small = estimateRun(cpuSizedForm(form), false);
  assert.equal(small.maxSeconds, 40);
});

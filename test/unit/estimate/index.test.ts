// The public entry points: estimateTraining and the formatting helpers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  estimateTraining,
  formatBytes,
  formatParams,
  formatSeconds,
  lookupModel,
  modelFromCatalog,
  resolveClusterProfile,
  STRATEGIES,
} from '../../../server/src/estimate';

const cluster = resolveClusterProfile({
  gpu: 'h100-sxm',
  gpusPerNode: 8,
  nodes: 1,
  intraNodeLink: 'nvlink4',
  interNodeLink: 'ib-ndr',
});

test('formatting: decimal GB, params, seconds', () => {
  assert.equal(formatBytes(2e9), '2.0 GB');
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatParams(124_439_808), '124.4M');
  assert.equal(formatParams(6_738_415_616), '6.7B');
  assert.equal(formatSeconds(0.01234), '12.3 ms');
  assert.equal(formatSeconds(4.5e-5), '45.0 µs');
  assert.equal(formatSeconds(null), 'n/a');
});

test('estimateTraining for Llama-2-7B on 8× H100 with ZeRO-3', () => {
  assert.ok(cluster.ok);
  const model = modelFromCatalog(lookupModel('meta-llama/Llama-2-7b-hf')!);
  const e = estimateTraining({
    model,
    strategy: 'zero3',
    precision: 'bf16',
    optimizer: 'adamw',
    cluster: cluster.profile,
    microBatch: 1,
    seq: 4096,
    activationCheckpointing: true,
  });
  const psi = 6_738_415_616;
  assert.equal(
    e.memory.weights + e.memory.grads + e.memory.optimizer,
    Math.round((2 * psi) / 8) + Math.round((2 * psi) / 8) + Math.round((12 * psi) / 8),
  );
  assert.equal(e.comm.length, 3);
  assert.ok(e.commSecondsPerStep! > 0);
  assert.equal(e.fits, true);
  assert.ok(e.deepspeed && e.deepspeed.gpuBytes > 0);
  for (const word of [
    'zero3',
    'bf16',
    'adamw',
    '8 (8× H100 SXM · NVLink 4)',
    'sequence length 4096',
    'micro-batch 1',
  ]) {
    assert.ok(
      e.assumptions.some((a) => a.includes(word)),
      word,
    );
  }
});

test('each strategy in turn: sharding lowers the peak', () => {
  assert.ok(cluster.ok);
  const rows = STRATEGIES.map((strategy) =>
    estimateTraining({
      strategy,
      model: { params: 1e9, largestLayerParams: 5e7 },
      precision: 'bf16',
      optimizer: 'adam',
      cluster: cluster.profile,
      microBatch: 1,
      seq: 1024,
    }),
  );
  assert.deepEqual(
    rows.map((r) => r.strategy),
    [...STRATEGIES],
  );
  const peak = (s: string) => rows.find((r) => r.strategy === s)!.memory.peak;
  assert.ok(peak('ddp') > peak('zero1') && peak('zero1') > peak('zero2') && peak('zero2') > peak('zero3'));
  assert.ok(rows.every((r) => r.assumptions.some((a) => a.includes('activations: unknown'))));
});

test('without a cluster: one GPU, null seconds, fits unknown', () => {
  const e = estimateTraining({
    model: { params: 1e8 },
    strategy: 'ddp',
    precision: 'fp32',
    optimizer: 'sgd',
    cluster: null,
    microBatch: 4,
    seq: 128,
  });
  assert.equal(e.fits, null);
  assert.deepEqual(e.comm, []);
  assert.equal(e.memory.weights, 4e8);
});

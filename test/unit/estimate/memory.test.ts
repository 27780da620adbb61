// Memory per GPU: the ZeRO paper's Figure 1 example, FSDP ≈ ZeRO equivalences, HYBRID_SHARD,
// optimizers and offload, and the peak model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesPerParam, estimateMemory, formatBytes, modelStateBytes } from '../../../server/src/estimate';

const psi = 7.5e9;
const common = { precision: 'bf16', optimizer: 'adam', params: psi, worldSize: 64 } as const;

test('ZeRO paper Fig. 1 (Ψ = 7.5B, N = 64): 120 / 31.4 / 16.6 / 1.9 GB', () => {
  assert.equal(formatBytes(modelStateBytes({ ...common, strategy: 'ddp' })), '120.0 GB');
  assert.equal(formatBytes(modelStateBytes({ ...common, strategy: 'zero1' })), '31.4 GB');
  assert.equal(formatBytes(modelStateBytes({ ...common, strategy: 'zero2' })), '16.6 GB');
  // 16Ψ/64 = 1.875 GB: the paper rounds it to 1.9.
  assert.equal(modelStateBytes({ ...common, strategy: 'zero3' }), 1_875_000_000);
  assert.equal(formatBytes(modelStateBytes({ ...common, strategy: 'zero3' })), '1.9 GB');
});

test('mixed-precision Adam is 2 + 2 + 12 bytes per parameter (K = 12)', () => {
  assert.deepEqual(bytesPerParam({ precision: 'bf16', optimizer: 'adamw', params: 1 }), {
    weights: 2,
    grads: 2,
    optimizer: 12,
  });
  assert.deepEqual(bytesPerParam({ precision: 'fp32', optimizer: 'adam', params: 1 }), {
    weights: 4,
    grads: 4,
    optimizer: 8,
  });
  assert.deepEqual(bytesPerParam({ precision: 'bf16-pure', optimizer: 'adam', params: 1 }), {
    weights: 2,
    grads: 2,
    optimizer: 4,
  });
  assert.equal(bytesPerParam({ precision: 'fp32', optimizer: 'sgd', params: 1 }).optimizer, 0);
  assert.equal(bytesPerParam({ precision: 'fp32', optimizer: 'sgd-momentum', params: 1 }).optimizer, 4);
  // 8-bit Adam: 2 bytes of state + 2 fp32 absmax per 2048-element block, plus the fp32 master.
  assert.equal(
    bytesPerParam({ precision: 'bf16', optimizer: 'adam-8bit', params: 1 }).optimizer,
    4 + 2 + 8 / 2048,
  );
  // Adafactor: rows + cols per matrix; for a square h×h matrix exactly 2h of fp32 state.
  const h = 1024;
  const ada = bytesPerParam({ precision: 'fp32', optimizer: 'adafactor', params: h * h, hiddenSize: h });
  assert.equal(ada.optimizer * h * h, 4 * 2 * h);
});

test('torch.autocast keeps fp32 weights and gradients: 4 + 4 + 8 bytes per parameter (PyTorch AMP docs)', () => {
  for (const precision of ['amp-bf16', 'amp-fp16'] as const)
    assert.deepEqual(bytesPerParam({ precision, optimizer: 'adamw', params: 1 }), {
      weights: 4,
      grads: 4,
      optimizer: 8,
    });
  // Same 16 B/param total as the ZeRO paper's mixed precision; ZeRO-2 shards the larger gradients.
  const amp = estimateMemory({ ...common, precision: 'amp-bf16', strategy: 'zero2', gpusPerNode: 8 });
  const mixed = estimateMemory({ ...common, strategy: 'zero2', gpusPerNode: 8 });
  assert.equal(amp.weights, 2 * mixed.weights);
  assert.equal(amp.grads, 2 * mixed.grads);
});

test('one GPU has no DDP buckets; registered buffers and the backward transient are in the peak', () => {
  const one = estimateMemory({ ...common, worldSize: 1, gpusPerNode: 1, strategy: 'ddp' });
  assert.equal(one.buffers, 0);
  const withState = estimateMemory({
    ...common,
    worldSize: 1,
    gpusPerNode: 1,
    strategy: 'ddp',
    modelBufferBytes: 1000,
    backwardTransientBytes: 5000,
  });
  assert.equal(withState.modelBuffers, 1000);
  assert.equal(withState.peak - one.peak, 6000);
});

test('FSDP strategies match their ZeRO equivalents', () => {
  const base = { ...common, gpusPerNode: 8, activationBytes: 1e9, gradientAsBucketView: true };
  const full = estimateMemory({ ...base, strategy: 'fsdp-full', largestLayerParams: 1e8 });
  const z3 = estimateMemory({ ...base, strategy: 'zero3', largestLayerParams: 1e8 });
  assert.deepEqual(full, z3);
  const noShard = estimateMemory({ ...base, strategy: 'fsdp-no-shard' });
  const ddp = estimateMemory({ ...base, strategy: 'ddp' });
  assert.equal(noShard.peak, ddp.peak);
  // SHARD_GRAD_OP ≈ ZeRO-2: same gradients and optimizer shards; its peak holds the unsharded
  // parameters plus the resident shard (2Ψ/N more than ZeRO-2).
  const gradOp = estimateMemory({ ...base, strategy: 'fsdp-grad-op', largestLayerParams: 1e8 });
  const z2 = estimateMemory({ ...base, strategy: 'zero2', largestLayerParams: 1e8 });
  assert.equal(gradOp.grads, z2.grads);
  assert.equal(gradOp.optimizer, z2.optimizer);
  assert.equal(gradOp.peak - z2.peak, Math.round((2 * psi) / 64));
});

test('HYBRID_SHARD shards inside a node and replicates across nodes', () => {
  const hybrid = estimateMemory({
    ...common,
    strategy: 'fsdp-hybrid',
    gpusPerNode: 8,
    largestLayerParams: 0,
  });
  const full8 = estimateMemory({
    ...common,
    strategy: 'fsdp-full',
    worldSize: 8,
    gpusPerNode: 8,
    largestLayerParams: 0,
  });
  assert.equal(hybrid.weights + hybrid.grads + hybrid.optimizer, (16 * psi) / 8);
  assert.deepEqual(hybrid, full8);
});

test('DDP keeps gradient buckets unless gradient_as_bucket_view', () => {
  const ddp = estimateMemory({ ...common, strategy: 'ddp', gpusPerNode: 8 });
  assert.equal(ddp.buffers, ddp.grads);
  assert.equal(
    estimateMemory({ ...common, strategy: 'ddp', gpusPerNode: 8, gradientAsBucketView: true }).buffers,
    0,
  );
});

test('peak is more than the sum for ZeRO-3: gathered largest layer, its prefetch and its gradient', () => {
  const m = estimateMemory({
    ...common,
    strategy: 'zero3',
    gpusPerNode: 8,
    largestLayerParams: 1e8,
    activationBytes: 5e9,
  });
  const sum = m.weights + m.grads + m.optimizer + m.activations + m.buffers;
  assert.equal(m.transient, 2 * 2 * 1e8 + 2 * 1e8);
  assert.equal(m.peak, sum + m.transient);
});

test('CPU offload moves optimizer state (and sharded grads, and with params the weights) to the host', () => {
  const none = estimateMemory({ ...common, strategy: 'zero3', gpusPerNode: 8, largestLayerParams: 0 });
  const opt = estimateMemory({
    ...common,
    strategy: 'zero3',
    gpusPerNode: 8,
    largestLayerParams: 0,
    offload: 'optimizer',
  });
  const all = estimateMemory({
    ...common,
    strategy: 'zero3',
    gpusPerNode: 8,
    largestLayerParams: 0,
    offload: 'optimizer+params',
  });
  assert.equal(opt.optimizer, 0);
  assert.equal(opt.grads, 0);
  assert.equal(opt.weights, none.weights);
  assert.equal(opt.offloaded, none.optimizer + none.grads);
  assert.equal(all.weights, 0);
  assert.equal(all.offloaded, none.optimizer + none.grads + none.weights);
  const ddp = estimateMemory({ ...common, strategy: 'ddp', gpusPerNode: 8, offload: 'optimizer+params' });
  assert.ok(ddp.weights > 0);
  assert.ok(ddp.notes.some((n) => n.includes('parameter offload')));
});

test('all outputs are integer bytes', () => {
  const m = estimateMemory({
    ...common,
    params: 123_456_789,
    strategy: 'zero2',
    worldSize: 7,
    gpusPerNode: 7,
    optimizer: 'adafactor',
  });
  for (const key of [
    'weights',
    'grads',
    'optimizer',
    'activations',
    'buffers',
    'transient',
    'peak',
  ] as const) {
    assert.ok(Number.isInteger(m[key]), key);
  }
});

// Collectives: nccl-tests bus-bandwidth factors, the ZeRO paper's volumes, hybrid sharding,
// tensor and pipeline parallelism, gradient accumulation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  busBandwidthFactor,
  collectiveSeconds,
  dataParallelComm,
  pipelineBubbleFraction,
  pipelineComm,
  resolveClusterProfile,
  tensorParallelComm,
  type ClusterProfile,
} from '../../../server/src/estimate';

function profile(nodes: number, inter = 'ib-ndr'): ClusterProfile {
  const r = resolveClusterProfile({
    gpu: 'h100-sxm',
    gpusPerNode: 8,
    nodes,
    intraNodeLink: 'nvlink4',
    interNodeLink: inter,
  });
  assert.ok(r.ok);
  return r.profile;
}

test('nccl-tests bus-bandwidth factors for n = 8 (doc/PERFORMANCE.md)', () => {
  assert.equal(busBandwidthFactor('AllReduce', 8), 1.75);
  assert.equal(busBandwidthFactor('ReduceScatter', 8), 0.875);
  assert.equal(busBandwidthFactor('AllGather', 8), 0.875);
  assert.equal(busBandwidthFactor('AlltoAll', 8), 0.875);
  assert.equal(busBandwidthFactor('Broadcast', 8), 1);
  assert.equal(busBandwidthFactor('Reduce', 8), 1);
});

test('ring all-reduce time uses one direction of NVLink 4 (450 GB/s) plus 2(n−1) latency steps', () => {
  const seconds = collectiveSeconds({
    kind: 'AllReduce',
    bytes: 1e9,
    n: 8,
    busBandwidthGBps: 450,
    latencyUs: 2,
  });
  assert.equal(seconds, (1.75 * 1e9) / 450e9 + 14 * 2e-6);
  const tree = collectiveSeconds({
    kind: 'AllReduce',
    bytes: 1e9,
    n: 8,
    busBandwidthGBps: 450,
    latencyUs: 2,
    algorithm: 'tree',
  });
  assert.equal(tree, (1.75 * 1e9) / 450e9 + 6 * 2e-6);
});

const base = { params: 1e9, bytesPerElement: 2, worldSize: 8, gpusPerNode: 8, profile: profile(1) } as const;
const total = (entries: { bytesPerStep: number }[]) => entries.reduce((a, e) => a + e.bytesPerStep, 0);

test('ZeRO paper: DDP, ZeRO-1/2 move 2Ψ, ZeRO-3 / FSDP full 3Ψ = 1.5×', () => {
  const ddp = total(dataParallelComm({ ...base, strategy: 'ddp' }));
  assert.equal(ddp, Math.round(2 * (7 / 8) * 2e9));
  assert.equal(total(dataParallelComm({ ...base, strategy: 'zero1' })), ddp);
  assert.equal(total(dataParallelComm({ ...base, strategy: 'zero2' })), ddp);
  const z3 = total(dataParallelComm({ ...base, strategy: 'zero3' }));
  assert.equal(z3 / ddp, 1.5);
  assert.equal(total(dataParallelComm({ ...base, strategy: 'fsdp-full' })), z3);
  assert.equal(total(dataParallelComm({ ...base, strategy: 'fsdp-grad-op' })), ddp);
});

test('gradient accumulation: one sync per step with no_sync, one per micro-batch without', () => {
  const once = dataParallelComm({ ...base, strategy: 'ddp', gradAccumSteps: 4 });
  const every = dataParallelComm({ ...base, strategy: 'ddp', gradAccumSteps: 4, noSync: false });
  assert.equal(total(every), 4 * total(once));
  // ZeRO-3 gathers parameters every micro-batch regardless.
  const z3 = dataParallelComm({ ...base, strategy: 'zero3', gradAccumSteps: 4 });
  assert.equal(total(z3), Math.round(9 * 0.875 * 2e9));
});

test('HYBRID_SHARD: shard collectives inside the node, all-reduce of the shard across nodes', () => {
  const p = profile(4);
  const entries = dataParallelComm({ ...base, worldSize: 32, profile: p, strategy: 'fsdp-hybrid' });
  assert.equal(entries.length, 4);
  assert.match(entries[3].collective, /AllReduce grad shard .*4 nodes, IB NDR/);
  assert.equal(entries[3].bytesPerStep, Math.round(1.5 * (2e9 / 8)));
  // One rank per node per group, 8 groups sharing 8 NDR NICs: 50 GB/s each.
  assert.ok(Math.abs(entries[3].secondsPerStep! - ((1.5 * 2.5e8) / 50e9 + 6 * 5e-6)) < 1e-12);
  assert.match(entries[0].collective, /8 GPUs, NVLink 4/);
});

test('multi-node groups use the inter-node bus bandwidth; unknown bandwidth gives null seconds', () => {
  const [ddp] = dataParallelComm({ ...base, worldSize: 32, profile: profile(4), strategy: 'ddp' });
  assert.equal(ddp.secondsPerStep, (2 * (31 / 32) * 2e9) / 400e9 + 62 * 5e-6);
  const [none] = dataParallelComm({ ...base, profile: null, strategy: 'ddp' });
  assert.equal(none.secondsPerStep, null);
  assert.ok(none.bytesPerStep > 0);
});

test('tensor parallel: 2 forward + 2 backward all-reduces of b·s·h per layer (Megatron)', () => {
  const opts = {
    layers: 32,
    microBatch: 1,
    seq: 4096,
    hidden: 4096,
    tensorParallel: 8,
    bytesPerElement: 2,
    profile: profile(1),
  };
  const [ar] = tensorParallelComm(opts);
  assert.equal(ar.bytesPerStep, Math.round(4 * 32 * 1.75 * 4096 * 4096 * 2));
  const sp = tensorParallelComm({ ...opts, sequenceParallel: true });
  assert.equal(total(sp), ar.bytesPerStep);
});

test('pipeline: bubble (p − 1)/m and send/recv of activations and their gradients', () => {
  assert.equal(pipelineBubbleFraction({ stages: 4, microBatches: 12 }), 0.25);
  const [sr] = pipelineComm({
    stages: 4,
    microBatches: 8,
    microBatch: 1,
    seq: 2048,
    hidden: 4096,
    bytesPerElement: 2,
    busBandwidthGBps: 50,
  });
  assert.equal(sr.bytesPerStep, 16 * 2048 * 4096 * 2);
});

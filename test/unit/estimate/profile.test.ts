// Cluster profiles: presets, labels, custom overrides and error values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GPU_PRESETS, LINK_PRESETS, listGpus, resolveClusterProfile } from '../../../server/src/estimate';

const settings = {
  gpu: 'h100-sxm',
  gpusPerNode: 8,
  nodes: 1,
  intraNodeLink: 'nvlink4',
  interNodeLink: 'ib-ndr',
};

test('every required preset id exists with a source', () => {
  const gpus = [
    'h100-sxm',
    'h100-pcie',
    'h200',
    'a100-40gb',
    'a100-80gb',
    'l40s',
    'a10g',
    'rtx-4090',
    'rtx-3090',
    'mi300x',
    'mi250x',
    'mi210',
  ];
  const links = [
    'nvlink3',
    'nvlink4',
    'nvlink5',
    'pcie4',
    'pcie5',
    'infinity-fabric',
    'ib-hdr',
    'ib-ndr',
    'roce-200',
    'roce-400',
    'ethernet-100',
    'ethernet-25',
  ];
  for (const id of gpus) assert.ok(GPU_PRESETS[id]?.source, id);
  for (const id of links) assert.ok(LINK_PRESETS[id]?.source, id);
  // Dense, not sparsity: H100 SXM bf16 is 989 TFLOP/s (1979 with 2:4 sparsity).
  assert.equal(GPU_PRESETS['h100-sxm'].tflops.bf16, 989);
  assert.equal(GPU_PRESETS['mi300x'].memoryBytes, 192 * 2 ** 30);
  // NVLink 4: 900 GB/s both directions, 450 per direction.
  assert.equal(LINK_PRESETS.nvlink4.bandwidthGBps, 450);
});

test('labels for one node and for several', () => {
  const one = resolveClusterProfile(settings);
  assert.ok(one.ok);
  assert.equal(one.profile.label, '8× H100 SXM · NVLink 4');
  assert.equal(one.profile.interNodeLink, null);
  const four = resolveClusterProfile({ ...settings, nodes: 4 });
  assert.ok(four.ok);
  assert.equal(four.profile.label, '8× H100 SXM · NVLink 4 · 4 nodes IB NDR');
  assert.equal(four.profile.worldSize, 32);
  // 8 NDR NICs per node (400 GB/s) bound a ring that crosses nodes; NVLink's 450 does not.
  assert.equal(four.profile.interNodeBusBandwidthGBps, 400);
  const eth = resolveClusterProfile({ ...settings, nodes: 2, interNodeLink: 'ethernet-100' });
  assert.ok(eth.ok);
  assert.equal(eth.profile.interNodeBusBandwidthGBps, 12.5);
});

test('custom profiles override presets and add ids; a measured busbw wins', () => {
  const r = resolveClusterProfile({
    ...settings,
    gpu: 'my-gpu',
    nodes: 2,
    interNodeLink: 'ib-ndr',
    customProfiles: {
      gpus: { 'my-gpu': { name: 'Lab GPU', memoryGB: 96, tflops: { bf16: 500 } } },
      links: { nvlink4: { busBandwidthGBps: 360 }, 'ib-ndr': { busBandwidthGBps: 180 } },
    },
  });
  assert.ok(r.ok);
  assert.equal(r.profile.gpu.memoryBytes, 96 * 2 ** 30);
  assert.equal(r.profile.gpu.tflops.bf16, 500);
  assert.equal(r.profile.intraNodeBusBandwidthGBps, 360);
  assert.equal(r.profile.interNodeBusBandwidthGBps, 180);
  assert.equal(r.profile.label, '8× Lab GPU · NVLink 4 · 2 nodes IB NDR');
  assert.ok(listGpus({ gpus: { 'my-gpu': { memoryGB: 96 } } }).some((g) => g.id === 'my-gpu' && g.custom));
});

test('unknown ids and bad counts are error values, not throws', () => {
  const gpu = resolveClusterProfile({ ...settings, gpu: 'h900' });
  assert.equal(gpu.ok, false);
  assert.match(!gpu.ok ? gpu.error : '', /Unknown GPU 'h900'/);
  const link = resolveClusterProfile({ ...settings, nodes: 2, interNodeLink: 'carrier-pigeon' });
  assert.match(!link.ok ? link.error : '', /Unknown link 'carrier-pigeon'/);
  assert.equal(resolveClusterProfile({ ...settings, gpusPerNode: 0 }).ok, false);
  const noMemory = resolveClusterProfile({
    ...settings,
    gpu: 'x',
    customProfiles: { gpus: { x: { name: 'X' } } },
  });
  assert.match(!noMemory.ok ? noMemory.error : '', /memoryGB/);
});

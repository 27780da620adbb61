// DeepSpeed's estimators as deepspeedai/DeepSpeed master (2025) computes them, checked against
// the worked examples of its "Memory Requirements" page (deepspeed.readthedocs.io/en/latest/memory.html).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepspeedZero2Estimate, deepspeedZero3Estimate } from '../../../server/src/estimate';

const GiB = 2 ** 30;
const gib = (bytes: number) => (bytes / GiB).toFixed(2);

test('ZeRO-3 cold example: t5-3b, 2851e6 params, 32e6 largest layer, 8 GPUs', () => {
  const base = { totalParams: 2851e6, largestLayerParams: 32e6, gpusPerNode: 8, nodes: 1 };
  // Doc table rows (per CPU | per GPU), printed in GiB.
  const both = deepspeedZero3Estimate({ ...base, cpuOffload: true, cpuOffloadParams: true, zeroInit: true });
  assert.deepEqual([gib(both.cpuBytes), gib(both.gpuBytes)], ['71.69', '0.12']);
  const both0 = deepspeedZero3Estimate({
    ...base,
    cpuOffload: true,
    cpuOffloadParams: true,
    zeroInit: false,
  });
  assert.equal(gib(both0.cpuBytes), '127.45');
  const opt = deepspeedZero3Estimate({ ...base, cpuOffload: true, cpuOffloadParams: false, zeroInit: true });
  assert.deepEqual([gib(opt.cpuBytes), gib(opt.gpuBytes)], ['63.72', '0.78']);
  const none = deepspeedZero3Estimate({ ...base, cpuOffload: false, zeroInit: true });
  assert.deepEqual([gib(none.cpuBytes), gib(none.gpuBytes)], ['1.43', '6.09']);
  assert.equal(none.gpuBytes, 4 * 32e6 + Math.trunc((18 * 2851e6) / 8));
});

test('ZeRO-3 t5-large worked example: 737.67M params, 32.90M largest layer, 4 GPUs', () => {
  // The page prints MB as bytes >> 20: case1 3291, case2 125, case3 477.
  const base = { totalParams: 737_668_096, largestLayerParams: 32_899_072, gpusPerNode: 4 };
  const mb = (b: number) => Math.floor(b / 2 ** 20);
  assert.equal(mb(deepspeedZero3Estimate({ ...base, cpuOffload: false }).gpuBytes), 3291);
  assert.equal(
    mb(deepspeedZero3Estimate({ ...base, cpuOffload: true, cpuOffloadParams: true }).gpuBytes),
    125,
  );
  assert.equal(
    mb(deepspeedZero3Estimate({ ...base, cpuOffload: true, cpuOffloadParams: false }).gpuBytes),
    477,
  );
});

test('ZeRO-2: current code (2Ψ + 18Ψ/N since PR #5099) differs from the doc table (4Ψ + 16Ψ/N)', () => {
  const base = { totalParams: 2851e6, gpusPerNode: 8, nodes: 1 };
  const offload = deepspeedZero2Estimate({ ...base, cpuOffload: true });
  // Offload row agrees with the doc table: 127.45 GB | 5.31 GB.
  assert.deepEqual([gib(offload.cpuBytes), gib(offload.gpuBytes)], ['127.45', '5.31']);
  const none = deepspeedZero2Estimate({ ...base, cpuOffload: false });
  // The doc table says 15.93 GB per GPU, which is the pre-#5099 formula 4Ψ + 16Ψ/N ...
  assert.equal(gib(4 * 2851e6 + (16 * 2851e6) / 8), '15.93');
  // ... while the current code computes 2Ψ + 18Ψ/N = 11.28 GiB.
  assert.equal(gib(none.gpuBytes), '11.28');
  assert.equal(none.gpuBytes, 2 * 2851e6 + Math.trunc((18 * 2851e6) / 8));
  assert.equal(gib(none.cpuBytes), '127.45');
});

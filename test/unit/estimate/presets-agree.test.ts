// One preset table for both languages: bench/shardlens_bench/presets.json is read by the
// TypeScript estimates (GPU_PRESETS, LINK_PRESETS), the cluster picker (listGpus/listLinks) and
// the Python harness's roofline (peaks.py). This runs the real Python module and checks that the
// three hold the same values, that every row names its source, and that name matching finds
// every row (no row shadowed by a broader one).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GPU_PRESETS, LINK_PRESETS, listGpus, listLinks } from '../../../server/src/estimate';
import { repoRoot, torchPython } from '../../helpers/paths';

const presetsPath = join(repoRoot, 'bench', 'shardlens_bench', 'presets.json');

/** Torch device names as `torch.cuda.get_device_name()` spells them, and the preset they must find. */
const DEVICE_NAMES: Record<string, string> = {
  'NVIDIA H100 80GB HBM3': 'h100-sxm',
  'NVIDIA H100 PCIe': 'h100-pcie',
  'NVIDIA H100 NVL': 'h100-nvl',
  'NVIDIA H200': 'h200',
  'NVIDIA A100-SXM4-40GB': 'a100-40gb',
  'NVIDIA A100-SXM4-80GB': 'a100-80gb',
  'NVIDIA A100 80GB PCIe': 'a100-80gb-pcie',
  'NVIDIA L40S': 'l40s',
  'NVIDIA A10G': 'a10g',
  'NVIDIA GeForce RTX 4090': 'rtx-4090',
  'NVIDIA GeForce RTX 3090': 'rtx-3090',
  'AMD Instinct MI300X': 'mi300x',
  'AMD Instinct MI250X': 'mi250x',
  'AMD Instinct MI210': 'mi210',
};

const PYTHON_DUMP = `
import json, sys
sys.path.insert(0, "bench")
from shardlens_bench.peaks import GPU_PEAKS, find_peak, find_row, load_presets
names = json.loads(sys.argv[1])
print(json.dumps({
    "rows": [
        {"id": r.id, "label": r.label, "bf16": r.half_tflops, "fp16": r.fp16_tflops,
         "fp32": r.fp32_tflops, "bandwidthGBps": r.bandwidth_gbps, "source": r.source}
        for r in GPU_PEAKS
    ],
    "found": {name: getattr(find_row(name), "id", None) for name in names},
    "peaks": {name: [find_peak(name, d, "cuda").tflops for d in ("bf16", "fp16", "fp32")] for name in names},
    "links": load_presets()["links"],
}))
`;

interface PythonDump {
  rows: {
    id: string;
    label: string;
    bf16: number;
    fp16: number;
    fp32: number;
    bandwidthGBps: number;
    source: string;
  }[];
  found: Record<string, string | null>;
  peaks: Record<string, number[]>;
  links: Record<string, unknown>[];
}

function pythonDump(names: string[]): PythonDump {
  const result = spawnSync(torchPython, ['-c', PYTHON_DUMP, JSON.stringify(names)], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `python failed: ${result.error?.message ?? result.stderr}`);
  return JSON.parse(result.stdout);
}

describe('GPU and link presets', () => {
  const gpuNames = Object.values(GPU_PRESETS).map((g) => g.name);
  const dump = pythonDump([...gpuNames, ...Object.keys(DEVICE_NAMES)]);

  test('TypeScript and Python read the same GPU rows with the same figures', () => {
    assert.deepEqual(dump.rows.map((r) => r.id).sort(), Object.keys(GPU_PRESETS).sort());
    for (const row of dump.rows) {
      const spec = GPU_PRESETS[row.id];
      assert.deepEqual(
        [row.label, row.bf16, row.fp16, row.fp32, row.bandwidthGBps, row.source],
        [
          spec.name,
          spec.tflops.bf16,
          spec.tflops.fp16,
          spec.tflops.fp32,
          spec.memoryBandwidthGBps,
          spec.source,
        ],
        row.id,
      );
    }
  });

  test('the cluster picker offers exactly the presets, with their names', () => {
    assert.deepEqual(
      listGpus().map((g) => [g.id, g.name]),
      Object.values(GPU_PRESETS).map((g) => [g.id, g.name]),
    );
    const pickerLinks = [...listLinks('intra'), ...listLinks('inter')].map((l) => l.id).sort();
    assert.deepEqual(pickerLinks, Object.keys(LINK_PRESETS).sort());
  });

  test('TypeScript and Python read the same link rows', () => {
    assert.deepEqual(
      Object.fromEntries(dump.links.map((l) => [l.id, l])),
      JSON.parse(JSON.stringify(LINK_PRESETS)),
    );
  });

  test('every row names its primary source', () => {
    const document = /data sheet|whitepaper|Specification|product brief|IEEE 802\.3/;
    for (const spec of [...Object.values(GPU_PRESETS), ...Object.values(LINK_PRESETS)]) {
      assert.match(spec.source, document, spec.id);
    }
  });

  test('device-name matching finds every row, by its own name and by the name torch reports', () => {
    for (const spec of Object.values(GPU_PRESETS)) assert.equal(dump.found[spec.name], spec.id, spec.name);
    for (const [name, id] of Object.entries(DEVICE_NAMES)) {
      assert.equal(dump.found[name], id, name);
      const spec = GPU_PRESETS[id];
      assert.deepEqual(dump.peaks[name], [spec.tflops.bf16, spec.tflops.fp16, spec.tflops.fp32], name);
    }
  });

  test('MI250X is one GCD, half of the per-package figures on AMD’s data sheet', () => {
    const mi250x = GPU_PRESETS.mi250x;
    // AMD Instinct MI250X data sheet (per OAM package): 128 GB HBM2e, 3.2768 TB/s,
    // 383 TFLOP/s FP16/BF16, 95.7 TFLOP/s FP32 matrix; ROCm shows each of its two GCDs as a device.
    assert.equal(mi250x.memoryBytes * 2, 128 * 2 ** 30);
    assert.equal(mi250x.memoryBandwidthGBps * 2, 3276.8);
    assert.equal(mi250x.tflops.bf16 * 2, 383);
    assert.equal(mi250x.tflops.fp32 * 2, 95.7);
    assert.match(mi250x.source, /AMD Instinct MI250X accelerator data sheet/);
    const row = JSON.parse(readFileSync(presetsPath, 'utf8')).gpus.find(
      (g: { id: string }) => g.id === 'mi250x',
    );
    assert.match(row.note, /per GCD, not per package/i);
  });
});

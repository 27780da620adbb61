// GPU presets for the cluster profile: memory, HBM bandwidth and dense peak TFLOP/s per
// precision, read from bench/shardlens_bench/presets.json, the one table the Python harness's
// roofline reads too. Each row names its vendor data sheet; never sparsity figures. Memory is
// binary GiB: an "80 GB" H100 reports 81559 MiB in nvidia-smi, so 80 GB → 80 × 2^30 bytes.
import presets from '../../../bench/shardlens_bench/presets.json';

/** Dense peak throughput in TFLOP/s; null where the GPU has no such mode. */
export interface GpuTflops {
  /** FP32 matrix-multiply peak without TF32 (NVIDIA: the FP32 figure; AMD: FP32 matrix). */
  fp32: number;
  tf32: number | null;
  bf16: number;
  fp16: number;
}

/** One GPU model of a cluster profile. */
export interface GpuSpec {
  id: string;
  name: string;
  vendor: 'nvidia' | 'amd' | 'other';
  /** Device memory in bytes (binary: the data sheet's "80 GB" is 80 GiB). */
  memoryBytes: number;
  /** Peak memory bandwidth in GB/s (1e9 bytes per second). */
  memoryBandwidthGBps: number;
  /** Dense tensor-core/matrix peaks. */
  tflops: GpuTflops;
  /** Data sheet (or whitepaper) the figures come from. */
  source: string;
}

/** One GPU row of presets.json. */
interface GpuRow {
  id: string;
  name: string;
  vendor: string;
  memoryGiB: number;
  memoryBandwidthGBps: number;
  tflops: { fp32: number; tf32: number | null; bf16: number; fp16: number };
  source: string;
}

const GiB = 2 ** 30;

function isFinitePositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/** A checked GpuSpec from one row; throws naming the row when a field is missing or wrong. */
export function gpuSpecFromRow(row: GpuRow): GpuSpec {
  const problem = (field: string) => new Error(`presets.json: GPU '${row.id}' has a bad ${field}`);
  if (!['nvidia', 'amd', 'other'].includes(row.vendor)) throw problem('vendor');
  if (!isFinitePositive(row.memoryGiB)) throw problem('memoryGiB');
  if (!isFinitePositive(row.memoryBandwidthGBps)) throw problem('memoryBandwidthGBps');
  const { fp32, tf32, bf16, fp16 } = row.tflops;
  if (![fp32, bf16, fp16].every(isFinitePositive) || !(tf32 === null || isFinitePositive(tf32))) {
    throw problem('tflops');
  }
  if (!row.source) throw problem('source');
  return {
    id: row.id,
    name: row.name,
    vendor: row.vendor as GpuSpec['vendor'],
    memoryBytes: row.memoryGiB * GiB,
    memoryBandwidthGBps: row.memoryBandwidthGBps,
    tflops: { fp32, tf32, bf16, fp16 },
    source: row.source,
  };
}

/** GPU presets by the ids used in `shardlens.cluster.gpu`, in the order of presets.json. */
export const GPU_PRESETS: Readonly<Record<string, GpuSpec>> = Object.fromEntries(
  (presets.gpus as GpuRow[]).map((row) => [row.id, gpuSpecFromRow(row)]),
);

// GPU presets for the cluster profile: memory, HBM bandwidth and dense peak TFLOP/s per
// precision, each from the vendor's data sheet. Never sparsity figures (FACTS.md, "GPU presets").
// Memory is stored in bytes as binary GiB: HBM/GDDR capacities are powers of two
// (an "80 GB" H100 reports 81559 MiB in nvidia-smi), so 80 GB → 80 × 2^30 bytes.

/** Dense peak throughput in TFLOP/s; null where the GPU has no such mode. */
export interface GpuTflops {
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
  /** Dense tensor-core/matrix peaks (fp32 is the non-tensor vector figure). */
  tflops: GpuTflops;
  /** Data sheet (or whitepaper) the figures come from. */
  source: string;
}

const GiB = 2 ** 30;

function gpu(spec: Omit<GpuSpec, 'memoryBytes'> & { memoryGiB: number }): GpuSpec {
  const { memoryGiB, ...rest } = spec;
  return { ...rest, memoryBytes: memoryGiB * GiB };
}

/** GPU presets by the ids used in `shardlens.cluster.gpu`. */
export const GPU_PRESETS: Readonly<Record<string, GpuSpec>> = {
  'h100-sxm': gpu({
    id: 'h100-sxm',
    name: 'H100 SXM',
    vendor: 'nvidia',
    memoryGiB: 80,
    memoryBandwidthGBps: 3350,
    tflops: { fp32: 67, tf32: 494.5, bf16: 989, fp16: 989 },
    source: 'NVIDIA H100 Tensor Core GPU data sheet (SXM5; tensor figures halved from the sparsity ones)',
  }),
  'h100-pcie': gpu({
    id: 'h100-pcie',
    name: 'H100 PCIe',
    vendor: 'nvidia',
    memoryGiB: 80,
    memoryBandwidthGBps: 2000,
    tflops: { fp32: 51, tf32: 378, bf16: 756, fp16: 756 },
    source: 'NVIDIA H100 Tensor Core GPU data sheet (PCIe; dense)',
  }),
  h200: gpu({
    id: 'h200',
    name: 'H200 SXM',
    vendor: 'nvidia',
    memoryGiB: 141,
    memoryBandwidthGBps: 4800,
    tflops: { fp32: 67, tf32: 494.5, bf16: 989, fp16: 989 },
    source: 'NVIDIA H200 Tensor Core GPU data sheet (SXM; dense)',
  }),
  'a100-40gb': gpu({
    id: 'a100-40gb',
    name: 'A100 40GB',
    vendor: 'nvidia',
    memoryGiB: 40,
    memoryBandwidthGBps: 1555,
    tflops: { fp32: 19.5, tf32: 156, bf16: 312, fp16: 312 },
    source: 'NVIDIA A100 Tensor Core GPU data sheet (SXM4 40GB; dense)',
  }),
  'a100-80gb': gpu({
    id: 'a100-80gb',
    name: 'A100 80GB',
    vendor: 'nvidia',
    memoryGiB: 80,
    memoryBandwidthGBps: 2039,
    tflops: { fp32: 19.5, tf32: 156, bf16: 312, fp16: 312 },
    source: 'NVIDIA A100 Tensor Core GPU data sheet (SXM4 80GB; dense)',
  }),
  l40s: gpu({
    id: 'l40s',
    name: 'L40S',
    vendor: 'nvidia',
    memoryGiB: 48,
    memoryBandwidthGBps: 864,
    tflops: { fp32: 91.6, tf32: 183, bf16: 362.05, fp16: 362.05 },
    source: 'NVIDIA L40S data sheet (dense)',
  }),
  a10g: gpu({
    id: 'a10g',
    name: 'A10G',
    vendor: 'nvidia',
    memoryGiB: 24,
    memoryBandwidthGBps: 600,
    tflops: { fp32: 31.2, tf32: 62.5, bf16: 125, fp16: 125 },
    // NOTE: NVIDIA publishes no A10G sheet (it is AWS's variant of the A10); A10 figures used.
    source: 'NVIDIA A10 Tensor Core GPU data sheet (dense; A10G is the AWS variant)',
  }),
  'rtx-4090': gpu({
    id: 'rtx-4090',
    name: 'RTX 4090',
    vendor: 'nvidia',
    memoryGiB: 24,
    memoryBandwidthGBps: 1008,
    tflops: { fp32: 82.6, tf32: 82.6, bf16: 165.2, fp16: 165.2 },
    source: 'NVIDIA Ada Lovelace GPU architecture whitepaper, Appendix A (dense, FP32 accumulate)',
  }),
  'rtx-3090': gpu({
    id: 'rtx-3090',
    name: 'RTX 3090',
    vendor: 'nvidia',
    memoryGiB: 24,
    memoryBandwidthGBps: 936,
    tflops: { fp32: 35.6, tf32: 35.6, bf16: 71, fp16: 71 },
    source: 'NVIDIA Ampere GA102 GPU architecture whitepaper (dense, FP32 accumulate)',
  }),
  mi300x: gpu({
    id: 'mi300x',
    name: 'MI300X',
    vendor: 'amd',
    memoryGiB: 192,
    memoryBandwidthGBps: 5300,
    tflops: { fp32: 163.4, tf32: 653.7, bf16: 1307.4, fp16: 1307.4 },
    source: 'AMD Instinct MI300X accelerator data sheet (dense)',
  }),
  mi250x: gpu({
    id: 'mi250x',
    name: 'MI250X',
    vendor: 'amd',
    memoryGiB: 128,
    memoryBandwidthGBps: 3277,
    tflops: { fp32: 47.9, tf32: null, bf16: 383, fp16: 383 },
    source: 'AMD Instinct MI250X accelerator data sheet (FP32 vector; no TF32)',
  }),
  mi210: gpu({
    id: 'mi210',
    name: 'MI210',
    vendor: 'amd',
    memoryGiB: 64,
    memoryBandwidthGBps: 1638,
    tflops: { fp32: 22.6, tf32: null, bf16: 181, fp16: 181 },
    source: 'AMD Instinct MI210 accelerator data sheet (FP32 vector; no TF32)',
  }),
};

// DeepSpeed's own model-state estimators, reproduced as its current code computes them
// (deepspeedai/DeepSpeed master, 2025: `estimate_zero2_model_states_mem_needs` in
// runtime/zero/stage_1_and_2.py and `estimate_zero3_model_states_mem_needs` in runtime/zero/stage3.py).
// They count model states only: no activations, no framework overhead (DeepSpeed issues #4527, #5102).

/** Result of a DeepSpeed estimator: bytes per GPU and per CPU (host), as DeepSpeed returns them. */
export interface DeepSpeedEstimate {
  gpuBytes: number;
  cpuBytes: number;
  /** ZeRO-3 only: 4 × largest layer params (gathered fp16 params + fp16 grads of that layer). */
  largestLayerBytes?: number;
}

/**
 * ZeRO-2 (`estimate_zero2_model_states_mem_needs`). GPU without offload: 2Ψ + int(18Ψ/N) —
 * 18 = 2 fp16 grads + 4 fp32 grads + 4 fp32 params + 8 Adam states, since DeepSpeed PR #5099
 * (earlier code and the "Memory Requirements" doc table: 4Ψ + 16Ψ/N). With optimizer offload:
 * 2Ψ. CPU: Ψ·max(4·N, 16)·1.5 with offload, Ψ·4·gpusPerNode·1.5 without (model init in fp32).
 */
export function deepspeedZero2Estimate(opts: {
  totalParams: number;
  gpusPerNode?: number;
  nodes?: number;
  cpuOffload?: boolean;
  additionalBufferFactor?: number;
}): DeepSpeedEstimate {
  const { totalParams, gpusPerNode = 1, nodes = 1, cpuOffload = true, additionalBufferFactor = 1.5 } = opts;
  const totalGpus = nodes * gpusPerNode;
  let gpu: number;
  let cpu: number;
  if (cpuOffload) {
    gpu = 2 * totalParams;
    cpu = totalParams * Math.max(4 * totalGpus, 16) * additionalBufferFactor;
  } else {
    gpu = 2 * totalParams + Math.trunc((18 * totalParams) / totalGpus);
    cpu = totalParams * 4 * gpusPerNode * additionalBufferFactor;
  }
  return { gpuBytes: Math.trunc(gpu), cpuBytes: Math.trunc(cpu) };
}

/**
 * ZeRO-3 (`estimate_zero3_model_states_mem_needs`), L = largest layer params:
 * GPU 4L + int(18Ψ/N) without offload, 4L + int(2Ψ/N) with optimizer offload, 4L with both.
 * CPU (gpus_factor = 1/nodes): both offloaded 18Ψ·gf·1.5 with zero.Init, else Ψ·max(4·gpusPerNode, 18·gf)·1.5;
 * optimizer only 16Ψ·gf·1.5 with zero.Init, else Ψ·max(4·gpusPerNode, 16·gf)·1.5;
 * none L·4·gpusPerNode·1.5 with zero.Init, else Ψ·4·gpusPerNode·1.5.
 */
export function deepspeedZero3Estimate(opts: {
  totalParams: number;
  largestLayerParams: number;
  gpusPerNode?: number;
  nodes?: number;
  cpuOffload?: boolean;
  cpuOffloadParams?: boolean;
  zeroInit?: boolean;
  additionalBufferFactor?: number;
}): DeepSpeedEstimate {
  const { totalParams: p, largestLayerParams: l, gpusPerNode = 1, nodes = 1 } = opts;
  const {
    cpuOffload = true,
    cpuOffloadParams = true,
    zeroInit = true,
    additionalBufferFactor: f = 1.5,
  } = opts;
  const totalGpus = nodes * gpusPerNode;
  const gpusFactor = 1 / nodes;
  const largestLayerBytes = 4 * l;
  let gpu: number;
  let cpu: number;
  if (cpuOffload) {
    const factor = cpuOffloadParams ? 18 : 16;
    gpu = cpuOffloadParams ? largestLayerBytes : largestLayerBytes + Math.trunc((2 * p) / totalGpus);
    cpu = zeroInit ? p * factor * gpusFactor * f : p * Math.max(4 * gpusPerNode, factor * gpusFactor) * f;
  } else {
    gpu = largestLayerBytes + Math.trunc((18 * p) / totalGpus);
    cpu = zeroInit ? l * 4 * gpusPerNode * f : p * 4 * gpusPerNode * f;
  }
  return { gpuBytes: Math.trunc(gpu), cpuBytes: Math.trunc(cpu), largestLayerBytes };
}

/** DeepSpeed's estimate for one of our strategy ids, or null where DeepSpeed has no estimator. */
export function deepspeedEstimateFor(opts: {
  strategy: string;
  totalParams: number;
  largestLayerParams: number;
  gpusPerNode: number;
  nodes: number;
  offload: 'none' | 'optimizer' | 'optimizer+params';
}): DeepSpeedEstimate | null {
  const cpuOffload = opts.offload !== 'none';
  if (opts.strategy === 'zero2') return deepspeedZero2Estimate({ ...opts, cpuOffload });
  if (opts.strategy === 'zero3') {
    return deepspeedZero3Estimate({
      ...opts,
      cpuOffload,
      cpuOffloadParams: opts.offload === 'optimizer+params',
    });
  }
  return null;
}

// Memory per GPU for a data-parallel strategy: weights, gradients, optimizer state, buffers,
// activations and the peak over one training step. Model states follow the ZeRO paper
// (Rajbhandari et al., arXiv:1910.02054, §5, Fig. 1); FSDP maps onto ZeRO per torch's
// ShardingStrategy docstring; DDP bucket buffers per PyTorch PR #41954; torch.autocast keeps fp32
// parameters and gradients (PyTorch "Automatic Mixed Precision" docs, torch.amp).

export const STRATEGIES = [
  'ddp',
  'zero1',
  'zero2',
  'zero3',
  'fsdp-full',
  'fsdp-grad-op',
  'fsdp-hybrid',
  'fsdp-no-shard',
] as const;
export type StrategyId = (typeof STRATEGIES)[number];
export const PRECISIONS = ['fp32', 'amp-bf16', 'amp-fp16', 'bf16', 'fp16', 'bf16-pure'] as const;
export type PrecisionId = (typeof PRECISIONS)[number];

/** torch.autocast: fp32 parameters, gradients and optimizer state; matmuls and convs in 16-bit. */
export function isAutocast(precision: PrecisionId): boolean {
  return precision === 'amp-bf16' || precision === 'amp-fp16';
}

/**
 * Bytes per element of the activations an op saves, by kind, for a precision (PyTorch autocast
 * docs, "CUDA Ops that can autocast to float16" and "CUDA Ops that can autocast to float32"):
 * `matmul` outputs of linear/matmul/conv (16-bit under autocast), `fp32ops` the inputs and
 * outputs of softmax, log_softmax, norms and losses (fp32 under autocast), `residual` the
 * stream kept by adds of a 16-bit output to an fp32 tensor (type promotion keeps fp32).
 */
export function activationDtypeBytes(precision: PrecisionId): {
  matmul: number;
  fp32ops: number;
  residual: number;
} {
  if (precision === 'fp32') return { matmul: 4, fp32ops: 4, residual: 4 };
  if (isAutocast(precision)) return { matmul: 2, fp32ops: 4, residual: 4 };
  // bf16 / fp16 / bf16-pure: the model runs in 16-bit (weights cast with .to / .half()).
  return { matmul: 2, fp32ops: 2, residual: 2 };
}
export const OPTIMIZERS = ['adamw', 'adam', 'sgd', 'sgd-momentum', 'adafactor', 'adam-8bit'] as const;
export type OptimizerId = (typeof OPTIMIZERS)[number];
/** CPU offload: none, the optimizer (master weights + state, and sharded gradients), or also parameters. */
export type OffloadId = 'none' | 'optimizer' | 'optimizer+params';

/** Bytes per GPU, integers. `peak` is the modelled high-water mark of one step, not a plain sum. */
export interface MemoryBreakdown {
  weights: number;
  grads: number;
  optimizer: number;
  activations: number;
  /** Persistent communication buffers (DDP gradient buckets, only with more than one rank). */
  buffers: number;
  /** The model's registered buffers (running statistics, attention masks), replicated on each GPU. */
  modelBuffers: number;
  /**
   * Short-lived allocations counted only in the peak: gathered layers, unsharded layer gradients,
   * and the backward transient (largest gradient temporaries, fp32 logits gradient, autocast
   * weight cache).
   */
  transient: number;
  peak: number;
  /** Bytes per rank kept in host memory by CPU offload. */
  offloaded: number;
  /** Caveats specific to this strategy and configuration. */
  notes: string[];
}

/** Bytes per parameter of each model state for a precision and optimizer. */
export interface BytesPerParam {
  weights: number;
  grads: number;
  /** fp32 master weights (mixed precision) plus optimizer state; may be fractional. */
  optimizer: number;
}

/** Block size of bitsandbytes' block-wise 8-bit optimizer state (Dettmers et al., arXiv:2110.02861, §2). */
export const ADAM_8BIT_BLOCK_SIZE = 2048;

/**
 * Adafactor's factored second moment keeps rows + cols fp32 values per r×c matrix (Shazeer &
 * Stern 2018, arXiv:1804.04235, §3; no first moment, the HF/T5 default beta1=None).
 * Approximation: with a known hidden size h, every matrix has one side h, so state ≈ 2Ψ/h
 * elements (exact for h×h, 1.6× high for h×4h); otherwise every matrix is taken as a square of
 * the largest layer's size L, giving 2Ψ/√L.
 */
export function adafactorStateElements(opts: {
  params: number;
  hiddenSize?: number;
  largestLayerParams?: number;
}): number {
  const { params, hiddenSize, largestLayerParams } = opts;
  if (hiddenSize && hiddenSize > 0) return (2 * params) / hiddenSize;
  const side = Math.sqrt(Math.max(1, largestLayerParams ?? params));
  return (2 * params) / side;
}

/**
 * Bytes per parameter. Mixed precision (`bf16`/`fp16`) is the ZeRO paper's: 2-byte weights,
 * 2-byte gradients, and K = 12 optimizer bytes (fp32 master 4 + Adam m 4 + v 4). `fp32` and
 * torch.autocast (`amp-bf16`/`amp-fp16`, parameters and gradients stay fp32): 4 + 4 + 8.
 * `bf16-pure`: 2 + 2 and optimizer state in bf16, no master copy.
 */
export function bytesPerParam(opts: {
  precision: PrecisionId;
  optimizer: OptimizerId;
  params: number;
  hiddenSize?: number;
  largestLayerParams?: number;
}): BytesPerParam {
  const { precision, optimizer } = opts;
  const mixed = precision === 'bf16' || precision === 'fp16';
  const weights = precision === 'fp32' || isAutocast(precision) ? 4 : 2;
  const master = mixed ? 4 : 0;
  const stateBytes = precision === 'bf16-pure' ? 2 : 4;
  let state: number;
  switch (optimizer) {
    case 'adam':
    case 'adamw':
      state = 2 * stateBytes;
      break;
    case 'sgd':
      state = 0;
      break;
    case 'sgd-momentum':
      state = stateBytes;
      break;
    case 'adam-8bit':
      // Two uint8 states plus one fp32 absmax per block per state.
      state = 2 + (2 * 4) / ADAM_8BIT_BLOCK_SIZE;
      break;
    case 'adafactor':
      state = (4 * adafactorStateElements(opts)) / Math.max(1, opts.params);
      break;
  }
  return { weights, grads: weights, optimizer: master + state };
}

/** What each strategy shards (at rest) and how it materialises parameters during a step. */
interface StrategyTraits {
  /** Group size over which weights / grads / optimizer state are sharded (1 = replicated). */
  shard: (opts: { worldSize: number; gpusPerNode: number }) => number;
  weights: boolean;
  grads: boolean;
  optimizer: boolean;
  /** Parameters all-gathered layer by layer in forward and backward (ZeRO-3, FSDP FULL/HYBRID). */
  layerwiseGather: boolean;
  /** SHARD_GRAD_OP: unsharded parameters live from forward until the end of backward. */
  unshardedThroughBackward: boolean;
}

const world = (o: { worldSize: number }) => o.worldSize;
const node = (o: { worldSize: number; gpusPerNode: number }) => Math.min(o.gpusPerNode, o.worldSize);
const replicated = { shard: world, weights: false, grads: false, optimizer: false };
const plain = { layerwiseGather: false, unshardedThroughBackward: false };
const fullShard = {
  weights: true,
  grads: true,
  optimizer: true,
  layerwiseGather: true,
  unshardedThroughBackward: false,
};

const TRAITS: Record<StrategyId, StrategyTraits> = {
  ddp: { ...replicated, ...plain },
  'fsdp-no-shard': { ...replicated, ...plain },
  zero1: { ...replicated, optimizer: true, ...plain },
  zero2: { ...replicated, grads: true, optimizer: true, ...plain },
  'fsdp-grad-op': {
    shard: world,
    weights: true,
    grads: true,
    optimizer: true,
    layerwiseGather: false,
    unshardedThroughBackward: true,
  },
  zero3: { shard: world, ...fullShard },
  'fsdp-full': { shard: world, ...fullShard },
  // HYBRID_SHARD: FULL_SHARD inside a node, replicated across nodes.
  'fsdp-hybrid': { shard: node, ...fullShard },
};

/** Degree by which each model state is sharded for a strategy (1 = replicated). */
export function shardingDegrees(opts: { strategy: StrategyId; worldSize: number; gpusPerNode: number }): {
  weights: number;
  grads: number;
  optimizer: number;
} {
  const t = TRAITS[opts.strategy];
  const n = t.shard(opts);
  return { weights: t.weights ? n : 1, grads: t.grads ? n : 1, optimizer: t.optimizer ? n : 1 };
}

export interface MemoryInput {
  strategy: StrategyId;
  precision: PrecisionId;
  optimizer: OptimizerId;
  params: number;
  /** Defaults to `params`; frozen parameters have no gradients or optimizer state. */
  trainableParams?: number;
  /** Parameters of the largest single module (DeepSpeed's "largest layer"); defaults to `params`. */
  largestLayerParams?: number;
  hiddenSize?: number;
  worldSize: number;
  gpusPerNode: number;
  offload?: OffloadId;
  /** Activation bytes per GPU for one micro-batch (see activations.ts); default 0. */
  activationBytes?: number;
  /** DDP `gradient_as_bucket_view=True` removes the bucket copy of the gradients. */
  gradientAsBucketView?: boolean;
  /** Bytes of the model's registered buffers (masks, running statistics); default 0. */
  modelBufferBytes?: number;
  /**
   * Backward transient on top of the activations: the largest gradient temporaries, the fp32
   * logits gradient of an LM head, the autocast weight cache; default 0.
   */
  backwardTransientBytes?: number;
}

/**
 * Memory per GPU. Model of the peak: it happens in backward, when the activations of the
 * forward pass are still held and the gradients are being produced (gradients from the previous
 * micro-batch are also live under gradient accumulation), so
 *   peak = weights + optimizer + buffers + max(forward end, backward, optimizer step), with
 *   forward end = activations + gathered(2 layers)
 *   backward    = activations + grads + gathered(2 layers) + unsharded grad of one layer
 *   step        = grads
 * where "gathered" are the all-gathered parameters of the largest layer and its prefetch
 * (ZeRO-3, FSDP FULL/HYBRID) and SHARD_GRAD_OP holds all unsharded parameters from forward to
 * backward. This is an upper bound: with one micro-batch and zero_grad(set_to_none=True) the
 * activations are freed as gradients appear, and the true peak can be lower by up to
 * min(activations, grads).
 */
export function estimateMemory(input: MemoryInput): MemoryBreakdown {
  const params = input.params;
  const trainable = input.trainableParams ?? params;
  const largest = Math.min(input.largestLayerParams ?? params, params);
  const offload = input.offload ?? 'none';
  const notes: string[] = [];
  const per = bytesPerParam({ ...input, params: trainable, largestLayerParams: largest });
  const traits = TRAITS[input.strategy];
  const shard = shardingDegrees(input);

  let weights = (per.weights * params) / shard.weights;
  let grads = (per.grads * trainable) / shard.grads;
  let optimizer = (per.optimizer * trainable) / shard.optimizer;
  let offloaded = 0;
  if (offload !== 'none') {
    offloaded += optimizer;
    optimizer = 0;
    if (traits.grads) {
      offloaded += grads;
      grads = 0;
    }
    if (offload === 'optimizer+params') {
      if (traits.layerwiseGather) {
        offloaded += weights;
        weights = 0;
      } else {
        notes.push(
          `parameter offload needs ZeRO-3 or FSDP FULL/HYBRID; ${input.strategy} keeps parameters on the GPU`,
        );
      }
    }
  }

  let buffers = 0;
  // NOTE: with one rank there is no DDP wrapper and no reducer, so no buckets.
  if (input.strategy === 'ddp' && !input.gradientAsBucketView && input.worldSize > 1) {
    buffers = per.grads * trainable;
    notes.push('DDP gradient buckets ≈ gradient size (gradient_as_bucket_view=True removes them)');
  }

  // Transient: all-gathered copies of the largest layer (current + prefetched) and its unsharded gradient.
  let gatheredForward = 0;
  let gatheredBackward = 0;
  if (traits.layerwiseGather) {
    gatheredForward = 2 * per.weights * largest;
    gatheredBackward = gatheredForward + per.grads * largest;
  } else if (traits.unshardedThroughBackward) {
    gatheredForward = per.weights * params;
    gatheredBackward = gatheredForward + per.grads * largest;
    notes.push('SHARD_GRAD_OP keeps unsharded parameters from forward to the end of backward (in the peak)');
  } else if (traits.grads) {
    // ZeRO-2: gradients are reduce-scattered bucket by bucket; one layer's full gradient is live.
    gatheredBackward = per.grads * largest;
  }

  const activations = input.activationBytes ?? 0;
  const backwardTransient = input.backwardTransientBytes ?? 0;
  const modelBuffers = input.modelBufferBytes ?? 0;
  const forwardEnd = activations + gatheredForward;
  const backward = activations + grads + gatheredBackward + backwardTransient;
  const step = grads;
  const phasePeak = Math.max(forwardEnd, backward, step);
  const transient = Math.max(gatheredForward, gatheredBackward + backwardTransient);
  const round = Math.round;
  return {
    weights: round(weights),
    grads: round(grads),
    optimizer: round(optimizer),
    activations: round(activations),
    buffers: round(buffers),
    modelBuffers: round(modelBuffers),
    transient: round(transient),
    peak: round(weights + optimizer + buffers + modelBuffers + phasePeak),
    offloaded: round(offloaded),
    notes,
  };
}

/** Model states only ((weights + grads + optimizer) per GPU, no offload): the ZeRO paper's Fig. 1 quantity. */
export function modelStateBytes(opts: {
  strategy: StrategyId;
  precision: PrecisionId;
  optimizer: OptimizerId;
  params: number;
  worldSize: number;
  gpusPerNode?: number;
}): number {
  const m = estimateMemory({
    ...opts,
    gpusPerNode: opts.gpusPerNode ?? opts.worldSize,
    gradientAsBucketView: true,
  });
  return m.weights + m.grads + m.optimizer;
}

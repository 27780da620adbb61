// Public API of the estimate module: memory and communication per GPU for a training setup on a
// cluster profile, with the assumptions behind them, plus presets, catalog and formatting.
// Pure functions only (no LSP, no tree-sitter); docs/estimates.md lists every formula and source.
import {
  lmHeadActivationBytes,
  transformerActivationBytes,
  transformerLayerActivationBytes,
  type RecomputeId,
  type TransformerShape,
} from './activations';
import {
  dataParallelComm,
  tensorParallelComm,
  type AllReduceAlgorithm,
  type CommEntry,
} from './communication';
import { deepspeedEstimateFor, type DeepSpeedEstimate } from './deepspeed';
import { formatParams } from './format';
import {
  activationDtypeBytes,
  bytesPerParam,
  estimateMemory,
  isAutocast,
  type MemoryBreakdown,
  type OffloadId,
  type OptimizerId,
  type PrecisionId,
  type StrategyId,
} from './memory';
import type { ClusterProfile } from './profile';
import type { CatalogEntry } from './catalog';

export * from './activations';
export * from './catalog';
export * from './communication';
export * from './deepspeed';
export * from './format';
export * from './hardware';
export * from './links';
export * from './memory';
export * from './profile';

/** What the estimates need to know about a model (from a ModuleTree or the catalog). */
export interface ModelInput {
  params: number;
  /** The input's dims after the batch when the model takes an image (C×H×W); display only. */
  imageInput?: number[];
  /** Default: params. */
  trainableParams?: number;
  /** Parameters of the largest single module; default: the largest transformer matrix, else params. */
  largestLayerParams?: number;
  /** Transformer shape for the Korthikanti activation formula. */
  transformer?: TransformerShape;
  /** Generic stacks: saved activation bytes for one sample (see layerStackActivationBytes). */
  activationBytesPerSample?: number;
  /** Activations from following `forward` (server/src/forward), asked per precision and shape. */
  forwardActivations?: (query: ActivationQuery) => ActivationResult | undefined;
  /** Elements of the registered buffers (masks, running statistics), fp32 unless the model is cast. */
  bufferElements?: number;
  /** Parameters that autocast casts to 16-bit for matmuls/convs (its weight cache); default params. */
  castWeightParams?: number;
  /** Flash/SDPA attention seen in `forward`. */
  flashAttention?: boolean;
  /** Why the figures are only a lower bound (parts of the model not counted or not followed); one line per cause. */
  lowerBoundCauses?: string[];
}

/** What the forward walker is asked: the setup that changes saved bytes. */
export interface ActivationQuery {
  precision: PrecisionId;
  microBatch: number;
  seq: number;
  recompute: RecomputeId;
}

/** Saved bytes at the end of forward for one micro-batch, and the backward transient. */
export interface ActivationResult {
  bytes: number;
  backwardTransientBytes: number;
  note: string;
}

/** One training setup. */
export interface TrainingInput {
  model: ModelInput;
  strategy: StrategyId;
  precision: PrecisionId;
  optimizer: OptimizerId;
  /** Resolved profile (resolveClusterProfile); null: one GPU, no bandwidth (times are null). */
  cluster: ClusterProfile | null;
  microBatch: number;
  seq: number;
  gradAccumSteps?: number;
  offload?: OffloadId;
  /** true = full recompute. Default none. */
  activationCheckpointing?: RecomputeId | boolean;
  /** Flash/SDPA attention (no s×s scores kept). Default false. */
  flashAttention?: boolean;
  /** Tensor-parallel size (Megatron); data-parallel size = world / t. Default 1. */
  tensorParallel?: number;
  sequenceParallel?: boolean;
  /** DDP gradient_as_bucket_view. Default false (PyTorch's default). */
  gradientAsBucketView?: boolean;
  /** Default true: one gradient sync per step under gradient accumulation. */
  noSync?: boolean;
  allReduceAlgorithm?: AllReduceAlgorithm;
}

/** The estimate for one strategy. */
export interface TrainingEstimate {
  strategy: StrategyId;
  /** Integer bytes per GPU. */
  memory: MemoryBreakdown;
  /** Collectives per optimizer step, bytes per rank. */
  comm: CommEntry[];
  /** Sum of the known collective times, seconds; null when no bandwidth is known. */
  commSecondsPerStep: number | null;
  /** peak ≤ GPU memory; null without a cluster profile. */
  fits: boolean | null;
  /** DeepSpeed's own estimator (zero2/zero3 only), for "DeepSpeed's estimator says X". */
  deepspeed: DeepSpeedEstimate | null;
  /** Human-readable assumptions behind the numbers. */
  assumptions: string[];
  /** True when part of the model is unknown: every figure is the known part, a lower bound. */
  lowerBound: boolean;
}

/** ModelInput for a catalog entry. */
export function modelFromCatalog(entry: CatalogEntry): ModelInput {
  const { layers, hidden, heads, kvHeads, ffn, vocab } = entry;
  const transformer = layers && hidden && heads ? { layers, hidden, heads, kvHeads, ffn, vocab } : undefined;
  return { params: entry.params, largestLayerParams: entry.largestLayerParams, transformer };
}

function recomputeOf(value: TrainingInput['activationCheckpointing']): RecomputeId {
  if (value === true) return 'full';
  if (value === false || value === undefined) return 'none';
  return value;
}

function defaultLargestLayer(model: ModelInput): number {
  const t = model.transformer;
  if (!t) return model.params;
  const ffn = t.ffn ?? 4 * t.hidden;
  return Math.min(model.params, Math.max((t.vocab ?? 0) * t.hidden, ffn * t.hidden));
}

/** Activation bytes per GPU for one micro-batch, the backward transient, and the note explaining them. */
function activationsFor(
  input: TrainingInput,
  recompute: RecomputeId,
): { bytes: number; transient: number; note: string } {
  const model = input.model;
  const t = model.transformer;
  const dtypes = activationDtypeBytes(input.precision);
  const flash = input.flashAttention ?? model.flashAttention ?? false;
  const walked = model.forwardActivations?.({
    precision: input.precision,
    microBatch: input.microBatch,
    seq: input.seq,
    recompute,
  });
  if (walked) return { bytes: walked.bytes, transient: walked.backwardTransientBytes, note: walked.note };
  if (t) {
    const shape = {
      ...t,
      seq: input.seq,
      microBatch: input.microBatch,
      tensorParallel: input.tensorParallel,
      sequenceParallel: input.sequenceParallel,
      recompute,
      flashAttention: flash,
      dtypes,
    };
    let bytes = transformerActivationBytes({ ...shape, vocab: undefined });
    const sb = input.seq * input.microBatch;
    const tp = Math.max(1, input.tensorParallel ?? 1);
    // Largest gradient temporaries inside a layer: the gradient of the MLP's widest output and of its input.
    let transient = 2 * sb * (t.ffn ?? 4 * t.hidden) * dtypes.matmul;
    if (t.vocab) {
      // Token ids (int64), embedding dropout mask, final norm input and LM-head input (Megatron's
      // compute_activation_memory terms, with dtypes), then the logits and log_softmax output.
      bytes += (8 * sb + sb * t.hidden * (1 + dtypes.residual + dtypes.matmul)) / tp;
      const head = lmHeadActivationBytes({
        seq: input.seq,
        microBatch: input.microBatch,
        vocab: t.vocab,
        dtypes,
      });
      bytes += head.saved / tp;
      transient = Math.max(transient, head.backwardTransient / tp);
    }
    const attn = flash ? 'flash/SDPA attention (no s×s scores)' : 'eager attention (s×s scores kept)';
    const layer = transformerLayerActivationBytes(shape);
    return {
      bytes: Math.round(bytes),
      transient: Math.round(transient),
      note: `activations: per saved tensor as in Korthikanti et al. 2022 Table 2 (${Math.round(layer / (sb * t.hidden))} B × sbh per layer at this precision), recompute ${recompute}, ${attn}`,
    };
  }
  if (model.activationBytesPerSample !== undefined) {
    const bytes = model.activationBytesPerSample * input.microBatch;
    return { bytes, transient: 0, note: 'activations: sum of saved layer outputs × micro-batch' };
  }
  return { bytes: 0, transient: 0, note: 'activations: unknown, not counted (a lower bound)' };
}

/** Memory, communication and assumptions for one strategy on a cluster profile. */
export function estimateTraining(input: TrainingInput): TrainingEstimate {
  const tp = Math.max(1, input.tensorParallel ?? 1);
  const world = input.cluster?.worldSize ?? 1;
  const gpusPerNode = input.cluster?.gpusPerNode ?? 1;
  const dp = Math.max(1, Math.floor(world / tp));
  const model = input.model;
  const params = model.params / tp;
  const trainable = (model.trainableParams ?? model.params) / tp;
  const largest = (model.largestLayerParams ?? defaultLargestLayer(model)) / tp;
  const recompute = recomputeOf(input.activationCheckpointing);
  const activations = activationsFor(input, recompute);
  const offload = input.offload ?? 'none';
  const gradAccumSteps = input.gradAccumSteps ?? 1;

  const memory = estimateMemory({
    strategy: input.strategy,
    precision: input.precision,
    optimizer: input.optimizer,
    params,
    trainableParams: trainable,
    largestLayerParams: largest,
    hiddenSize: model.transformer?.hidden,
    worldSize: dp,
    gpusPerNode: Math.max(1, Math.floor(gpusPerNode / tp)),
    offload,
    activationBytes: activations.bytes,
    gradientAsBucketView: input.gradientAsBucketView,
    modelBufferBytes:
      (model.bufferElements ?? 0) * (input.precision === 'fp32' || isAutocast(input.precision) ? 4 : 2),
    // torch.autocast caches the 16-bit copy of each weight it casts; autograd keeps it for backward.
    backwardTransientBytes:
      activations.transient +
      (isAutocast(input.precision) ? (2 * (model.castWeightParams ?? params)) / tp : 0),
  });
  const per = bytesPerParam({ precision: input.precision, optimizer: input.optimizer, params: trainable });
  const comm = dataParallelComm({
    strategy: input.strategy,
    params: trainable,
    bytesPerElement: per.grads,
    worldSize: dp,
    gpusPerNode: Math.max(1, Math.floor(gpusPerNode / tp)),
    profile: input.cluster,
    gradAccumSteps,
    noSync: input.noSync,
    algorithm: input.allReduceAlgorithm,
  });
  if (tp > 1 && model.transformer) {
    comm.push(
      ...tensorParallelComm({
        ...model.transformer,
        microBatch: input.microBatch,
        seq: input.seq,
        tensorParallel: tp,
        bytesPerElement: activationDtypeBytes(input.precision).matmul,
        sequenceParallel: input.sequenceParallel,
        gradAccumSteps,
        profile: input.cluster,
      }),
    );
  }
  const times = comm.map((c) => c.secondsPerStep);
  const commSecondsPerStep = times.some((s) => s === null)
    ? null
    : times.reduce<number>((a, s) => a + (s ?? 0), 0);
  const deepspeed = deepspeedEstimateFor({
    strategy: input.strategy,
    totalParams: params,
    largestLayerParams: largest,
    gpusPerNode: Math.max(1, Math.floor(gpusPerNode / tp)),
    nodes: input.cluster?.nodes ?? 1,
    offload,
  });

  const precisionText: Record<PrecisionId, string> = {
    fp32: 'fp32 (4-byte weights and grads)',
    'amp-bf16':
      'torch.autocast bf16 (fp32 weights, grads and optimizer state; bf16 matmul/conv outputs; fp32 softmax, norms, loss)',
    'amp-fp16':
      'torch.autocast fp16 (fp32 weights, grads and optimizer state; fp16 matmul/conv outputs; fp32 softmax, norms, loss)',
    bf16: 'bf16 mixed precision (2-byte weights + grads, fp32 master in the optimizer)',
    fp16: 'fp16 mixed precision (2-byte weights + grads, fp32 master in the optimizer)',
    'bf16-pure': 'pure bf16 (weights, grads and optimizer state in bf16, no master copy)',
  };
  const assumptions = [
    `strategy: ${input.strategy}${offload === 'none' ? '' : `, CPU offload of ${offload}`}`,
    `precision: ${precisionText[input.precision]}`,
    `optimizer: ${input.optimizer} (${Number(per.optimizer.toFixed(3))} optimizer bytes/param incl. any fp32 master)`,
    `GPUs: ${input.cluster ? `${world} (${input.cluster.label})` : '1 (no cluster profile)'}${tp > 1 ? `, tensor parallel ${tp}, data parallel ${dp}` : ''}`,
    `sequence length ${input.seq}, micro-batch ${input.microBatch} per GPU, gradient accumulation ${gradAccumSteps}${gradAccumSteps > 1 ? (input.noSync === false ? ' (sync every micro-batch)' : ' (no_sync: one gradient sync per step)') : ''}`,
    `model: ${formatParams(model.params)} params${model.trainableParams !== undefined ? `, ${formatParams(model.trainableParams)} trainable` : ''}, largest layer ${formatParams(largest * tp)}`,
    activations.note,
    'peak: weights + grads + optimizer + activations at the end of forward + backward transient (largest gradient temporaries, fp32 logits gradient, autocast weight cache) + gathered/unsharded layer buffers',
    'bytes in decimal units (1 GB = 1e9 B)',
    ...memory.notes,
    ...(model.lowerBoundCauses ?? []).map((c) => `lower bound: ${c}`),
  ];
  return {
    strategy: input.strategy,
    memory,
    comm,
    commSecondsPerStep,
    fits: input.cluster ? memory.peak <= input.cluster.gpu.memoryBytes : null,
    deepspeed,
    assumptions,
    lowerBound: (model.lowerBoundCauses?.length ?? 0) > 0,
  };
}

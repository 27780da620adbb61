// Activation memory: transformer layers per Korthikanti et al. 2022 (arXiv:2205.05198, Table 2),
// the embedding and logits/cross-entropy terms as Megatron-LM's theoretical_memory_usage.py adds
// them, and generic layer stacks as the sum of the saved output tensors.

/** Activation checkpointing: none, selective (attention core recomputed), full (layer input only). */
export type RecomputeId = 'none' | 'selective' | 'full';

/** Shape of a transformer for activation formulas. */
export interface TransformerShape {
  layers: number;
  hidden: number;
  heads: number;
  kvHeads?: number;
  /** MLP inner size; default 4·hidden. */
  ffn?: number;
  vocab?: number;
}

/** Bytes per element of saved activations by kind (see memory.ts activationDtypeBytes). */
export interface ActivationDtypes {
  /** Outputs of linear/matmul/conv (16-bit under autocast). */
  matmul: number;
  /** Softmax output, norm and loss inputs (fp32 under autocast). */
  fp32ops: number;
  /** The residual stream (fp32 under autocast: a 16-bit output added to fp32 stays fp32). */
  residual: number;
}

/** Korthikanti et al.'s setting: every activation 16-bit. */
export const SIXTEEN_BIT: ActivationDtypes = { matmul: 2, fp32ops: 2, residual: 2 };

export interface TransformerActivationInput extends TransformerShape {
  seq: number;
  microBatch: number;
  /** Tensor-parallel size t (default 1). */
  tensorParallel?: number;
  /** Megatron sequence parallelism (with t > 1). */
  sequenceParallel?: boolean;
  recompute?: RecomputeId;
  /** Flash/SDPA attention: the s×s scores are not stored, the 5as/h term disappears. */
  flashAttention?: boolean;
  /** Bytes per element by kind; default 16-bit everywhere (the paper's setting). */
  dtypes?: ActivationDtypes;
  /** Bytes per element of a dropout mask: 1 (bool, CUDA) by default. */
  maskBytes?: number;
}

/**
 * Bytes of activations one transformer layer keeps for backward (Korthikanti et al., Table 2 and
 * §4.1), with Megatron's generalisation 34 = 18 + 4·ffn/h, written per saved tensor so that the
 * dtypes can differ (r = ffn/h, act = matmul-output bytes, res = residual bytes, m = mask bytes):
 *   replicated under TP:  2·res (two norm inputs) + 2·act (QKV and MLP inputs) + 2·m (masks)
 *   sharded under TP:     4·act (Q, K, V, projection input) + 2·r·act (GELU input, fc2 input)
 *   attention core:       as/h·(softmax output fp32ops + mask m + softmax·V input act)
 * 16-bit: 10 + 24 = 34 and 5as/h, the paper's figures; settings:
 *   none: sbh(rep + sh + core)   TP: sbh(rep + (sh + core)/t)   TP + SP: sbh/t·(rep + sh + core)
 *   selective: the core is recomputed;  full recompute: the layer input, 2sbh (res bytes).
 * Flash/SDPA: no s×s tensor; the kernel saves its output (act·sbh) and the fp32 logsumexp (4·abs).
 */
export function transformerLayerActivationBytes(input: Omit<TransformerActivationInput, 'layers'>): number {
  const { seq: s, microBatch: b, hidden: h, heads: a } = input;
  const t = input.tensorParallel ?? 1;
  const sp = (input.sequenceParallel ?? false) && t > 1;
  const recompute = input.recompute ?? 'none';
  const d = input.dtypes ?? SIXTEEN_BIT;
  const m = input.maskBytes ?? 1;
  const sbh = s * b * h;
  if (recompute === 'full') return sp ? (d.residual * sbh) / t : d.residual * sbh;
  const ffnRatio = (input.ffn ?? 4 * h) / h;
  const replicated = 2 * d.residual + 2 * d.matmul + 2 * m;
  let sharded = 4 * d.matmul + 2 * ffnRatio * d.matmul;
  let core = 0;
  if (input.flashAttention) {
    sharded += d.matmul + (4 * a) / h;
  } else if (recompute !== 'selective') {
    core = ((a * s) / h) * (d.fp32ops + m + d.matmul);
  }
  if (sp || t === 1) return (sbh / t) * (replicated + sharded + core);
  // Tensor parallel without SP: norm inputs, dropout masks and the block inputs are replicated.
  return sbh * (replicated + (sharded + core) / t);
}

/**
 * Embedding and output terms of Megatron-LM's `compute_activation_memory` (theoretical_memory_usage.py),
 * first pipeline stage, for pp = 1: 8sb (int64 token ids) + sbh (embedding dropout) and
 * 4sbh(1 + v/h) (input of the output layer and fp32 logits for cross-entropy), all divided by t.
 * With pp > 1 the first stage holds p micro-batches of the embedding terms and no logits.
 */
export function embeddingAndLogitsActivationBytes(input: {
  seq: number;
  microBatch: number;
  hidden: number;
  vocab: number;
  tensorParallel?: number;
  pipelineParallel?: number;
}): number {
  const { seq: s, microBatch: b, hidden: h, vocab: v } = input;
  const t = input.tensorParallel ?? 1;
  const p = input.pipelineParallel ?? 1;
  let bytes = 8 * s * b * p + s * b * h * p;
  if (p === 1) bytes += 4 * s * b * h * (1 + v / h);
  return bytes / t;
}

/**
 * An LM head trained with `F.cross_entropy` (= log_softmax + nll_loss, torch.nn.functional docs):
 * the logits the model returns (matmul dtype, held by the caller) and log_softmax's saved output
 * (derivatives.yaml saves `result`; autocast runs log_softmax/cross_entropy in fp32), s·b·v each.
 * Backward transient: the gradients of log_softmax's output and input live together, 2·s·b·v
 * elements in the fp32ops dtype.
 */
export function lmHeadActivationBytes(input: {
  seq: number;
  microBatch: number;
  vocab: number;
  dtypes?: ActivationDtypes;
}): { saved: number; backwardTransient: number } {
  const d = input.dtypes ?? SIXTEEN_BIT;
  const sbv = input.seq * input.microBatch * input.vocab;
  return { saved: sbv * (d.matmul + d.fp32ops), backwardTransient: 2 * sbv * d.fp32ops };
}

/**
 * Whole-model activations for one micro-batch: layers × per-layer + embedding/logits (when vocab
 * is known). Full recompute additionally re-materialises one layer's activations during its
 * backward, counted once. Megatron's theoretical_memory_usage.py is this with SP + selective.
 */
export function transformerActivationBytes(
  input: TransformerActivationInput & { pipelineParallel?: number },
): number {
  const p = input.pipelineParallel ?? 1;
  const layersPerStage = Math.ceil(input.layers / p);
  // 1F1B: the first stage holds p micro-batches in flight (Megatron, non-interleaved schedule).
  let bytes = layersPerStage * transformerLayerActivationBytes(input) * p;
  if (input.recompute === 'full') bytes += transformerLayerActivationBytes({ ...input, recompute: 'none' });
  if (input.vocab)
    bytes += embeddingAndLogitsActivationBytes({ ...input, vocab: input.vocab, pipelineParallel: p });
  return Math.round(bytes);
}

/** A layer of a generic stack: its output size and whether autograd keeps it for backward. */
export interface StackLayer {
  outputElements: number;
  /** Default 2 (16-bit activations). */
  bytesPerElement?: number;
  /** Default true; false for outputs no backward needs (e.g. under no_grad, or in-place ops). */
  saved?: boolean;
}

/** Activations of a generic layer stack: the sum of the output bytes of the saved tensors, × micro-batch. */
export function layerStackActivationBytes(opts: { layers: StackLayer[]; microBatch?: number }): number {
  const perSample = opts.layers
    .filter((l) => l.saved ?? true)
    .reduce((sum, l) => sum + l.outputElements * (l.bytesPerElement ?? 2), 0);
  return Math.round(perSample * (opts.microBatch ?? 1));
}

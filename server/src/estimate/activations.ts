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
}

/**
 * Bytes of activations one transformer layer keeps for backward, 16-bit activations and 1-byte
 * dropout masks (Korthikanti et al., Table 2), with Megatron's generalisation 34 = 18 + 4·ffn/h:
 *   none:            sbh(34 + 5as/h)
 *   TP:              sbh(10 + 24/t + 5as/(ht))        (24 = 8 + 4·ffn/h)
 *   TP + SP:         (sbh/t)(34 + 5as/h)
 *   selective:       the 5as/h term is recomputed (TP + SP + selective = 34sbh/t)
 *   full recompute:  2sbh (the layer input; /t with SP)
 * Flash attention drops 5as/h as selective recompute does. GQA (kvHeads) and SwiGLU MLPs are not
 * modelled separately: the formula is the GPT-style layer.
 */
export function transformerLayerActivationBytes(input: Omit<TransformerActivationInput, 'layers'>): number {
  const { seq: s, microBatch: b, hidden: h, heads: a } = input;
  const t = input.tensorParallel ?? 1;
  const sp = (input.sequenceParallel ?? false) && t > 1;
  const recompute = input.recompute ?? 'none';
  const sbh = s * b * h;
  if (recompute === 'full') return sp ? (2 * sbh) / t : 2 * sbh;
  const ffnRatio = (input.ffn ?? 4 * h) / h;
  const linear = 18 + 4 * ffnRatio; // 34 for ffn = 4h
  const attention = recompute === 'selective' || input.flashAttention ? 0 : (5 * a * s) / h;
  if (sp || t === 1) return (sbh / t) * (linear + attention);
  // Tensor parallel without SP: LayerNorm/dropout/input terms (10sbh) are replicated.
  return sbh * (10 + (linear - 10) / t + attention / t);
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

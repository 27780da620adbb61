// What each tensor op returns and what autograd saves for its backward, from PyTorch's
// derivatives.yaml (tools/autograd/derivatives.yaml: the tensors each backward formula reads)
// and the autocast op lists (pytorch.org/docs/stable/amp.html, "CUDA Op-Specific Behavior").
// Shared by torch functions, Tensor methods and nn layers (layer-ops.ts).
import type { Trace } from './trace';
import {
  DTYPE_BYTES,
  broadcast,
  dimIndex,
  foldsWithoutCopy,
  fresh,
  numel,
  reshape,
  type Dtype,
  type FTensor,
} from './tensor';

const bytesOf = (t: FTensor): number => numel(t.shape) * DTYPE_BYTES[t.dtype];

/** A new output of `shape` from `inputs` (requires grad when any input does). */
export function output(
  trace: Trace,
  shape: number[],
  dtype: Dtype,
  ...inputs: (FTensor | undefined)[]
): FTensor {
  const t = fresh({ shape, dtype, requiresGrad: trace.tracks(...inputs) });
  if (t.requiresGrad) trace.gradTemporaries(2 * bytesOf(t));
  return t;
}

/** Linear (F.linear / nn.Linear, autocast "lower"): saves the (cast) input; weight cast cached. */
export function linear(
  trace: Trace,
  input: { x: FTensor; inFeatures: number; outFeatures: number; weightParams: number },
): FTensor {
  const x = trace.castFor(input.x, 'lower');
  // The weight requires grad, so its gradient needs the input (addmm saves mat1).
  if (trace.noGrad === 0) trace.save(x);
  trace.castWeightParams += input.weightParams;
  const shape = [...x.shape.slice(0, -1), input.outFeatures];
  const out = fresh({
    shape,
    dtype: x.dtype === 'f32' || x.dtype === 'bf16' || x.dtype === 'f16' ? x.dtype : trace.paramDtype,
    requiresGrad: trace.noGrad === 0,
  });
  if (out.requiresGrad) trace.gradTemporaries(2 * bytesOf(out));
  return out;
}

/** Batched matmul (`@`, matmul, bmm, mm; autocast "lower"): saves both operands, copies where folding needs it. */
export function matmul(trace: Trace, a: FTensor, b: FTensor): FTensor | undefined {
  let x = trace.castFor(a, 'lower');
  let y = trace.castFor(b, 'lower');
  const ra = x.shape.length;
  const rb = y.shape.length;
  if (ra < 1 || rb < 1) return undefined;
  if (x.shape[ra - 1] !== y.shape[rb >= 2 ? rb - 2 : 0]) return undefined;
  const batch = broadcast(x.shape.slice(0, -2), y.shape.slice(0, -2));
  if (!batch) return undefined;
  // NOTE: matmul folds batch dims with reshape; a non-foldable view is copied and the copy saved.
  if (ra > 2 && !foldsWithoutCopy(x)) x = reshape({ ...x, perm: x.perm.map(() => -1) }, x.shape);
  if (rb > 2 && !foldsWithoutCopy(y)) y = reshape({ ...y, perm: y.perm.map(() => -1) }, y.shape);
  const shape = [...batch, ...(ra >= 2 ? [x.shape[ra - 2]] : []), ...(rb >= 2 ? [y.shape[rb - 1]] : [])];
  if (trace.tracks(a, b)) {
    if (b.requiresGrad) trace.save(x);
    if (a.requiresGrad) trace.save(y);
  }
  return output(trace, shape, trace.promote(x, y), a, b);
}

/** Elementwise binary op: add/sub save nothing; mul saves each operand the other's gradient needs; div both. */
export function binary(
  trace: Trace,
  op: 'add' | 'sub' | 'mul' | 'div',
  a: FTensor | number,
  b: FTensor | number,
): FTensor | undefined {
  const ta = typeof a === 'number' ? undefined : a;
  const tb = typeof b === 'number' ? undefined : b;
  const shape = ta && tb ? broadcast(ta.shape, tb.shape) : (ta ?? tb)?.shape;
  if (!shape) return undefined;
  if (trace.tracks(ta, tb)) {
    if (op === 'mul') {
      if (ta?.requiresGrad) trace.save(tb);
      if (tb?.requiresGrad) trace.save(ta);
    } else if (op === 'div' && tb) {
      trace.save(tb);
      if (tb.requiresGrad) trace.save(ta);
    }
  }
  return output(trace, shape, trace.promote(ta, tb), ta, tb);
}

/** Which tensor a unary op's backward reads: its input, its output, or nothing. */
export type UnarySave = 'input' | 'output' | 'none';

/** Pointwise unary ops and what derivatives.yaml saves for them. */
export const UNARY: Record<string, UnarySave> = {
  gelu: 'input',
  silu: 'input',
  mish: 'input',
  hardswish: 'input',
  hardsigmoid: 'input',
  softplus: 'input',
  elu: 'output',
  selu: 'output',
  celu: 'output',
  leaky_relu: 'input',
  relu: 'output',
  relu6: 'input',
  hardtanh: 'input',
  sigmoid: 'output',
  tanh: 'output',
  exp: 'output',
  log: 'input',
  sqrt: 'output',
  rsqrt: 'output',
  sin: 'input',
  cos: 'input',
  abs: 'input',
  neg: 'none',
  clamp: 'input',
  square: 'input',
  reciprocal: 'output',
  erf: 'input',
  logsigmoid: 'input',
};

/** Unary ops autocast runs in fp32 (autocast docs' float32 list). */
const FP32_UNARY = new Set(['exp', 'log', 'rsqrt', 'reciprocal', 'softplus', 'pow', 'erf']);

/** A pointwise unary op; `inplace` writes into the input's storage (ReLU(inplace=True)). */
export function unary(trace: Trace, input: { name: string; x: FTensor; inplace?: boolean }): FTensor {
  const save = UNARY[input.name] ?? 'input';
  const x = trace.castFor(input.x, FP32_UNARY.has(input.name) ? 'fp32' : 'promote');
  const out = input.inplace ? { ...x, requiresGrad: trace.tracks(x) } : output(trace, x.shape, x.dtype, x);
  if (trace.tracks(x)) {
    // An in-place op whose backward needs its input keeps a copy of it (measured: torch 1.13
    // saves a clone for ReLU6/Hardswish(inplace=True)).
    if (save === 'input')
      trace.save(input.inplace ? fresh({ shape: x.shape, dtype: x.dtype, requiresGrad: false }) : x);
    else if (save === 'output') trace.save(out);
  }
  return out;
}

/** softmax / log_softmax (autocast fp32): saves the output. */
export function softmax(trace: Trace, x: FTensor): FTensor {
  const cast = trace.castFor(x, 'fp32');
  const out = output(trace, cast.shape, cast.dtype, x);
  if (trace.tracks(x)) trace.save(out);
  return out;
}

/** Dropout in training: the mask (bool on CUDA); p = 0 or eval is the identity. */
export function dropout(trace: Trace, input: { x: FTensor; p: number; training: boolean }): FTensor {
  const { x, p, training } = input;
  if (!training || p === 0) return x;
  const out = output(trace, x.shape, x.dtype, x);
  if (trace.tracks(x)) trace.saveNew(x.shape, trace.maskDtype(x.dtype));
  return out;
}

/**
 * torchvision.ops.stochastic_depth (torchvision/ops/stochastic_depth.py): in training with p > 0 it
 * draws a noise tensor of the input's dtype, [N, 1, …] for mode "row" or [1, …] for "batch", and
 * returns `input * noise`; mul saves the operand the other's gradient needs, the noise only (it
 * needs no gradient). Otherwise it returns its input.
 */
export function stochasticDepth(
  trace: Trace,
  input: { x: FTensor; p: number; row: boolean; training: boolean },
): FTensor {
  const { x, p, row, training } = input;
  if (!training || p === 0) return x;
  const out = output(trace, x.shape, x.dtype, x);
  if (trace.tracks(x))
    trace.saveNew([row ? (x.shape[0] ?? 1) : 1, ...x.shape.slice(1).map(() => 1)], x.dtype);
  return out;
}

/** layer_norm / group_norm / rms_norm (autocast fp32): saves the input and per-row mean and rstd. */
export function norm(trace: Trace, input: { x: FTensor; rows: number; withMean: boolean }): FTensor {
  const x = trace.castFor(input.x, 'fp32');
  const out = output(trace, x.shape, x.dtype, x);
  if (out.requiresGrad || trace.noGrad === 0) {
    trace.save(x);
    trace.saveNew([input.rows * (input.withMean ? 2 : 1)], 'f32');
  }
  return out;
}

/** batch_norm in training: saves the input and per-channel mean and invstd (fp32); output in input dtype. */
export function batchNorm(trace: Trace, x: FTensor): FTensor {
  const out = output(trace, x.shape, x.dtype, x);
  if (trace.noGrad === 0) {
    trace.save(x);
    trace.saveNew([2 * (x.shape[1] ?? 1)], 'f32');
  }
  return out;
}

/** Output size of a convolution or pooling window along one dim. */
export function windowSize(input: {
  size: number;
  kernel: number;
  stride: number;
  padding: number;
  dilation: number;
  ceil?: boolean;
}): number {
  const { size, kernel, stride, padding, dilation } = input;
  const span = size + 2 * padding - dilation * (kernel - 1) - 1;
  const n = (input.ceil ? Math.ceil(span / stride) : Math.floor(span / stride)) + 1;
  // ceil_mode: the last window must start inside the input or left padding (torch pooling_shape).
  return input.ceil && (n - 1) * stride >= size + padding ? n - 1 : n;
}

/** conv{1,2,3}d (autocast "lower"): saves the (cast) input. */
export function conv(
  trace: Trace,
  input: {
    x: FTensor;
    outChannels: number;
    kernel: number[];
    stride: number[];
    padding: number[];
    dilation: number[];
    weightParams: number;
  },
): FTensor | undefined {
  const x = trace.castFor(input.x, 'lower');
  const dims = input.kernel.length;
  const spatial = x.shape.slice(-dims);
  if (spatial.length !== dims) return undefined;
  const out = spatial.map((size, i) =>
    windowSize({
      size,
      kernel: input.kernel[i],
      stride: input.stride[i],
      padding: input.padding[i],
      dilation: input.dilation[i],
    }),
  );
  if (trace.noGrad === 0) trace.save(x);
  trace.castWeightParams += input.weightParams;
  const shape = [...x.shape.slice(0, -dims - 1), input.outChannels, ...out];
  const result = fresh({ shape, dtype: x.dtype, requiresGrad: trace.noGrad === 0 });
  if (result.requiresGrad) trace.gradTemporaries(2 * bytesOf(result));
  return result;
}

/** max/avg pooling: max saves input and int64 indices; avg and adaptive avg save the input. */
export function pool(trace: Trace, input: { x: FTensor; outSpatial: number[]; max: boolean }): FTensor {
  const { x } = input;
  const dims = input.outSpatial.length;
  const shape = [...x.shape.slice(0, -dims), ...input.outSpatial];
  const out = output(trace, shape, x.dtype, x);
  if (trace.tracks(x)) {
    trace.save(x);
    if (input.max) trace.saveNew(shape, 'i64');
  }
  return out;
}

/** Embedding: saves the int64 indices (the weight gradient needs them). */
export function embedding(trace: Trace, input: { ids: FTensor; dim: number }): FTensor {
  if (trace.noGrad === 0) trace.save(input.ids);
  return fresh({
    shape: [...input.ids.shape, input.dim],
    dtype: trace.paramDtype,
    requiresGrad: trace.noGrad === 0,
  });
}

/**
 * cross_entropy = log_softmax + nll_loss (autocast fp32): log_softmax saves its fp32 output and
 * nll_loss the targets. Backward holds the gradients of log_softmax's output and input together.
 */
export function crossEntropy(trace: Trace, input: { logits: FTensor; target?: FTensor }): FTensor {
  const logits = trace.castFor(input.logits, 'fp32');
  const logp = fresh({ shape: logits.shape, dtype: logits.dtype, requiresGrad: true });
  if (trace.tracks(input.logits)) {
    trace.save(logp);
    trace.save(input.target);
    trace.gradTemporaries(2 * bytesOf(logp));
  }
  trace.lossSeen = true;
  return fresh({ shape: [], dtype: 'f32', requiresGrad: input.logits.requiresGrad });
}

/** mse/l1/smooth-l1/bce-with-logits: save input and target. */
export function pointLoss(trace: Trace, input: { x: FTensor; target?: FTensor }): FTensor {
  const x = trace.castFor(input.x, 'fp32');
  if (trace.tracks(input.x)) {
    trace.save(x);
    trace.save(input.target);
  }
  trace.lossSeen = true;
  return fresh({ shape: [], dtype: 'f32', requiresGrad: input.x.requiresGrad });
}

/**
 * scaled_dot_product_attention on the flash / memory-efficient kernels: saves q, k, v (views of
 * the projection, no copy), the output and an fp32 logsumexp per query; no T×T tensor.
 */
export function sdpa(trace: Trace, input: { q: FTensor; k: FTensor; v: FTensor }): FTensor {
  const q = trace.castFor(input.q, 'lower');
  const k = trace.castFor(input.k, 'lower');
  const v = trace.castFor(input.v, 'lower');
  const shape = [...q.shape.slice(0, -1), v.shape[v.shape.length - 1]];
  const out = output(trace, shape, q.dtype, input.q, input.k, input.v);
  if (trace.tracks(input.q, input.k, input.v)) {
    for (const t of [q, k, v, out]) trace.save(t);
    trace.saveNew(q.shape.slice(0, -1), 'f32');
  }
  trace.flash = true;
  return out;
}

/** Sizes of a dim split into chunks of `size` (split) or into `n` parts (chunk). */
export function splitSizes(
  total: number,
  input: { size?: number; parts?: number; sizes?: number[] },
): number[] {
  if (input.sizes) return input.sizes;
  const size = input.size ?? Math.ceil(total / (input.parts ?? 1));
  const out: number[] = [];
  for (let start = 0; start < total; start += size) out.push(Math.min(size, total - start));
  return out;
}

/** Shape after indexing one dim away. */
export function dropDim(shape: number[], dim: number): number[] {
  const d = dimIndex(dim, shape.length);
  return shape.filter((_, i) => i !== d);
}

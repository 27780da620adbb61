// Calls of torch.nn layers in the forward walk: each layer's forward written with the ops of
// ops.ts, reading its constructor arguments (stride, padding, p, inplace) as the PyTorch docs
// define them. Composite layers (MultiheadAttention, TransformerEncoderLayer) follow
// torch.nn.functional.multi_head_attention_forward and TransformerEncoderLayer.forward.
import type { ModuleInstance } from '../modules/module-instance';
import { asNumber, type Value } from '../modules/values';
import * as op from './ops';
import { fresh, transpose, view, type FTensor } from './tensor';
import type { Trace } from './trace';

/** A walker value: an interpreter value or a symbolic tensor. */
export type FValue = Value | FTensor;

const isTensor = (v: FValue | undefined): v is FTensor => v?.kind === 'ftensor';

/** A constructor argument by name or position (catalog layers keep their evaluated arguments). */
function ctorArg(m: ModuleInstance, name: string, index: number): Value | undefined {
  const args = m.constructorArgs;
  return args?.keywords.get(name) ?? args?.positional[index];
}

function ctorNumber(m: ModuleInstance, name: string, index: number, fallback: number): number | undefined {
  const v = ctorArg(m, name, index);
  if (v === undefined || v.kind === 'none') return fallback;
  return asNumber(v);
}

function ctorDims(
  m: ModuleInstance,
  input: { name: string; index: number; dims: number; fallback?: number },
): number[] | undefined {
  const v = ctorArg(m, input.name, input.index);
  if (v === undefined || v.kind === 'none')
    return input.fallback === undefined ? undefined : Array(input.dims).fill(input.fallback);
  if (v.kind === 'seq') {
    const items = v.items.map((i) => asNumber(i));
    return items.every((i) => i !== undefined) ? (items as number[]) : undefined;
  }
  const n = asNumber(v);
  return n === undefined ? undefined : Array(input.dims).fill(n);
}

const flag = (m: ModuleInstance, name: string, index: number): boolean => {
  const v = ctorArg(m, name, index);
  return v?.kind === 'bool' ? v.value : false;
};

const cfg = (m: ModuleInstance, key: string): number | undefined => {
  const v = m.layerConfig?.[key];
  return typeof v === 'number' ? v : undefined;
};

const paramCount = (m: ModuleInstance, name: string): number => m.params.get(name)?.numel ?? 0;

/** The index of the `inplace` argument in each activation's signature (pytorch.org/docs nn pages). */
const INPLACE_INDEX: Record<string, number> = {
  ReLU: 0,
  ReLU6: 0,
  SiLU: 0,
  Hardswish: 0,
  Hardsigmoid: 0,
  Mish: 0,
  SELU: 0,
  ELU: 1,
  CELU: 1,
  LeakyReLU: 1,
  Hardtanh: 2,
};
const UNARY_LAYERS: Record<string, string> = {
  ReLU: 'relu',
  ReLU6: 'relu6',
  GELU: 'gelu',
  SiLU: 'silu',
  Mish: 'mish',
  Hardswish: 'hardswish',
  Hardsigmoid: 'hardsigmoid',
  Sigmoid: 'sigmoid',
  Tanh: 'tanh',
  ELU: 'elu',
  SELU: 'selu',
  CELU: 'celu',
  LeakyReLU: 'leaky_relu',
  Hardtanh: 'hardtanh',
  Softplus: 'softplus',
  LogSigmoid: 'logsigmoid',
};

/** Runs a catalog layer on its arguments; undefined (with a cause) when the layer is not modelled. */
export function callLayer(
  trace: Trace,
  input: { module: ModuleInstance; args: FValue[]; keywords: Map<string, FValue>; training: boolean },
): FValue | undefined {
  const { module: m, args, keywords } = input;
  const type = m.typeName;
  // The first input by position or by its forward's parameter name (`query=` for attention).
  const x = args[0] ?? keywords.get('input') ?? keywords.get('query') ?? keywords.get('src');
  if (!isTensor(x)) return undefined;
  const unaryName = UNARY_LAYERS[type];
  if (unaryName) {
    const inplace = type in INPLACE_INDEX && flag(m, 'inplace', INPLACE_INDEX[type]);
    return op.unary(trace, { name: unaryName, x, inplace });
  }
  switch (type) {
    case 'Identity':
      return x;
    case 'Linear': {
      const outF = cfg(m, 'out_features');
      if (outF === undefined) return undefined;
      return op.linear(trace, {
        x,
        inFeatures: x.shape[x.shape.length - 1],
        outFeatures: outF,
        weightParams: paramCount(m, 'weight'),
      });
    }
    case 'Conv1d':
    case 'Conv2d':
    case 'Conv3d': {
      const dims = Number(type[4]);
      const kernel = ctorDims(m, { name: 'kernel_size', index: 2, dims });
      const stride = ctorDims(m, { name: 'stride', index: 3, dims, fallback: 1 });
      const paddingValue = ctorArg(m, 'padding', 4);
      const dilation = ctorDims(m, { name: 'dilation', index: 5, dims, fallback: 1 });
      const outC = cfg(m, 'out_channels');
      if (!kernel || !stride || !dilation || outC === undefined) return undefined;
      let padding: number[] | undefined;
      if (paddingValue?.kind === 'str')
        padding =
          paddingValue.value === 'same'
            ? kernel.map((k, i) => (dilation[i] * (k - 1)) / 2)
            : kernel.map(() => 0);
      else padding = ctorDims(m, { name: 'padding', index: 4, dims, fallback: 0 });
      if (!padding) return undefined;
      return op.conv(trace, {
        x,
        outChannels: outC,
        kernel,
        stride,
        padding,
        dilation,
        weightParams: paramCount(m, 'weight'),
      });
    }
    case 'BatchNorm1d':
    case 'BatchNorm2d':
    case 'BatchNorm3d':
    case 'SyncBatchNorm':
      return op.batchNorm(trace, x);
    case 'LayerNorm': {
      const shape = m.layerConfig?.normalized_shape;
      const dims = Array.isArray(shape) ? shape.length : 1;
      const rows = x.shape.slice(0, x.shape.length - dims).reduce((a, d) => a * d, 1);
      return op.norm(trace, { x, rows, withMean: true });
    }
    case 'RMSNorm':
      return op.norm(trace, { x, rows: x.shape.slice(0, -1).reduce((a, d) => a * d, 1), withMean: false });
    case 'GroupNorm': {
      const groups = ctorNumber(m, 'num_groups', 0, 1) ?? 1;
      return op.norm(trace, { x, rows: (x.shape[0] ?? 1) * groups, withMean: true });
    }
    case 'Embedding':
      return op.embedding(trace, { ids: x, dim: cfg(m, 'embedding_dim') ?? 0 });
    case 'Dropout':
    case 'Dropout1d':
    case 'Dropout2d':
    case 'Dropout3d': {
      const p = ctorNumber(m, 'p', 0, 0.5);
      if (p === undefined) return undefined;
      return op.dropout(trace, { x, p, training: input.training });
    }
    case 'StochasticDepth': {
      const p = ctorNumber(m, 'p', 0, Number.NaN);
      const mode = ctorArg(m, 'mode', 1);
      if (p === undefined || Number.isNaN(p) || mode?.kind !== 'str') return undefined;
      return op.stochasticDepth(trace, { x, p, row: mode.value === 'row', training: input.training });
    }
    case 'Softmax':
    case 'LogSoftmax':
      return op.softmax(trace, x);
    case 'Flatten': {
      const start = ctorNumber(m, 'start_dim', 0, 1) ?? 1;
      const end = ctorNumber(m, 'end_dim', 1, -1) ?? -1;
      return flatten(x, start, end);
    }
    case 'MaxPool1d':
    case 'MaxPool2d':
    case 'MaxPool3d':
    case 'AvgPool1d':
    case 'AvgPool2d':
    case 'AvgPool3d':
      return poolLayer(trace, m, x);
    case 'AdaptiveAvgPool1d':
    case 'AdaptiveAvgPool2d':
    case 'AdaptiveAvgPool3d':
    case 'AdaptiveMaxPool1d':
    case 'AdaptiveMaxPool2d':
    case 'AdaptiveMaxPool3d': {
      const dims = Number(type.slice(-2, -1));
      const out = ctorDims(m, { name: 'output_size', index: 0, dims });
      if (!out) return undefined;
      const spatial = x.shape.slice(-dims).map((s, i) => out[i] ?? s);
      return op.pool(trace, { x, outSpatial: spatial, max: type.startsWith('AdaptiveMax') });
    }
    case 'CrossEntropyLoss':
      return op.crossEntropy(trace, { logits: x, target: isTensor(args[1]) ? args[1] : undefined });
    case 'MSELoss':
    case 'L1Loss':
    case 'SmoothL1Loss':
    case 'HuberLoss':
    case 'BCEWithLogitsLoss':
      return op.pointLoss(trace, { x, target: isTensor(args[1]) ? args[1] : undefined });
    case 'MultiheadAttention':
      return multiheadAttention(trace, { m, q: x, keywords, training: input.training });
    case 'TransformerEncoderLayer':
      return encoderLayer(trace, { m, x, training: input.training });
    case 'TransformerEncoder': {
      // TransformerEncoder.forward: each layer in turn, then the optional final norm.
      let h: FTensor | undefined = x;
      for (const layer of m.children.get('layers')?.children.values() ?? [])
        h = h && encoderLayer(trace, { m: layer, x: h, training: input.training });
      const final = m.children.get('norm');
      if (h && final) {
        const normed = callLayer(trace, {
          module: final,
          args: [h],
          keywords: new Map(),
          training: input.training,
        });
        return isTensor(normed) ? normed : undefined;
      }
      return h;
    }
    default:
      return undefined;
  }
}

/** torch.flatten(x, start, end): a view of contiguous input (else a copy). */
export function flatten(x: FTensor, start: number, end: number): FTensor {
  const rank = x.shape.length;
  const s = start < 0 ? start + rank : start;
  const e = end < 0 ? end + rank : end;
  const merged = x.shape.slice(s, e + 1).reduce((a, d) => a * d, 1);
  const shape = [...x.shape.slice(0, s), merged, ...x.shape.slice(e + 1)];
  const moved = x.perm.some((p, i) => p !== i && x.shape[i] !== 1);
  return moved ? fresh({ shape, dtype: x.dtype, requiresGrad: x.requiresGrad }) : view(x, shape);
}

function poolLayer(trace: Trace, m: ModuleInstance, x: FTensor): FTensor | undefined {
  const dims = Number(m.typeName.slice(-2, -1));
  const max = m.typeName.startsWith('Max');
  const kernel = ctorDims(m, { name: 'kernel_size', index: 0, dims });
  if (!kernel) return undefined;
  const stride = ctorDims(m, { name: 'stride', index: 1, dims }) ?? kernel;
  const padding = ctorDims(m, { name: 'padding', index: 2, dims, fallback: 0 });
  const dilation = max ? ctorDims(m, { name: 'dilation', index: 3, dims, fallback: 1 }) : Array(dims).fill(1);
  const ceil = flag(m, 'ceil_mode', max ? 5 : 3);
  if (!padding || !dilation) return undefined;
  const spatial = x.shape.slice(-dims).map((size, i) =>
    op.windowSize({
      size,
      kernel: kernel[i],
      stride: stride[i],
      padding: padding[i],
      dilation: dilation[i],
      ceil,
    }),
  );
  return op.pool(trace, { x, outSpatial: spatial, max });
}

/**
 * nn.MultiheadAttention as F.multi_head_attention_forward runs it in training: one packed input
 * projection (saves the input; its output is copied contiguous and split into q, k, v), then
 * either SDPA (torch ≥ 2.0 with need_weights=False) or the eager path: q scaled (a new tensor),
 * bmm(q, kᵀ) saves both, softmax saves its output, dropout its mask, bmm(attn, v) saves attn and
 * v; the heads are copied contiguous for out_proj, which saves that copy.
 */
function multiheadAttention(
  trace: Trace,
  input: { m: ModuleInstance; q: FTensor; keywords: Map<string, FValue>; training: boolean },
): FValue | undefined {
  const { m, q, training } = input;
  const e = cfg(m, 'embed_dim');
  const heads = cfg(m, 'num_heads');
  if (e === undefined || heads === undefined || q.shape.length !== 3) return undefined;
  const batchFirst = flag(m, 'batch_first', 8);
  const [t, b] = batchFirst ? [q.shape[1], q.shape[0]] : [q.shape[0], q.shape[1]];
  const need = input.keywords.get('need_weights');
  const needWeights = !(need?.kind === 'bool' && !need.value);
  const p = ctorNumber(m, 'dropout', 2, 0) ?? 0;
  const proj = op.linear(trace, {
    x: q,
    inFeatures: e,
    outFeatures: 3 * e,
    weightParams: paramCount(m, 'in_proj_weight'),
  });
  // torch ≥ 2.0 copies the packed projection contiguous once (q, k, v are views of it); 1.13
  // copies q, k and v separately (`q.contiguous().view(...)`): the same bytes, other storages.
  const packed = fresh({ shape: [3, t, b, e], dtype: proj.dtype, requiresGrad: proj.requiresGrad });
  const hd = e / heads;
  const part = (): FTensor => {
    const own = trace.sdpa
      ? packed
      : fresh({ shape: [t, b, e], dtype: proj.dtype, requiresGrad: proj.requiresGrad });
    return { ...view(own, [b * heads, t, hd]), perm: [1, 0, 2] };
  };
  let out: FTensor;
  if (!needWeights && trace.sdpa) {
    const heads4 = view(packed, [b, heads, t, hd]);
    out = op.sdpa(trace, { q: heads4, k: heads4, v: heads4 });
  } else {
    const scaled = op.binary(trace, 'mul', part(), 0.125)!;
    const scores = op.matmul(trace, scaled, transpose(part(), -2, -1))!;
    let attn = op.softmax(trace, scores);
    attn = op.dropout(trace, { x: attn, p, training });
    out = op.matmul(trace, attn, part())!;
  }
  const merged = fresh({ shape: [t * b, e], dtype: out.dtype, requiresGrad: out.requiresGrad });
  const result = op.linear(trace, { x: merged, inFeatures: e, outFeatures: e, weightParams: e * e });
  const shaped = view(result, batchFirst ? [b, t, e] : [t, b, e]);
  return { kind: 'seq', items: [shaped as unknown as Value, { kind: 'none' }], tuple: true };
}

/** TransformerEncoderLayer.forward in training (post-norm by default; norm_first pre-norm). */
function encoderLayer(
  trace: Trace,
  input: { m: ModuleInstance; x: FTensor; training: boolean },
): FTensor | undefined {
  const { m, training } = input;
  const child = (name: string) => m.children.get(name);
  const p = ctorNumber(m, 'dropout', 3, 0.1) ?? 0.1;
  const normFirst = flag(m, 'norm_first', 7);
  const activation = ctorArg(m, 'activation', 4);
  const act =
    activation?.kind === 'str'
      ? activation.value
      : activation?.kind === 'qualified'
        ? (activation.name.split('.').pop() ?? 'relu')
        : 'relu';
  const run = (name: string, x: FTensor, extra?: Map<string, FValue>): FTensor | undefined => {
    const c = child(name);
    const r = c && callLayer(trace, { module: c, args: [x, x, x], keywords: extra ?? new Map(), training });
    if (r?.kind === 'seq') return r.items[0] as unknown as FTensor;
    return isTensor(r) ? r : undefined;
  };
  const sa = (x: FTensor) => {
    const a = run('self_attn', x, new Map([['need_weights', { kind: 'bool', value: false }]]));
    return a && op.dropout(trace, { x: a, p, training });
  };
  const ff = (x: FTensor) => {
    const h = run('linear1', x);
    if (!h) return undefined;
    const a = op.unary(trace, { name: act, x: h });
    const out = run('linear2', op.dropout(trace, { x: a, p, training }));
    return out && op.dropout(trace, { x: out, p, training });
  };
  let x = input.x;
  if (normFirst) {
    const n1 = run('norm1', x);
    const s = n1 && sa(n1);
    if (!s) return undefined;
    x = op.binary(trace, 'add', x, s)!;
    const n2 = run('norm2', x);
    const f = n2 && ff(n2);
    return f && op.binary(trace, 'add', x, f);
  }
  const s = sa(x);
  if (!s) return undefined;
  const n1 = run('norm1', op.binary(trace, 'add', x, s)!);
  const f = n1 && ff(n1);
  return f && n1 ? run('norm2', op.binary(trace, 'add', n1, f)!) : undefined;
}

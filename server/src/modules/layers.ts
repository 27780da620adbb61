// The catalog of torch.nn layers: each layer's constructor signature and the parameter and
// buffer shapes it creates, following the PyTorch docs (pytorch.org/docs/stable/nn.html,
// the "Variables" section of each layer's page). Verified against torch 1.13 by
// test/unit/modules/torch-truth.test.ts. Parameter-free layers are known as zero.
import { ModuleInstance, makeParam, numelOf, type LayerConfig } from './module-instance';
import { NONE, asNumber, bool, num, truthy, type UnknownValue, type Value } from './values';

/** Thrown while building a layer whose needed argument is unknown. */
export class SymbolicArgument extends Error {
  constructor(readonly value: UnknownValue) {
    super(value.reason);
  }
}

/** Bound constructor arguments with typed accessors that throw {@link SymbolicArgument} on unknowns. */
export class LayerArgs {
  constructor(private readonly values: Map<string, Value>) {}
  value(name: string): Value {
    const value = this.values.get(name) ?? NONE;
    if (value.kind === 'unknown') throw new SymbolicArgument(value);
    if (value.kind === 'qualified')
      throw new SymbolicArgument({
        kind: 'unknown',
        text: value.name,
        reason: `\`${value.name}\` not evaluated`,
      });
    return value;
  }
  int(name: string): number {
    const value = this.value(name);
    const n = asNumber(value);
    if (n === undefined)
      throw new SymbolicArgument({ kind: 'unknown', text: name, reason: `\`${name}\` is not a number` });
    return n;
  }
  optInt(name: string): number | null {
    return this.value(name).kind === 'none' ? null : this.int(name);
  }
  flag(name: string): boolean {
    const value = this.value(name);
    const result = truthy(value);
    if (result === undefined)
      throw new SymbolicArgument({ kind: 'unknown', text: name, reason: `\`${name}\` unknown` });
    return result;
  }
  /** An int or a tuple of ints, expanded to `n` dims (`kernel_size=3` → [3, 3] for 2-D). */
  dims(name: string, n: number): number[] {
    const value = this.value(name);
    if (value.kind === 'seq') {
      return value.items.map((item) => {
        if (item.kind === 'unknown') throw new SymbolicArgument(item);
        const d = asNumber(item);
        if (d === undefined)
          throw new SymbolicArgument({ kind: 'unknown', text: name, reason: `\`${name}\` is not a shape` });
        return d;
      });
    }
    return Array.from({ length: n }, () => this.int(name));
  }
}

interface LayerBuild {
  params: [string, number[]][];
  buffers?: [string, number[]][];
  children?: [string, ModuleInstance][];
  config: LayerConfig;
}

interface LayerSpec {
  /** Constructor parameters in order; `name=default` marks a default (a JSON literal or None). */
  signature: string;
  build(args: LayerArgs): LayerBuild;
}

const linear = (inF: number, outF: number, bias: boolean): LayerBuild => ({
  params: [['weight', [outF, inF]], ...(bias ? [['bias', [outF]] as [string, number[]]] : [])],
  config: { in_features: inF, out_features: outF, bias },
});

// nn.Conv{1,2,3}d: weight (out, in/groups, *kernel), bias (out). nn.ConvTranspose{1,2,3}d:
// weight (in, out/groups, *kernel), bias (out) — pytorch.org/docs/stable/generated/torch.nn.Conv2d.html.
function conv(dims: number, transposed: boolean): LayerSpec {
  return {
    signature: transposed
      ? 'in_channels,out_channels,kernel_size,stride=1,padding=0,output_padding=0,groups=1,bias=true,dilation=1'
      : 'in_channels,out_channels,kernel_size,stride=1,padding=0,dilation=1,groups=1,bias=true',
    build(a) {
      const inC = a.int('in_channels');
      const outC = a.int('out_channels');
      const groups = a.int('groups');
      const kernel = a.dims('kernel_size', dims);
      const weight = transposed ? [inC, outC / groups, ...kernel] : [outC, inC / groups, ...kernel];
      const bias = a.flag('bias');
      return {
        params: [['weight', weight], ...(bias ? [['bias', [outC]] as [string, number[]]] : [])],
        config: {
          in_channels: inC,
          out_channels: outC,
          kernel_size: kernel,
          groups,
          bias,
          ...geometry(a, dims),
        },
      };
    },
  };
}

/** stride, padding and dilation as tuples when they are numbers (`padding="same"` is left out). */
function geometry(a: LayerArgs, dims: number): LayerConfig {
  const out: LayerConfig = {};
  for (const key of ['stride', 'padding', 'dilation']) {
    try {
      out[key] = a.dims(key, dims);
    } catch {
      // NOTE: a string padding ("same") or an unknown value: attribute left unknown.
    }
  }
  return out;
}

// nn.BatchNorm*/InstanceNorm*: weight and bias (C) when affine; running_mean, running_var (C)
// and num_batches_tracked (scalar) buffers when track_running_stats.
function batchNorm(affineDefault: boolean, statsDefault: boolean): LayerSpec {
  return {
    signature: `num_features,eps=1e-5,momentum=0.1,affine=${affineDefault},track_running_stats=${statsDefault}`,
    build(a) {
      const c = a.int('num_features');
      const affine = a.flag('affine');
      const stats = a.flag('track_running_stats');
      return {
        params: affine
          ? [
              ['weight', [c]],
              ['bias', [c]],
            ]
          : [],
        buffers: stats
          ? [
              ['running_mean', [c]],
              ['running_var', [c]],
              ['num_batches_tracked', []],
            ]
          : [],
        config: { num_features: c, affine },
      };
    },
  };
}

// nn.RNN/LSTM/GRU: per layer and direction, weight_ih (gates·H, input), weight_hh (gates·H,
// H or proj), bias_ih and bias_hh (gates·H), weight_hr (proj, H) with proj_size (LSTM).
function recurrent(gates: number): LayerSpec {
  return {
    signature:
      'input_size,hidden_size,num_layers=1,bias=true,batch_first=false,dropout=0,bidirectional=false,proj_size=0',
    build(a) {
      const inputSize = a.int('input_size');
      const hidden = a.int('hidden_size');
      const layers = a.int('num_layers');
      const directions = a.flag('bidirectional') ? 2 : 1;
      const proj = a.int('proj_size');
      const bias = a.flag('bias');
      const realHidden = proj > 0 ? proj : hidden;
      const params: [string, number[]][] = [];
      for (let layer = 0; layer < layers; layer++) {
        for (let d = 0; d < directions; d++) {
          const suffix = `_l${layer}${d === 1 ? '_reverse' : ''}`;
          const layerInput = layer === 0 ? inputSize : realHidden * directions;
          params.push(
            [`weight_ih${suffix}`, [gates * hidden, layerInput]],
            [`weight_hh${suffix}`, [gates * hidden, realHidden]],
          );
          if (bias)
            params.push([`bias_ih${suffix}`, [gates * hidden]], [`bias_hh${suffix}`, [gates * hidden]]);
          if (proj > 0) params.push([`weight_hr${suffix}`, [proj, hidden]]);
        }
      }
      return {
        params,
        config: {
          input_size: inputSize,
          hidden_size: hidden,
          num_layers: layers,
          gates,
          bidirectional: directions === 2,
          batch_first: a.flag('batch_first'),
        },
      };
    },
  };
}

function cell(gates: number): LayerSpec {
  return {
    signature: 'input_size,hidden_size,bias=true',
    build(a) {
      const i = a.int('input_size');
      const h = a.int('hidden_size');
      const params: [string, number[]][] = [
        ['weight_ih', [gates * h, i]],
        ['weight_hh', [gates * h, h]],
      ];
      if (a.flag('bias')) params.push(['bias_ih', [gates * h]], ['bias_hh', [gates * h]]);
      return { params, config: { input_size: i, hidden_size: h, gates } };
    },
  };
}

function normShape(a: LayerArgs): number[] {
  const value = a.value('normalized_shape');
  return value.kind === 'seq' ? a.dims('normalized_shape', 0) : [a.int('normalized_shape')];
}

/** Builds a catalog layer from plain numbers (used for the sub-layers of composite layers). */
function sub(name: string, keywords: Record<string, number | boolean | null>): ModuleInstance {
  const values = new Map<string, Value>(
    Object.entries(keywords).map(([k, v]): [string, Value] => [
      k,
      v === null ? NONE : typeof v === 'boolean' ? bool(v) : num(v),
    ]),
  );
  return createLayer({ name, positional: [], keywords: values, text: name })!;
}

// nn.TransformerEncoderLayer / DecoderLayer: self_attn (+ multihead_attn), linear1 (d→ff),
// linear2 (ff→d), norm1..norm3 LayerNorm(d); dim_feedforward defaults to 2048; `bias` since torch 2.1.
function transformerLayer(decoder: boolean): LayerSpec {
  return {
    signature:
      'd_model,nhead,dim_feedforward=2048,dropout=0.1,activation=null,layer_norm_eps=1e-5,batch_first=false,norm_first=false,bias=true',
    build(a) {
      const d = a.int('d_model');
      const heads = a.int('nhead');
      const ff = a.int('dim_feedforward');
      const bias = a.flag('bias');
      const attention = () => sub('MultiheadAttention', { embed_dim: d, num_heads: heads, bias });
      const children: [string, ModuleInstance][] = [['self_attn', attention()]];
      if (decoder) children.push(['multihead_attn', attention()]);
      children.push(['linear1', sub('Linear', { in_features: d, out_features: ff, bias })]);
      children.push(['linear2', sub('Linear', { in_features: ff, out_features: d, bias })]);
      for (let i = 1; i <= (decoder ? 3 : 2); i++)
        children.push([`norm${i}`, sub('LayerNorm', { normalized_shape: d, bias })]);
      return { params: [], children, config: { d_model: d, nhead: heads, dim_feedforward: ff } };
    },
  };
}

const SPECS: Record<string, LayerSpec> = {
  Linear: {
    signature: 'in_features,out_features,bias=true',
    build: (a) => linear(a.int('in_features'), a.int('out_features'), a.flag('bias')),
  },
  LazyLinear: {
    signature: 'out_features,bias=true',
    build: () => {
      throw new SymbolicArgument({
        kind: 'unknown',
        text: 'LazyLinear',
        reason: 'in_features inferred at the first call',
      });
    },
  },
  Bilinear: {
    signature: 'in1_features,in2_features,out_features,bias=true',
    build(a) {
      const out = a.int('out_features');
      const shape = [out, a.int('in1_features'), a.int('in2_features')];
      return {
        params: [['weight', shape], ...(a.flag('bias') ? [['bias', [out]] as [string, number[]]] : [])],
        config: { out_features: out },
      };
    },
  },
  Embedding: {
    signature: 'num_embeddings,embedding_dim,padding_idx=null',
    build(a) {
      const n = a.int('num_embeddings');
      const d = a.int('embedding_dim');
      return { params: [['weight', [n, d]]], config: { num_embeddings: n, embedding_dim: d } };
    },
  },
  LayerNorm: {
    signature: 'normalized_shape,eps=1e-5,elementwise_affine=true,bias=true',
    build(a) {
      const shape = normShape(a);
      const affine = a.flag('elementwise_affine');
      const params: [string, number[]][] = affine ? [['weight', shape]] : [];
      if (affine && a.flag('bias')) params.push(['bias', shape]);
      return { params, config: { normalized_shape: shape, width: shape[shape.length - 1] ?? null } };
    },
  },
  RMSNorm: {
    signature: 'normalized_shape,eps=null,elementwise_affine=true',
    build(a) {
      const shape = normShape(a);
      return {
        params: a.flag('elementwise_affine') ? [['weight', shape]] : [],
        config: { width: shape[shape.length - 1] ?? null },
      };
    },
  },
  GroupNorm: {
    signature: 'num_groups,num_channels,eps=1e-5,affine=true',
    build(a) {
      const c = a.int('num_channels');
      return {
        params: a.flag('affine')
          ? [
              ['weight', [c]],
              ['bias', [c]],
            ]
          : [],
        config: { num_channels: c },
      };
    },
  },
  // nn.MultiheadAttention: in_proj_weight (3E, E) when kdim = vdim = E, else q/k/v_proj_weight;
  // in_proj_bias (3E) and out_proj (Linear E→E) follow `bias`; bias_k, bias_v (1, 1, E) with add_bias_kv.
  MultiheadAttention: {
    signature:
      'embed_dim,num_heads,dropout=0,bias=true,add_bias_kv=false,add_zero_attn=false,kdim=null,vdim=null,batch_first=false',
    build(a) {
      const e = a.int('embed_dim');
      const kdim = a.optInt('kdim') ?? e;
      const vdim = a.optInt('vdim') ?? e;
      const bias = a.flag('bias');
      const params: [string, number[]][] =
        kdim === e && vdim === e
          ? [['in_proj_weight', [3 * e, e]]]
          : [
              ['q_proj_weight', [e, e]],
              ['k_proj_weight', [e, kdim]],
              ['v_proj_weight', [e, vdim]],
            ];
      if (bias) params.push(['in_proj_bias', [3 * e]]);
      if (a.flag('add_bias_kv')) params.push(['bias_k', [1, 1, e]], ['bias_v', [1, 1, e]]);
      const outProj = sub('Linear', { in_features: e, out_features: e, bias });
      return {
        params,
        children: [['out_proj', outProj]],
        config: { embed_dim: e, num_heads: a.int('num_heads') },
      };
    },
  },
  TransformerEncoderLayer: transformerLayer(false),
  TransformerDecoderLayer: transformerLayer(true),
  PReLU: {
    signature: 'num_parameters=1',
    build: (a) => ({ params: [['weight', [a.int('num_parameters')]]], config: {} }),
  },
  RNN: recurrent(1),
  LSTM: recurrent(4),
  GRU: recurrent(3),
  RNNCell: cell(1),
  LSTMCell: cell(4),
  GRUCell: cell(3),
};
SPECS.EmbeddingBag = SPECS.Embedding;
for (const d of [1, 2, 3]) {
  SPECS[`Conv${d}d`] = conv(d, false);
  SPECS[`ConvTranspose${d}d`] = conv(d, true);
  SPECS[`BatchNorm${d}d`] = batchNorm(true, true);
  SPECS[`InstanceNorm${d}d`] = batchNorm(false, false);
}
SPECS.SyncBatchNorm = batchNorm(true, true);

/** torch.nn layers without parameters or buffers (activations, dropout, pooling, reshapes). */
export const PARAMETER_FREE = new Set(
  (
    'ReLU ReLU6 LeakyReLU GELU SiLU Mish ELU SELU CELU Tanh Sigmoid Hardtanh Hardswish Hardsigmoid Softplus Softsign ' +
    'Tanhshrink Threshold GLU LogSigmoid Softmax LogSoftmax Softmin Softmax2d Dropout Dropout1d Dropout2d Dropout3d ' +
    'AlphaDropout FeatureAlphaDropout Identity Flatten Unflatten MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d ' +
    'AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d ' +
    'LPPool1d LPPool2d Upsample UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle PixelUnshuffle ChannelShuffle ' +
    'ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d ConstantPad3d ReflectionPad1d ReflectionPad2d ' +
    'ReplicationPad1d ReplicationPad2d ReplicationPad3d CosineSimilarity PairwiseDistance Fold Unfold ' +
    'CrossEntropyLoss MSELoss L1Loss NLLLoss BCELoss BCEWithLogitsLoss SmoothL1Loss HuberLoss KLDivLoss LocalResponseNorm ' +
    'CTCLoss CosineEmbeddingLoss CrossMapLRN2d FractionalMaxPool2d FractionalMaxPool3d GaussianNLLLoss Hardshrink ' +
    'HingeEmbeddingLoss MarginRankingLoss MaxUnpool1d MaxUnpool2d MaxUnpool3d MultiLabelMarginLoss ' +
    'MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss2d PoissonNLLLoss RReLU ReflectionPad3d SoftMarginLoss Softshrink ' +
    'TripletMarginLoss TripletMarginWithDistanceLoss CircularPad1d CircularPad2d CircularPad3d'
  ).split(' '),
);

function parseSignature(signature: string): { names: string[]; defaults: Map<string, Value> } {
  const names: string[] = [];
  const defaults = new Map<string, Value>();
  for (const part of signature.split(',')) {
    const [name, literal] = part.split('=');
    names.push(name);
    if (literal === undefined) continue;
    const parsed = JSON.parse(literal) as number | boolean | null;
    defaults.set(name, parsed === null ? NONE : typeof parsed === 'boolean' ? bool(parsed) : num(parsed));
  }
  return { names, defaults };
}

/** Whether `name` (the last part of a `torch.nn.X` name) is a layer this catalog knows. */
export function isKnownLayer(name: string): boolean {
  return name in SPECS || PARAMETER_FREE.has(name) || COMPOSITE_LAYERS.has(name);
}

/** Layers built from other modules (composite-layers.ts). */
export const COMPOSITE_LAYERS = new Set(['Transformer', 'TransformerEncoder', 'TransformerDecoder']);

/** The layers with a parameter/buffer recipe in this catalog (for the catalog test). */
export function catalogLayerNames(): string[] {
  return Object.keys(SPECS);
}

/**
 * Builds the catalog layer `name` from evaluated arguments; returns undefined for a name the
 * catalog does not know. A needed argument that is unknown yields a layer with one unknown part.
 */
export function createLayer(input: {
  name: string;
  positional: Value[];
  keywords: Map<string, Value>;
  text: string;
}): ModuleInstance | undefined {
  const { name, positional, keywords, text } = input;
  const module = new ModuleInstance(name, `torch.nn.${name}`, 'layer');
  module.constructorText = text;
  module.constructorArgs = { positional, keywords };
  if (PARAMETER_FREE.has(name)) return module;
  const spec = SPECS[name];
  if (!spec) return undefined;
  const { names, defaults } = parseSignature(spec.signature);
  const bound = new Map(defaults);
  positional.forEach((value, i) => {
    if (i < names.length) bound.set(names[i], value);
  });
  for (const [key, value] of keywords) bound.set(key, value);
  try {
    const build = spec.build(new LayerArgs(bound));
    for (const [paramName, shape] of build.params) module.params.set(paramName, makeParam(shape));
    for (const [bufferName, shape] of build.buffers ?? []) {
      module.buffers.set(bufferName, { shape, numel: numelOf(shape), persistent: true });
    }
    for (const [childName, child] of build.children ?? []) module.children.set(childName, child);
    module.layerConfig = build.config;
  } catch (error) {
    if (!(error instanceof SymbolicArgument)) throw error;
    module.unknowns.push({ text, reason: error.value.reason });
  }
  return module;
}

// What a built module tree says beyond its counts: the transformer shape when one is
// recognisable (layer count from the repeated block list, hidden and vocab from the token
// embedding, heads from a config field or attribute, ffn from the block's widest Linear),
// and the forward input template the benchmark needs (from `forward`'s first argument).
import type { TransformerShape } from '../estimate';
import type { InputTemplate } from '../protocol';
import type { SyntaxNode } from '../parse/syntax';
import { ModuleInstance, forEachModule } from './module-instance';
import { asNumber, type Value } from './values';
import { callsInSourceOrder, fieldOf } from '../analysis/syntax-helpers';

const HEAD_FIELDS = ['n_head', 'n_heads', 'num_heads', 'num_attention_heads', 'nhead'];
const KV_HEAD_FIELDS = ['n_kv_heads', 'num_key_value_heads', 'n_kv_head'];

const config = (m: ModuleInstance, key: string): number | undefined => {
  const value = m.layerConfig?.[key];
  return typeof value === 'number' ? value : undefined;
};

/** The repeated block list: the largest list container whose children all share one type. */
function blockList(root: ModuleInstance): ModuleInstance | undefined {
  let best: ModuleInstance | undefined;
  forEachModule(root, (m) => {
    if (m.containerKind !== 'list' || m.children.size < 2) return;
    const types = new Set([...m.children.values()].map((c) => c.typeName));
    if (types.size === 1 && (!best || m.children.size > best.children.size)) best = m;
  });
  return best;
}

/** A numeric field named like `names` in configs passed in, or attributes of modules in the tree. */
function findNumber(input: { root: ModuleInstance; args: Value[]; names: string[] }): number | undefined {
  for (const arg of input.args) {
    if (arg.kind !== 'object' && arg.kind !== 'dict') continue;
    const fields = arg.kind === 'object' ? arg.fields : arg.entries;
    for (const name of input.names) {
      const n = asNumber(fields.get(name));
      if (n !== undefined) return n;
    }
  }
  let found: number | undefined;
  forEachModule(input.root, (m) => {
    for (const name of input.names) {
      found ??= asNumber(m.attrs.get(name)) ?? config(m, name === 'n_head' ? 'num_heads' : name);
    }
  });
  return found;
}

/** The transformer shape of a module tree, or undefined when it is not recognisably one. */
export function transformerShape(input: {
  root: ModuleInstance;
  args: Value[];
}): TransformerShape | undefined {
  const { root } = input;
  if (root.library) return root.library.transformer;
  const blocks = blockList(root);
  if (!blocks) return undefined;
  let embedding: ModuleInstance | undefined;
  forEachModule(root, (m) => {
    if (m.typeName !== 'Embedding') return;
    if (!embedding || (config(m, 'num_embeddings') ?? 0) > (config(embedding, 'num_embeddings') ?? 0))
      embedding = m;
  });
  const first = [...blocks.children.values()][0];
  let hidden = embedding ? config(embedding, 'embedding_dim') : undefined;
  let ffn: number | undefined;
  let heads = findNumber({ root, args: input.args, names: HEAD_FIELDS });
  forEachModule(first, (m) => {
    if (m.typeName === 'TransformerEncoderLayer' || m.typeName === 'TransformerDecoderLayer') {
      hidden ??= config(m, 'd_model');
      ffn = config(m, 'dim_feedforward');
      heads ??= config(m, 'nhead');
    }
  });
  if (hidden === undefined) return undefined;
  if (ffn === undefined) {
    forEachModule(first, (m) => {
      if (m.typeName === 'Linear' && config(m, 'in_features') === hidden)
        ffn = Math.max(ffn ?? 0, config(m, 'out_features') ?? 0);
    });
  }
  if (heads === undefined) return undefined;
  const kvHeads = findNumber({ root, args: input.args, names: KV_HEAD_FIELDS });
  const vocab = embedding ? config(embedding, 'num_embeddings') : undefined;
  return {
    layers: blocks.children.size,
    hidden,
    heads,
    ...(kvHeads ? { kvHeads } : {}),
    ...(ffn ? { ffn } : {}),
    ...(vocab ? { vocab } : {}),
  };
}

/** The forward input template: inputs, default dims and what was inferred. */
export interface ForwardTemplate {
  inputs: InputTemplate[];
  dims: Record<string, number>;
  notes: string[];
}

/** The module `self.a.b` names inside `root`, if any. */
function moduleAt(root: ModuleInstance, chain: string): ModuleInstance | undefined {
  const parts = chain.split('.');
  if (parts[0] !== 'self') return undefined;
  let current: ModuleInstance | undefined = root;
  for (const part of parts.slice(1)) current = current?.children.get(part);
  return current;
}

/** The first module `forward` calls with argument `name`, if any. */
function firstModuleFedBy(input: {
  root: ModuleInstance;
  forward: SyntaxNode;
  name: string;
}): ModuleInstance | undefined {
  for (const call of callsInSourceOrder(input.forward)) {
    const args = fieldOf(call, 'arguments')?.children ?? [];
    if (!args.some((a) => a.type === 'identifier' && a.text === input.name)) continue;
    const module = moduleAt(input.root, fieldOf(call, 'function')?.text ?? '');
    if (module) return module;
  }
  return undefined;
}

/** Infers the forward input of a module instance from its class's `forward` and the first layer the input reaches. */
export function forwardTemplate(input: {
  root: ModuleInstance;
  dims: { batch: number; seq: number };
  depth?: number;
}): ForwardTemplate {
  const { root, dims } = input;
  const template: ForwardTemplate = { inputs: [], dims: { B: dims.batch, T: dims.seq }, notes: [] };
  const forward = root.cls?.methods.get('forward');
  const params = forward ? (fieldOf(forward, 'parameters')?.children ?? []) : [];
  const first = params[1];
  const name = first
    ? first.type === 'identifier'
      ? first.text
      : (fieldOf(first, 'name')?.text ?? first.children[0]?.text)
    : undefined;
  const layer = forward && name ? firstModuleFedBy({ root, forward, name }) : root.cls ? undefined : root;
  if (!layer) {
    template.notes.push(name ? `input shape of \`${name}\` not inferred` : 'no forward input found');
    return template;
  }
  if (layer.kind === 'user' && layer !== root && (input.depth ?? 0) < 4) {
    const inner = forwardTemplate({ root: layer, dims, depth: (input.depth ?? 0) + 1 });
    inner.notes.unshift(`\`${name}\` goes into ${layer.typeName}`);
    return inner;
  }
  const described = describeInput(layer);
  if (!described) {
    template.notes.push(`\`${name ?? 'input'}\` goes into ${layer.typeName}, whose input shape is not known`);
    return template;
  }
  template.inputs.push(described.input);
  Object.assign(template.dims, described.dims ?? {});
  template.notes.push(`\`${name ?? 'input'}\` ${described.note}`);
  return template;
}

function describeInput(
  layer: ModuleInstance,
): { input: InputTemplate; note: string; dims?: Record<string, number> } | undefined {
  const type = layer.typeName;
  if (type === 'Embedding' || type === 'EmbeddingBag') {
    const high = config(layer, 'num_embeddings');
    return {
      input: { shape: ['B', 'T'], dtype: 'long', ...(high ? { high } : {}) },
      note: `feeds ${type}(${high ?? '?'}, …): token ids [B, T] in [0, ${high ?? '?'})`,
    };
  }
  const width =
    config(layer, 'in_features') ??
    config(layer, 'width') ??
    config(layer, 'embed_dim') ??
    config(layer, 'd_model') ??
    (type === 'LSTM' || type === 'GRU' || type === 'RNN' ? config(layer, 'input_size') : undefined);
  if (width !== undefined) {
    const seqFirst = layer.layerConfig?.batch_first === false;
    const shape = seqFirst ? ['T', 'B', width] : ['B', 'T', width];
    return {
      input: { shape, dtype: 'float' },
      note: `feeds ${type} of width ${width}: [${shape.join(', ')}] float`,
    };
  }
  const channels = config(layer, 'in_channels') ?? config(layer, 'num_features');
  const spatial = /([123])d$/.exec(type)?.[1];
  if (channels !== undefined && spatial) {
    const extra = spatial === '1' ? ['L'] : spatial === '2' ? ['H', 'W'] : ['D', 'H', 'W'];
    const dims: Record<string, number> =
      spatial === '1' ? { L: 1024 } : spatial === '2' ? { H: 224, W: 224 } : { D: 16, H: 112, W: 112 };
    return {
      input: { shape: ['B', channels, ...extra], dtype: 'float' },
      dims,
      note: `feeds ${type} with ${channels} channels: [B, ${channels}, ${extra.join(', ')}] float (default ${Object.entries(
        dims,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')})`,
    };
  }
  return undefined;
}

// Library models built in `__init__` or a script: torchvision constructors (`resnet50()`),
// transformers `from_pretrained("gpt2")`/`from_config`, and model classes given a config
// (`GPT2LMHeadModel(GPT2Config())`, `LlamaForCausalLM(LlamaConfig(...))`). Counts come from
// the estimate module's catalog (published numbers) or its architecture formula.
import type { SyntaxNode } from '../parse/syntax';
import { architectureParamCount, lookupConfigClass, lookupModel, type CatalogEntry } from '../estimate';
import type { CallArgs } from './calls';
import { ModuleInstance } from './module-instance';
import { asNumber, type Value } from './values';

/** Config keyword → catalog architecture field (transformers' names for GPT-2, Llama, BERT, T5, ViT). */
const CONFIG_FIELDS: Record<
  string,
  'layers' | 'hidden' | 'heads' | 'kvHeads' | 'ffn' | 'vocab' | 'maxPositions'
> = {
  n_layer: 'layers',
  num_hidden_layers: 'layers',
  num_layers: 'layers',
  n_embd: 'hidden',
  hidden_size: 'hidden',
  d_model: 'hidden',
  n_head: 'heads',
  num_attention_heads: 'heads',
  num_heads: 'heads',
  num_key_value_heads: 'kvHeads',
  n_inner: 'ffn',
  intermediate_size: 'ffn',
  d_ff: 'ffn',
  vocab_size: 'vocab',
  n_positions: 'maxPositions',
  max_position_embeddings: 'maxPositions',
};

/** A transformers `XxxConfig(...)` call: an object the model classes read. */
export function isLibraryConfig(name: string): boolean {
  return /^transformers\.(\w+\.)*\w+Config$/.test(name);
}

/** Builds the library model `name` is, or undefined when it is not a known library model. */
export function libraryModel(input: {
  name: string;
  args: CallArgs;
  node: SyntaxNode;
}): ModuleInstance | undefined {
  const { name, args, node } = input;
  const torchvision = /^torchvision\.models\.(?:\w+\.)?(\w+)$/.exec(name);
  if (torchvision) {
    const entry = lookupModel(torchvision[1]);
    return entry ? fromEntry({ entry, node, note: `torchvision ${entry.id}` }) : undefined;
  }
  if (!name.startsWith('transformers.')) return undefined;
  const [first] = args.positional;
  if (/\.from_pretrained$/.test(name)) {
    const id =
      first?.kind === 'str'
        ? first.value
        : (args.keywords.get('pretrained_model_name_or_path') as { value?: string })?.value;
    const entry = id ? lookupModel(id) : undefined;
    if (entry) return fromEntry({ entry, node, note: `${entry.id} (catalog)` });
    return unknownModel({
      name,
      node,
      reason: id ? `\`${id}\` is not in the model catalog` : 'model id not evaluated',
    });
  }
  const config = /\.from_config$/.test(name) ? first : (first ?? args.keywords.get('config'));
  if (config?.kind === 'object' && /Config$/.test(config.className))
    return fromConfig({ config, node, name });
  if (
    /\.(Auto\w+|\w+(Model|LMHeadModel|ForCausalLM|ForConditionalGeneration|ForSequenceClassification|ForMaskedLM))(\.from_config)?$/.test(
      name,
    )
  ) {
    return unknownModel({ name, node, reason: 'model config not evaluated' });
  }
  return undefined;
}

function fromConfig(input: {
  config: Extract<Value, { kind: 'object' }>;
  node: SyntaxNode;
  name: string;
}): ModuleInstance {
  const { config, node, name } = input;
  const base = lookupConfigClass(config.className);
  if (!base)
    return unknownModel({ name, node, reason: `\`${config.className}\` is not in the model catalog` });
  if (config.fields.size === 0)
    return fromEntry({ entry: base, node, note: `${config.className}() defaults = ${base.id}` });
  const arch: Partial<CatalogEntry> = {};
  for (const [key, value] of config.fields) {
    const field = CONFIG_FIELDS[key];
    if (!field) continue;
    const n = asNumber(value);
    if (n === undefined)
      return unknownModel({ name, node, reason: `\`${config.className}(${key}=…)\` unknown` });
    arch[field] = n;
  }
  const merged = { ...base, ...arch };
  const params = architectureParamCount(merged);
  if (params === undefined)
    return unknownModel({ name, node, reason: `no parameter formula for ${base.family}` });
  return fromEntry({
    entry: { ...merged, params },
    node,
    note: `${config.className}(…) by the ${base.family} architecture formula`,
  });
}

function fromEntry(input: { entry: CatalogEntry; node: SyntaxNode; note: string }): ModuleInstance {
  const { entry, node, note } = input;
  const module = new ModuleInstance(
    node.text.split('(')[0].split('.').pop() ?? entry.id,
    entry.id,
    'library',
  );
  module.constructorText = node.text;
  module.params.set('(all)', { shape: null, numel: entry.params, trainable: true });
  const { layers, hidden, heads, kvHeads, ffn, vocab } = entry;
  module.library = {
    id: entry.id,
    note,
    largestLayerParams: entry.largestLayerParams,
    transformer: layers && hidden && heads ? { layers, hidden, heads, kvHeads, ffn, vocab } : undefined,
  };
  return module;
}

function unknownModel(input: { name: string; node: SyntaxNode; reason: string }): ModuleInstance {
  const module = new ModuleInstance(input.name.split('.').pop() ?? input.name, input.name, 'library');
  module.constructorText = input.node.text;
  module.unknowns.push({ text: input.node.text, reason: input.reason, line: input.node.start.line });
  return module;
}

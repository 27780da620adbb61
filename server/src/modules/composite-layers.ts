// torch.nn layers built from other modules: nn.TransformerEncoder / nn.TransformerDecoder
// (`num_layers` deep copies of the layer passed in, in a ModuleList `layers`, plus an
// optional `norm`) and nn.Transformer (an encoder and a decoder of the default layers, each
// followed by a LayerNorm), as torch/nn/modules/transformer.py defines them (torch 1.13; the
// `bias` argument from 2.1 is honoured when given).
import type { CallArgs } from './calls';
import { createLayer } from './layers';
import { ModuleInstance, deepCopyModule } from './module-instance';
import { NONE, asNumber, bool, num, truthy, type Value } from './values';

/** Bound arguments by name (`signature` in order, then keywords). */
function bind(signature: string[], args: CallArgs): Map<string, Value> {
  const bound = new Map<string, Value>();
  args.positional.forEach((value, i) => {
    if (i < signature.length) bound.set(signature[i], value);
  });
  for (const [key, value] of args.keywords) bound.set(key, value);
  return bound;
}

function unknownLayer(name: string, text: string, reason: string): ModuleInstance {
  const module = new ModuleInstance(name, `torch.nn.${name}`, 'layer');
  module.constructorText = text;
  module.unknowns.push({ text, reason });
  return module;
}

/** `TransformerEncoder(encoder_layer, num_layers, norm=None)` and the decoder alike. */
function stack(input: {
  name: string;
  layer?: Value;
  count?: Value;
  norm?: Value;
  text: string;
}): ModuleInstance {
  const { name, layer, count, norm, text } = input;
  const n = asNumber(count);
  if (layer?.kind !== 'module' || n === undefined)
    return unknownLayer(
      name,
      text,
      layer?.kind === 'unknown'
        ? layer.reason
        : count?.kind === 'unknown'
          ? count.reason
          : `\`${name}\` arguments not evaluated`,
    );
  const module = new ModuleInstance(name, `torch.nn.${name}`, 'layer');
  module.constructorText = text;
  const layers = new ModuleInstance('ModuleList', 'torch.nn.ModuleList', 'container');
  layers.containerKind = 'list';
  for (let i = 0; i < n; i++) layers.children.set(String(i), deepCopyModule(layer.module));
  module.children.set('layers', layers);
  if (norm?.kind === 'module') module.children.set('norm', norm.module);
  else if (norm && norm.kind !== 'none') module.unknowns.push({ text, reason: '`norm` not evaluated' });
  module.layerConfig = { num_layers: n };
  return module;
}

const TRANSFORMER_SIGNATURE = [
  'd_model',
  'nhead',
  'num_encoder_layers',
  'num_decoder_layers',
  'dim_feedforward',
  'dropout',
  'activation',
  'custom_encoder',
  'custom_decoder',
  'layer_norm_eps',
  'batch_first',
  'norm_first',
];

/** `nn.Transformer(...)`: encoder (+ LayerNorm) and decoder (+ LayerNorm) of the default layers. */
function transformer(args: CallArgs, text: string): ModuleInstance {
  const bound = bind(TRANSFORMER_SIGNATURE, args);
  const get = (key: string, fallback: Value) => bound.get(key) ?? fallback;
  const d = get('d_model', num(512));
  const layerArgs = (name: string): ModuleInstance =>
    createLayer({
      name,
      positional: [],
      keywords: new Map([
        ['d_model', d],
        ['nhead', get('nhead', num(8))],
        ['dim_feedforward', get('dim_feedforward', num(2048))],
        ['bias', get('bias', bool(true))],
      ]),
      text,
    })!;
  const norm = (): Value => ({
    kind: 'module',
    module: createLayer({
      name: 'LayerNorm',
      positional: [d],
      keywords: new Map([['bias', get('bias', bool(true))]]),
      text,
    })!,
  });
  const module = new ModuleInstance('Transformer', 'torch.nn.Transformer', 'layer');
  module.constructorText = text;
  for (const [part, layerName, countKey, custom] of [
    ['encoder', 'TransformerEncoderLayer', 'num_encoder_layers', 'custom_encoder'],
    ['decoder', 'TransformerDecoderLayer', 'num_decoder_layers', 'custom_decoder'],
  ] as const) {
    const given = get(custom, NONE);
    if (given.kind === 'module') module.children.set(part, given.module);
    else if (truthy(given) !== false) module.unknowns.push({ text, reason: `\`${custom}\` not evaluated` });
    else
      module.children.set(
        part,
        stack({
          name: part === 'encoder' ? 'TransformerEncoder' : 'TransformerDecoder',
          layer: { kind: 'module', module: layerArgs(layerName) },
          count: get(countKey, num(6)),
          norm: norm(),
          text,
        }),
      );
  }
  module.layerConfig = { d_model: asNumber(d) ?? null };
  return module;
}

/** Builds a composite torch.nn layer, or undefined when `name` is not one. */
export function createComposite(input: {
  name: string;
  args: CallArgs;
  text: string;
}): ModuleInstance | undefined {
  const { name, args, text } = input;
  let module: ModuleInstance | undefined;
  if (name === 'Transformer') module = transformer(args, text);
  else if (name === 'TransformerEncoder' || name === 'TransformerDecoder') {
    const layerKey = name === 'TransformerEncoder' ? 'encoder_layer' : 'decoder_layer';
    const bound = bind([layerKey, 'num_layers', 'norm'], args);
    const layer = bound.get(layerKey);
    module = stack({ name, layer, count: bound.get('num_layers'), norm: bound.get('norm'), text });
  }
  // As createLayer does for catalog layers: the evaluated arguments, for the forward walker.
  if (module) module.constructorArgs = { positional: args.positional, keywords: args.keywords };
  return module;
}

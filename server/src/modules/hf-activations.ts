// transformers' activation table, `ACT2FN[config.hidden_act]` (and `get_activation(name)`):
// transformers/activations.py maps each name to a class and ACT2FN instantiates it. The names
// below are the parameter-free entries that are torch.nn layers or compute the same function as
// one (GELUActivation is F.gelu, PytorchGELUTanh is F.gelu(approximate="tanh"), MishActivation is
// F.mish, LinearActivation returns its input); any other name (prelu and newer ones with
// parameters, or python-formula GELUs whose saved tensors differ) stays unknown.
import { createLayer } from './layers';
import type { ModuleInstance } from './module-instance';
import { str, type Value } from './values';

const TABLE: Record<string, { layer: string; keywords?: [string, string][] }> = {
  gelu: { layer: 'GELU' },
  gelu_pytorch_tanh: { layer: 'GELU', keywords: [['approximate', 'tanh']] },
  leaky_relu: { layer: 'LeakyReLU' },
  linear: { layer: 'Identity' },
  mish: { layer: 'Mish' },
  relu: { layer: 'ReLU' },
  relu6: { layer: 'ReLU6' },
  sigmoid: { layer: 'Sigmoid' },
  silu: { layer: 'SiLU' },
  swish: { layer: 'SiLU' },
  tanh: { layer: 'Tanh' },
};

/** Whether a qualified name is transformers' ACT2FN table. */
export function isActivationTable(name: string): boolean {
  return /^transformers\.(?:activations\.)?ACT2FN$/.test(name);
}

/** The activation module transformers builds for `name`, or undefined when it is not one of the table's parameter-free entries. */
export function transformersActivation(name: string, text: string): ModuleInstance | undefined {
  const entry = Object.hasOwn(TABLE, name) ? TABLE[name] : undefined;
  if (!entry) return undefined;
  const keywords = new Map<string, Value>((entry.keywords ?? []).map(([k, v]) => [k, str(v)]));
  return createLayer({ name: entry.layer, positional: [], keywords, text });
}

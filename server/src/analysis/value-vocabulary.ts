// What the kind inference knows about PyTorch's vocabulary: results of module and tensor
// methods and attributes, arithmetic on kinds, loader names, and small syntax questions
// (f-string fields, the enclosing class). Pure functions and tables; no inference state.
import type { SyntaxNode } from '../parse/syntax';
import { TENSOR_METHODS_TO_PYTHON, type Kind } from './kinds';
import { fieldOf, walk } from './syntax-helpers';

const MODULE_METHODS: Record<string, Kind> = {
  parameters: 'collection',
  named_parameters: 'collection',
  buffers: 'collection',
  modules: 'collection',
  children: 'collection',
  state_dict: 'collection',
  forward: 'tensor',
  generate: 'tensor',
};
const MODULE_RETURNING_METHODS = new Set([
  'to',
  'cuda',
  'cpu',
  'train',
  'eval',
  'half',
  'float',
  'bfloat16',
  'double',
  'requires_grad_',
  'compile',
  'module',
]);
export const OUTPUT_ATTRIBUTES =
  /^(loss|logits|last_hidden_state|pooler_output|hidden_states|attentions|prediction_logits|aux_loss)$/;
export const TENSOR_ATTRIBUTES = new Set([
  'T',
  'mT',
  'H',
  'mH',
  'grad',
  'data',
  'real',
  'imag',
  'weight',
  'bias',
]);
export const LOADER_NAME = /(loader|batches|dataloader)$/i;
export const STEP_ARGUMENTS = /^(batch_idx|batch_nb|dataloader_idx|step|idx_step|epoch)$/;

/** The kind a method call returns, from its receiver's kind and the method name. */
export function methodResult(receiver: Kind, name: string, calleeKind: Kind, _nested: boolean): Kind {
  if (receiver === 'tensor') return TENSOR_METHODS_TO_PYTHON[name] ?? 'tensor';
  if (receiver === 'module') {
    if (name in MODULE_METHODS) return MODULE_METHODS[name];
    if (MODULE_RETURNING_METHODS.has(name)) return 'module';
    return calleeKind === 'module' ? 'tensor' : 'unknown';
  }
  if (receiver === 'scaler' && name === 'scale') return 'tensor';
  if (receiver === 'numpy') return name === 'item' ? 'number' : 'numpy';
  if (name === 'item') return 'number';
  return 'unknown';
}

/** Result of an arithmetic operator on two operand kinds. */
export function arithmetic(a: Kind, b: Kind): Kind {
  if (a === 'tensor' || b === 'tensor') return 'tensor';
  if (a === 'numpy' || b === 'numpy') return 'numpy';
  if (a === 'number' && b === 'number') return 'number';
  if (a === 'string' || b === 'string') return 'string';
  if (a === 'collection' && b === 'collection') return 'collection';
  return 'unknown';
}

/** The expressions inside an f-string's `{...}` fields. */
export function stringInterpolations(node: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  walk(node, (child) => {
    if (child.type === 'interpolation') {
      const expression = fieldOf(child, 'expression') ?? child.children[0];
      if (expression) found.push(expression);
      return false;
    }
  });
  return found;
}

/** The innermost class definition around `node`, if any. */
export function enclosingClass(node: SyntaxNode): SyntaxNode | undefined {
  for (let current = node.parent; current; current = current.parent) {
    if (current.type === 'class_definition') return current;
  }
  return undefined;
}

// Whether the callers in the same file pass a parameter contiguous tensors. SL201's judgement
// of a view on a parameter assumes a contiguous input; a caller that passes a transposed
// tensor (attention helpers receive `q.transpose(1, 2)` and transpose it back) makes the same
// view succeed, so the assumption only stands where no caller in the file says otherwise.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from './file-model';
import { LayoutEvaluator } from './layout-eval';
import { isContiguous } from './strides';
import { fieldOf, keywordArg, methodCall, positionalArgs, unwrap, walk } from './syntax-helpers';
import { reachingBinding } from './reaching-definitions';

/** `none`: the file never calls the function; `contiguous`: every call passes a contiguous tensor; else `unknown`. */
export type CallerContiguity = 'none' | 'contiguous' | 'unknown';

const FRESH_FUNCTIONS = /^torch\.(matmul|bmm|mm|cat|stack|randn|rand|zeros|ones|empty|full|tensor)$/;

/** What the file's callers of `fn` pass for `param`. */
export function callerContiguity(
  model: FileModel,
  input: { fn: SyntaxNode; param: SyntaxNode },
): CallerContiguity {
  const name = fieldOf(input.fn, 'name')?.text;
  if (!name) return 'unknown';
  const params = fieldOf(input.fn, 'parameters')?.children ?? [];
  const method = isMethod(input.fn);
  const index = params.indexOf(input.param) - (method ? 1 : 0);
  const paramName =
    input.param.type === 'identifier'
      ? input.param.text
      : input.param.children.find((c) => c.type === 'identifier')?.text;
  let verdict: CallerContiguity = 'none';
  const evaluator = new LayoutEvaluator(model);
  const references = method
    ? model.nodes.attribute.filter((a) => fieldOf(a, 'attribute')?.text === name)
    : identifiersNamed(model.root, name);
  for (const reference of references) {
    if (reference.parent?.type === 'function_definition' && fieldOf(reference.parent, 'name') === reference)
      continue;
    const call = reference.parent;
    if (call?.type !== 'call' || fieldOf(call, 'function') !== reference) return 'unknown';
    const argument =
      (paramName && keywordArg(call, paramName)) ?? (index >= 0 ? positionalArgs(call)[index] : undefined);
    if (!argument || !knownContiguous(evaluator, argument)) return 'unknown';
    verdict = 'contiguous';
  }
  return verdict;
}

function isMethod(fn: SyntaxNode): boolean {
  let node = fn.parent;
  if (node?.type === 'decorated_definition') node = node.parent;
  return node?.type === 'block' && node.parent?.type === 'class_definition';
}

function identifiersNamed(root: SyntaxNode, name: string): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  walk(root, (node) => {
    if (node.type === 'identifier' && node.text === name && node.parent?.type !== 'attribute')
      found.push(node);
    if (node.type === 'attribute' && fieldOf(node, 'object')?.text === name)
      found.push(fieldOf(node, 'object')!);
  });
  return found;
}

/** A tensor that is certainly contiguous: a known layout, or a fresh result (`a @ b`, `.contiguous()`). */
function knownContiguous(evaluator: LayoutEvaluator, node: SyntaxNode, depth = 0): boolean {
  const value = unwrap(node);
  const layout = evaluator.layoutOf(value);
  if (layout?.strides) return isContiguous(layout) === true;
  if (depth > 8) return false;
  if (value.type === 'binary_operator' && value.operator === '@') return true;
  if (value.type === 'call') {
    if (methodCall(value)?.name === 'contiguous') return true;
    const callee = fieldOf(value, 'function');
    return !!callee && FRESH_FUNCTIONS.test(evaluator.model.imports.resolve(callee) ?? '');
  }
  if (value.type === 'identifier') {
    const binding = reachingBinding(value, value.text);
    return binding?.kind === 'value' && knownContiguous(evaluator, binding.value, depth + 1);
  }
  return false;
}

// Whether the callers in the same file pass a parameter contiguous tensors. SL201's judgement
// of a view on a parameter assumes a contiguous input; a caller that passes a transposed
// tensor (attention helpers receive `q.transpose(1, 2)` and transpose it back) makes the same
// view succeed, so the assumption only stands where no caller in the file says otherwise. A
// caller passing its own parameter passes what its callers pass (the same rule, recursively).
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from './file-model';
import { LayoutEvaluator } from './layout-eval';
import { isContiguous } from './strides';
import { fieldOf, keywordArg, methodCall, positionalArgs, unwrap, walk } from './syntax-helpers';
import { reachingBinding, reachingParameter } from './reaching-definitions';
import { attributesNamed, callsWithCallee } from './name-indexes';
import { perModel } from './per-model';

/** `none`: the file never calls the function; `contiguous`: every call passes a contiguous tensor; else `unknown`. */
export type CallerContiguity = 'none' | 'contiguous' | 'unknown';

const MAX_CALLER_DEPTH = 4;
const FRESH_FUNCTIONS = /^torch\.(matmul|bmm|mm|cat|stack|randn|rand|zeros|ones|empty|full|tensor)$/;

/** What the file's callers of `fn` pass for `param`. */
export function callerContiguity(
  model: FileModel,
  input: { fn: SyntaxNode; param: SyntaxNode; visiting?: readonly SyntaxNode[] },
): CallerContiguity {
  const name = fieldOf(input.fn, 'name')?.text;
  const visiting = [...(input.visiting ?? []), input.fn];
  if (!name || visiting.length > MAX_CALLER_DEPTH || input.visiting?.includes(input.fn)) return 'unknown';
  const params = fieldOf(input.fn, 'parameters')?.children ?? [];
  const method = methodKind(input.fn);
  const index = params.indexOf(input.param) - (method === 'bound' ? 1 : 0);
  const paramName =
    input.param.type === 'identifier'
      ? input.param.text
      : input.param.children.find((c) => c.type === 'identifier')?.text;
  let verdict: CallerContiguity = 'none';
  const evaluator = new LayoutEvaluator(model);
  const references = method === 'function' ? identifiersNamed(model, name) : attributesNamed(model, name);
  const calls: SyntaxNode[] = [];
  for (const reference of references) {
    if (reference.parent?.type === 'function_definition' && fieldOf(reference.parent, 'name') === reference)
      continue;
    const call = reference.parent;
    if (call?.type !== 'call' || fieldOf(call, 'function') !== reference) return 'unknown';
    calls.push(call);
  }
  if (method === 'bound' && (name === 'forward' || name === '__call__')) {
    const moduleCalls = instanceCalls(model, input.fn);
    if (!moduleCalls) return 'unknown';
    calls.push(...moduleCalls);
  }
  for (const call of calls) {
    const argument =
      (paramName && keywordArg(call, paramName)) ?? (index >= 0 ? positionalArgs(call)[index] : undefined);
    if (!argument || !knownContiguous({ model, evaluator, node: argument, visiting })) return 'unknown';
    verdict = 'contiguous';
  }
  return verdict;
}

/**
 * Calls of the instances of `fn`'s class (`self.core = CoreAttention()` then `self.core(q)`),
 * which run its `forward`; undefined when the class is used in any other way in the file
 * (subclassed, put in a container, passed around), since those callers cannot be followed.
 */
function instanceCalls(model: FileModel, fn: SyntaxNode): SyntaxNode[] | undefined {
  const holder = fn.parent?.type === 'decorated_definition' ? fn.parent : fn;
  const cls = holder.parent?.parent;
  const className = cls && fieldOf(cls, 'name');
  if (!cls || !className) return undefined;
  const calls: SyntaxNode[] = [];
  for (const reference of identifiersNamed(model, className.text)) {
    if (reference === className) continue;
    const ctor = reference.parent;
    const assignment = ctor?.parent;
    if (ctor?.type !== 'call' || fieldOf(ctor, 'function') !== reference) return undefined;
    if (assignment?.type !== 'assignment' || fieldOf(assignment, 'right') !== ctor) return undefined;
    const target = fieldOf(assignment, 'left')?.text;
    if (!target) return undefined;
    calls.push(...callsWithCallee(model, target));
  }
  return calls;
}

/** `bound` (self or cls comes first), `static`, or `function` (not in a class). */
function methodKind(fn: SyntaxNode): 'bound' | 'static' | 'function' {
  const holder = fn.parent?.type === 'decorated_definition' ? fn.parent : fn;
  const decorators = holder.children.filter((c) => c.type === 'decorator').map((d) => d.text);
  const inClass = holder.parent?.type === 'block' && holder.parent.parent?.type === 'class_definition';
  if (!inClass) return 'function';
  return decorators.includes('@staticmethod') ? 'static' : 'bound';
}

/** Every identifier of the file that is not an attribute name, by name (one walk per file). */
function identifiersNamed(model: FileModel, name: string): readonly SyntaxNode[] {
  return identifiersByName(model).get(name) ?? [];
}

const identifiersByName = perModel((model) => {
  const index = new Map<string, SyntaxNode[]>();
  walk(model.root, (node) => {
    if (node.type !== 'identifier') return;
    if (node.parent?.type === 'attribute' && fieldOf(node.parent, 'attribute') === node) return;
    const list = index.get(node.text);
    if (list) list.push(node);
    else index.set(node.text, [node]);
  });
  return index;
});

/** A tensor that is certainly contiguous: a known layout, or a fresh result (`a @ b`, `.contiguous()`). */
function knownContiguous(input: {
  model: FileModel;
  evaluator: LayoutEvaluator;
  node: SyntaxNode;
  visiting: readonly SyntaxNode[];
  depth?: number;
}): boolean {
  const { model, evaluator, visiting } = input;
  const depth = input.depth ?? 0;
  const value = unwrap(input.node);
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
    if (binding?.kind === 'value')
      return knownContiguous({ ...input, node: binding.value, depth: depth + 1 });
    const param = reachingParameter(value);
    const fn = param?.parent?.parent;
    return (
      !!param &&
      fn?.type === 'function_definition' &&
      callerContiguity(model, { fn, param, visiting }) !== 'unknown'
    );
  }
  return false;
}

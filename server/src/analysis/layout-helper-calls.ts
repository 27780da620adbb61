// Layouts returned by helpers defined in the same file (`h = split_heads(x, n)`,
// `self._split_heads(x)`): the helper's single return expression is evaluated with its
// parameters bound to the caller's arguments. Only sound shapes of helper are followed: a
// module-level `def`, or a method of the caller's class that no other `def` in the file
// shadows, with exactly one `return`, as its last statement, no `yield`, and a call whose
// arguments map one-to-one.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, isWithin, unwrap, walk } from './syntax-helpers';
import { bindingsInScope, scopeOf } from './reaching-definitions';
import type { Layout } from './strides';
import type { LayoutEvaluator } from './layout-eval';
import { functionsNamed } from './name-indexes';

const MAX_HELPER_DEPTH = 3;
const soleReturns = new WeakMap<SyntaxNode, SyntaxNode | null>();

/** The layout `call` returns when it calls a same-file helper; `index` picks from a returned tuple. */
export function helperReturnLayout(
  evaluator: LayoutEvaluator,
  input: { call: SyntaxNode; index?: number; count?: number },
): Layout | undefined {
  const { call } = input;
  const callee = fieldOf(call, 'function');
  const target =
    callee?.type === 'identifier'
      ? { helper: moduleFunction(evaluator, callee), skip: 0 }
      : callee?.type === 'attribute'
        ? selfMethod(evaluator, callee)
        : undefined;
  const helper = target?.helper;
  const active = evaluator.context.active ?? [];
  if (!helper || active.includes(helper) || active.length >= MAX_HELPER_DEPTH) return undefined;
  let returned = soleReturn(helper);
  if (!returned) return undefined;
  if (returned.type === 'tuple' || returned.type === 'expression_list') {
    if (input.index === undefined || returned.children.length !== input.count) return undefined;
    returned = returned.children[input.index];
  } else if (input.index !== undefined) return undefined;
  const bound = bindArguments({ helper, call, skip: target.skip });
  if (!bound) return undefined;
  const name = fieldOf(helper, 'name')?.text ?? 'helper';
  const inner = evaluator.derive({
    parameterLayout: (param) => {
      const argument = bound.get(param);
      return argument && evaluator.layoutOf(argument);
    },
    parameterSize: (param) => {
      const argument = bound.get(param);
      return argument && evaluator.sizeOf(argument);
    },
    atomPrefix: `${name}::`,
    active: [...active, helper],
  });
  const layout = inner.layoutOf(returned);
  if (inner.inconsistent) evaluator.inconsistent = true;
  return layout;
}

/** The module-level `def` a call's name refers to, when nothing else binds that name. */
function moduleFunction(evaluator: LayoutEvaluator, callee: SyntaxNode): SyntaxNode | undefined {
  const local = bindingsInScope(callee, callee.text);
  const defs = functionsNamed(evaluator.model, callee.text).filter((fn) => scopeOf(fn).type === 'module');
  if (defs.length !== 1) return undefined;
  if (local.some((site) => site.anchor !== defs[0])) return undefined;
  const module = scopeOf(defs[0]);
  if (scopeOf(callee) !== module && bindingsInScope(defs[0], callee.text).length !== 1) return undefined;
  return defs[0];
}

/** `self.name(...)`: the one method of that name in the file, when it is in the caller's class. */
function selfMethod(
  evaluator: LayoutEvaluator,
  callee: SyntaxNode,
): { helper: SyntaxNode | undefined; skip: number } | undefined {
  const name = fieldOf(callee, 'attribute')?.text;
  if (fieldOf(callee, 'object')?.text !== 'self' || !name) return undefined;
  const defs = functionsNamed(evaluator.model, name);
  if (defs.length !== 1) return undefined;
  const [method] = defs;
  const holder = method.parent?.type === 'decorated_definition' ? method.parent : method;
  const decorators = holder === method ? [] : holder.children.filter((c) => c.type === 'decorator');
  if (decorators.some((d) => d.text !== '@staticmethod')) return undefined;
  const cls = holder.parent?.parent;
  if (cls?.type !== 'class_definition' || !isWithin(callee, cls)) return undefined;
  return { helper: method, skip: decorators.length > 0 ? 0 : 1 };
}

/** The value of the helper's only `return`, when that return is its last top-level statement. */
function soleReturn(helper: SyntaxNode): SyntaxNode | undefined {
  if (soleReturns.has(helper)) return soleReturns.get(helper) ?? undefined;
  const body = fieldOf(helper, 'body');
  let returns = 0;
  let generator = false;
  if (body)
    walk(body, (node) => {
      if (['function_definition', 'lambda', 'class_definition'].includes(node.type)) return false;
      if (node.type === 'return_statement') returns++;
      if (node.type === 'yield') generator = true;
    });
  const last = body?.children.filter((c) => c.type !== 'comment').at(-1);
  const value =
    !generator && returns === 1 && last?.type === 'return_statement' ? last.children[0] : undefined;
  const result = value ? unwrap(value) : undefined;
  soleReturns.set(helper, result ?? null);
  return result;
}

/** Parameter node → argument, for plain parameters given positionally or by keyword. */
function bindArguments(input: {
  helper: SyntaxNode;
  call: SyntaxNode;
  skip: number;
}): Map<SyntaxNode, SyntaxNode> | undefined {
  const { helper, call } = input;
  const params = (fieldOf(helper, 'parameters')?.children ?? []).slice(input.skip);
  const args = fieldOf(call, 'arguments')?.children.filter((c) => c.type !== 'comment') ?? [];
  const bound = new Map<SyntaxNode, SyntaxNode>();
  const byName = new Map<string, SyntaxNode>();
  for (const param of params) {
    if (
      !['identifier', 'typed_parameter', 'default_parameter', 'typed_default_parameter'].includes(param.type)
    )
      return undefined; // NOTE: *args, **kwargs and `/`/`*` markers make the mapping uncertain.
    const id = param.type === 'identifier' ? param : param.children.find((c) => c.type === 'identifier');
    if (!id) return undefined;
    byName.set(id.text, param);
  }
  let position = 0;
  for (const arg of args) {
    if (arg.type === 'list_splat' || arg.type === 'dictionary_splat') return undefined;
    if (arg.type === 'keyword_argument') {
      const param = byName.get(fieldOf(arg, 'name')?.text ?? '');
      const value = fieldOf(arg, 'value');
      if (!param || !value || bound.has(param)) return undefined;
      bound.set(param, value);
    } else {
      const param = params[position++];
      if (!param || bound.has(param)) return undefined;
      bound.set(param, arg);
    }
  }
  return bound;
}

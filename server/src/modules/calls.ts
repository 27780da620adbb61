// Calls in the symbolic interpreter: argument evaluation, `super().__init__()`, methods on
// lists, dicts, configs, parameters and modules, and dispatch to user classes and functions
// (instantiate.ts) or to library names (library-calls.ts).
import type { SyntaxNode } from '../parse/syntax';
import { containerMethod } from './containers';
import { instantiateClass, runFunction } from './instantiate';
import { reasonOf, type Env, type Interpreter } from './interpreter';
import { callQualified } from './library-calls';
import { NONE, iterate, seq, str, unknown, type Value } from './values';
import { fieldOf } from '../analysis/syntax-helpers';

/** Evaluated call arguments. */
export interface CallArgs {
  positional: Value[];
  keywords: Map<string, Value>;
  /** Set when a `*args`/`**kwargs` splat could not be expanded: the binding is incomplete. */
  incomplete?: Value;
}

/** Evaluates the arguments of a call node. */
export function evalArgs(interp: Interpreter, input: { node: SyntaxNode; env: Env }): CallArgs {
  const args: CallArgs = { positional: [], keywords: new Map() };
  const list = fieldOf(input.node, 'arguments');
  if (!list) return args;
  if (list.type === 'generator_expression') {
    args.positional.push(interp.evalExpr(list, input.env));
    return args;
  }
  for (const arg of list.children) {
    if (arg.type === 'comment') continue;
    if (arg.type === 'keyword_argument') {
      const name = fieldOf(arg, 'name')?.text ?? '';
      args.keywords.set(name, interp.evalExpr(fieldOf(arg, 'value')!, input.env));
    } else if (arg.type === 'dictionary_splat') {
      const spread = interp.evalExpr(arg.children[0], input.env);
      if (spread.kind === 'dict') for (const [k, v] of spread.entries) args.keywords.set(k, v);
      else if (spread.kind === 'object') for (const [k, v] of spread.fields) args.keywords.set(k, v);
      else args.incomplete = unknown(arg, reasonOf(spread, arg));
    } else if (arg.type === 'list_splat') {
      const spread = interp.evalExpr(arg.children[0], input.env);
      const items = iterate(spread);
      if (items) args.positional.push(...items);
      else args.incomplete = unknown(arg, reasonOf(spread, arg));
    } else {
      args.positional.push(interp.evalExpr(arg, input.env));
    }
  }
  return args;
}

/** Evaluates a call expression. */
export function evalCall(interp: Interpreter, input: { node: SyntaxNode; env: Env }): Value {
  const { node, env } = input;
  const callee = fieldOf(node, 'function');
  if (!callee) return unknown(node, 'incomplete call');
  if (callee.type === 'attribute') {
    const objectNode = fieldOf(callee, 'object')!;
    const name = fieldOf(callee, 'attribute')?.text ?? '';
    if (isSuperCall(objectNode)) return callSuper(interp, { name, node, env });
    const receiver = interp.evalExpr(objectNode, env);
    const args = evalArgs(interp, { node, env });
    const handled = callMethod(interp, { receiver, name, args, node });
    if (handled) return handled;
    const method = interp.getAttribute(receiver, name, callee.text);
    return callValue(interp, { callee: method, args, node });
  }
  const calleeValue = interp.evalExpr(callee, env);
  return callValue(interp, { callee: calleeValue, args: evalArgs(interp, { node, env }), node });
}

/** Calls an evaluated callee. */
export function callValue(
  interp: Interpreter,
  input: { callee: Value; args: CallArgs; node: SyntaxNode },
): Value {
  const { callee, args, node } = input;
  switch (callee.kind) {
    case 'class':
      return instantiateClass(interp, { cls: callee.cls, args, node });
    case 'function':
      return runFunction(interp, { fn: callee, args, node }).value;
    case 'qualified':
      return callQualified(interp, { name: callee.name, args, node });
    case 'unknown':
      return unknown(node, callee.reason);
    default:
      return unknown(node, `\`${node.text.split('(')[0]}\` not evaluated`);
  }
}

function isSuperCall(node: SyntaxNode): boolean {
  return node.type === 'call' && fieldOf(node, 'function')?.text === 'super';
}

/** `super().name(...)`: runs the next user class's method on the same `self`; library bases do nothing. */
function callSuper(interp: Interpreter, input: { name: string; node: SyntaxNode; env: Env }): Value {
  const { name, node, env } = input;
  const current = env.currentClass;
  const self = env.get('self');
  if (!current || !self) return NONE;
  const order = interp.mro(current);
  for (const info of order.slice(1)) {
    const method = info.methods.get(name);
    if (!method) continue;
    const args = evalArgs(interp, { node, env });
    return runFunction(interp, {
      fn: { kind: 'function', node: method, scope: info.scope, self, cls: info },
      args,
      node,
    }).value;
  }
  return NONE;
}

/** Built-in methods of plain values and modules; undefined when `name` is not one of them. */
export function callMethod(
  interp: Interpreter,
  input: { receiver: Value; name: string; args: CallArgs; node: SyntaxNode },
): Value | undefined {
  const { receiver, name, args, node } = input;
  const [first, second] = args.positional;
  switch (receiver.kind) {
    case 'seq':
      if (name === 'append' && first) receiver.items.push(first);
      else if (name === 'extend' && first)
        receiver.items.push(...(iterate(first) ?? [unknown(node, reasonOf(first, node))]));
      else if (name === 'insert' && second && first?.kind === 'num')
        receiver.items.splice(first.value, 0, second);
      else if (name === 'copy') return seq([...receiver.items], receiver.tuple);
      else return undefined;
      return NONE;
    case 'dict':
      if (name === 'get' && first?.kind === 'str') return receiver.entries.get(first.value) ?? second ?? NONE;
      if (name === 'keys') return seq([...receiver.entries.keys()].map(str));
      if (name === 'values') return seq([...receiver.entries.values()]);
      if (name === 'items') return seq([...receiver.entries].map(([k, v]) => seq([str(k), v], true)));
      if (name === 'copy') return { kind: 'dict', entries: new Map(receiver.entries) };
      if (name === 'update' && first?.kind === 'dict') {
        for (const [k, v] of first.entries) receiver.entries.set(k, v);
        for (const [k, v] of args.keywords) receiver.entries.set(k, v);
        return NONE;
      }
      if (name === 'pop' && first?.kind === 'str') {
        const value =
          receiver.entries.get(first.value) ?? second ?? unknown(node, `key ${first.value} not found`);
        receiver.entries.delete(first.value);
        return value;
      }
      return undefined;
    case 'object':
      if (name === 'get' && first?.kind === 'str') return receiver.fields.get(first.value) ?? second ?? NONE;
      return undefined;
    case 'param':
      if (name === 'requires_grad_') {
        receiver.param.trainable = first ? first.kind !== 'bool' || first.value : true;
        return receiver;
      }
      return undefined;
    case 'module':
      return containerMethod(interp, { module: receiver.module, self: receiver, name, args, node });
    case 'tensor':
      return {
        kind: 'tensor',
        shape: [
          'float',
          'to',
          'clone',
          'detach',
          'contiguous',
          'bool',
          'half',
          'bfloat16',
          'normal_',
          'uniform_',
          'zero_',
          'fill_',
          'trunc_normal_',
          'requires_grad_',
        ].includes(name)
          ? receiver.shape
          : name === 'view' || name === 'reshape'
            ? reshaped(receiver.shape, args.positional)
            : null,
        text: node.text,
      };
    case 'unknown':
      return unknown(node, receiver.reason);
    default:
      return undefined;
  }
}

/** The shape of `t.view(*dims)` / `t.reshape(dims)` (one -1 allowed), or null when not known. */
function reshaped(shape: number[] | null, args: Value[]): number[] | null {
  const items = args.length === 1 && args[0].kind === 'seq' ? args[0].items : args;
  const dims = items.map((v) => (v.kind === 'num' ? v.value : undefined));
  if (!shape || dims.some((d) => d === undefined)) return null;
  const total = shape.reduce((a, d) => a * d, 1);
  const known = (dims as number[]).filter((d) => d !== -1).reduce((a, d) => a * d, 1);
  const out = (dims as number[]).map((d) => (d === -1 ? total / known : d));
  return out.reduce((a, d) => a * d, 1) === total && out.every(Number.isInteger) ? out : null;
}

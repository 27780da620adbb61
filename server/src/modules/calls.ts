// Calls in the symbolic interpreter: argument evaluation, `super().__init__()`, methods on
// lists, dicts, configs, parameters and modules, and dispatch to user classes and functions
// (instantiate.ts) or to library names (library-calls.ts).
import type { SyntaxNode } from '../parse/syntax';
import { initLibraryBase, libraryModuleMethod } from './base-init';
import { containerMethod } from './containers';
import { bindRecordFields, classKind, instantiateClass, runFunction } from './instantiate';
import { reasonOf, type Env, type Interpreter } from './interpreter';
import { callQualified } from './library-calls';
import { tensorMethod } from './tensor-values';
import { NONE, iterate, seq, shortText, str, unknown, type Value } from './values';
import { fieldOf, isSuperCall } from '../analysis/syntax-helpers';

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
      if (spread.kind === 'dict' && spread.tainted) args.incomplete = unknown(arg, spread.tainted);
      else if (spread.kind === 'dict') for (const [k, v] of spread.entries) args.keywords.set(k, v);
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
    const result = callValue(interp, { callee: method, args, node });
    return noteOpaqueCall({ callee: method, args, result, node, receiver });
  }
  const calleeValue = interp.evalExpr(callee, env);
  const args = evalArgs(interp, { node, env });
  return noteOpaqueCall({
    callee: calleeValue,
    args,
    node,
    result: callValue(interp, { callee: calleeValue, args, node }),
  });
}

/** Calls that leave a module's parameters alone: initialisers, logging, and builtins (setattr is followed itself). */
const HARMLESS = /^(torch\.nn\.init\.|torch\._C\._log_api_usage_once$|logging\.|warnings\.|builtins\.)/;

/**
 * A call we could not follow that was handed a module (or called on one) may have added or
 * removed its parameters: the module gets an unknown part, so its count is never shown as exact.
 */
function noteOpaqueCall(input: {
  callee: Value;
  args: CallArgs;
  result: Value;
  node: SyntaxNode;
  receiver?: Value;
}): Value {
  const { callee, args, result, node, receiver } = input;
  if (result.kind !== 'unknown' || callee.kind === 'function' || callee.kind === 'class') return result;
  if (callee.kind === 'qualified' && HARMLESS.test(callee.name)) return result;
  const touched = [receiver, ...args.positional, ...args.keywords.values()];
  for (const value of touched) {
    if (value?.kind !== 'module') continue;
    value.module.unknowns.push({ text: shortText(node.text), reason: result.reason, line: node.start.line });
  }
  return result;
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
    case 'partial':
      return callValue(interp, {
        callee: callee.callee,
        args: {
          positional: [...callee.positional, ...args.positional],
          keywords: new Map([...callee.keywords, ...args.keywords]),
          incomplete: args.incomplete,
        },
        node,
      });
    case 'unknown':
      return unknown(node, callee.reason);
    default:
      return unknown(node, `\`${node.text.split('(')[0]}\` not evaluated`);
  }
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
  if (name !== '__init__') return NONE;
  if (self.kind === 'object' && order.length > 1 && classKind(interp, order[1]) === 'record') {
    bindRecordFields(interp, { cls: order[1], args: evalArgs(interp, { node, env }), fields: self.fields });
    return NONE;
  }
  return initLibraryBase(interp, { cls: current, self, args: evalArgs(interp, { node, env }), node });
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
      else if (name === 'pop' && receiver.items.length && (!first || first.kind === 'num'))
        return receiver.items.splice(first?.kind === 'num' ? first.value : -1, 1)[0];
      else if (name === 'index' || name === 'count') return undefined;
      else return taint(receiver, { name, node });
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
      if (name === 'setdefault' && first?.kind === 'str') {
        if (!receiver.entries.has(first.value)) receiver.entries.set(first.value, second ?? NONE);
        return receiver.entries.get(first.value)!;
      }
      if (name === 'pop' && first?.kind === 'str') {
        const value =
          receiver.entries.get(first.value) ?? second ?? unknown(node, `key ${first.value} not found`);
        receiver.entries.delete(first.value);
        return value;
      }
      return taint(receiver, { name, node });
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
      return (
        containerMethod(interp, { module: receiver.module, self: receiver, name, args, node }) ??
        libraryModuleMethod(interp, { self: receiver, name, node })
      );
    case 'tensor':
      if ((name === 'view' || name === 'reshape') && receiver.shape) return reshaped(receiver, args, node);
      return (
        tensorMethod(name, receiver, node.text) ?? {
          kind: 'tensor',
          shape: SAME_SHAPE_METHODS.has(name) || /^[a-z]\w*_$/.test(name) ? receiver.shape : null,
          text: node.text,
        }
      );
    case 'str':
      return stringMethod({ receiver: receiver.value, name, args, node });
    case 'unknown':
      return unknown(node, receiver.reason);
    default:
      return undefined;
  }
}

/** Tensor methods whose result has the receiver's shape (in-place `x_` methods too). */
const SAME_SHAPE_METHODS = new Set(
  'float double half bfloat16 to cuda cpu clone detach contiguous type abs neg exp log sqrt sigmoid tanh mul add sub div'.split(
    ' ',
  ),
);

/** str methods model code uses on known strings; undefined for others. */
function stringMethod(input: {
  receiver: string;
  name: string;
  args: CallArgs;
  node: SyntaxNode;
}): Value | undefined {
  const { receiver, name, args, node } = input;
  const [first, second] = args.positional;
  const text = (value: Value | undefined) => (value?.kind === 'str' ? value.value : undefined);
  switch (name) {
    case 'startswith':
    case 'endswith': {
      const options = first?.kind === 'seq' ? first.items.map(text) : [text(first)];
      if (options.some((o) => o === undefined)) return unknown(node, `\`${name}\` argument unknown`);
      const test = (o: string) => (name === 'startswith' ? receiver.startsWith(o) : receiver.endsWith(o));
      return { kind: 'bool', value: (options as string[]).some(test) };
    }
    case 'lower':
    case 'upper':
    case 'strip':
      return str(
        name === 'lower'
          ? receiver.toLowerCase()
          : name === 'upper'
            ? receiver.toUpperCase()
            : receiver.trim(),
      );
    case 'replace':
      return text(first) !== undefined && text(second) !== undefined
        ? str(receiver.split(text(first)!).join(text(second)!))
        : unknown(node, '`replace` arguments unknown');
    case 'split': {
      const separator = text(first);
      const parts = separator === undefined ? receiver.trim().split(/\s+/) : receiver.split(separator);
      return seq(parts.map(str));
    }
    case 'join': {
      const items = first ? iterate(first) : undefined;
      const texts = items?.map(text);
      if (!texts || texts.some((t) => t === undefined)) return unknown(node, '`join` items unknown');
      return str(texts.join(receiver));
    }
    default:
      return undefined;
  }
}

/** `t.view(1, 1, n, n)` / `t.reshape((a, -1))`: the new shape when its numbers are known (one -1 inferred). */
function reshaped(tensor: Extract<Value, { kind: 'tensor' }>, args: CallArgs, node: SyntaxNode): Value {
  const [first] = args.positional;
  const dims = (args.positional.length === 1 && first?.kind === 'seq' ? first.items : args.positional).map(
    (v) => (v.kind === 'num' ? v.value : undefined),
  );
  const total = tensor.shape!.reduce((a, b) => a * b, 1);
  const known = dims.filter((d): d is number => d !== undefined && d !== -1).reduce((a, b) => a * b, 1);
  const shape = dims.map((d) => (d === -1 ? total / known : d));
  const ok =
    shape.every((d) => d !== undefined && Number.isInteger(d)) &&
    shape.reduce((a, b) => a! * b!, 1) === total;
  return { kind: 'tensor', shape: ok ? (shape as number[]) : null, text: node.text };
}

/**
 * A list or dict method we do not model may have changed the container: it is marked, so that
 * splatting or iterating it later is unknown instead of silently stale.
 */
function taint(
  receiver: Extract<Value, { kind: 'seq' | 'dict' }>,
  input: { name: string; node: SyntaxNode },
): Value {
  const reason = `\`.${input.name}()\` not evaluated`;
  receiver.tainted = reason;
  return unknown(input.node, reason);
}

// The values the symbolic evaluator computes: Python numbers, strings, containers, config
// objects, classes, functions, tensors, parameters and module instances, plus `unknown`,
// which carries the source text and the reason it could not be evaluated (never a guess).
import type { SyntaxNode } from '../parse/syntax';
import type { ClassInfo, FileScope } from './classes';
import type { ModuleInstance, Param } from './module-instance';
import { tensorArithmetic, tensorElements } from './tensor-values';

/** A value that could not be evaluated: the expression and why (e.g. "`vocab` unknown"). */
export interface UnknownValue {
  kind: 'unknown';
  text: string;
  reason: string;
}

/** A tensor created in `__init__` (`torch.zeros(4, 8)`); shape null when not known. */
export interface TensorValue {
  kind: 'tensor';
  shape: number[] | null;
  text: string;
  reason?: string;
  /** The values of a small 1-D tensor when known (tensor-values.ts). */
  data?: number[];
  /** int64 values (else float32, or float64 for numpy arrays). */
  integral?: boolean;
  float64?: boolean;
}

/** A user function or method (bound to `self` when taken from an instance). */
export interface FunctionValue {
  kind: 'function';
  node: SyntaxNode;
  scope: FileScope;
  self?: Value;
  /** The class defining the method (for `super()`). */
  cls?: ClassInfo;
  /** The enclosing function's scope, for functions defined inside a function. */
  closure?: import('./interpreter').Env;
}

/** Every value the evaluator can hold. */
export type Value =
  | { kind: 'num'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'none' }
  | { kind: 'seq'; items: Value[]; tuple: boolean; tainted?: string }
  | { kind: 'dict'; entries: Map<string, Value>; tainted?: string }
  | {
      kind: 'object';
      className: string;
      cls?: ClassInfo;
      fields: Map<string, Value>;
      /** Why its attributes may include some not in `fields` (a `setattr` we could not follow). */
      open?: string;
    }
  | { kind: 'class'; cls: ClassInfo }
  | { kind: 'qualified'; name: string }
  | { kind: 'pymodule'; scope: FileScope }
  | FunctionValue
  | { kind: 'module'; module: ModuleInstance }
  | { kind: 'param'; param: Param }
  | TensorValue
  | PartialValue
  | UnknownValue;

/** `functools.partial(callee, *args, **keywords)`: calling it prepends and merges the arguments. */
export interface PartialValue {
  kind: 'partial';
  callee: Value;
  positional: Value[];
  keywords: Map<string, Value>;
}

export const NONE: Value = { kind: 'none' };
export const num = (value: number): Value => ({ kind: 'num', value });
export const str = (value: string): Value => ({ kind: 'str', value });
export const bool = (value: boolean): Value => ({ kind: 'bool', value });
export const seq = (items: Value[], tuple = false): Value => ({ kind: 'seq', items, tuple });

const MAX_TEXT = 80;

/** Shortens source text for messages: one line, at most 80 characters. */
export function shortText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat;
}

/** An unknown value for `node` with a reason. */
export function unknown(node: SyntaxNode | string, reason: string): UnknownValue {
  return { kind: 'unknown', text: shortText(typeof node === 'string' ? node : node.text), reason };
}

/** The first unknown among `values`, if any (its reason explains a derived unknown). */
export function firstUnknown(values: readonly (Value | undefined)[]): UnknownValue | undefined {
  for (const value of values) if (value?.kind === 'unknown') return value;
  return undefined;
}

/** Python truthiness; undefined when the value is unknown. */
export function truthy(value: Value): boolean | undefined {
  switch (value.kind) {
    case 'num':
      return value.value !== 0;
    case 'str':
      return value.value !== '';
    case 'bool':
      return value.value;
    case 'none':
      return false;
    case 'seq':
      return value.items.length > 0;
    case 'dict':
      return value.entries.size > 0;
    case 'unknown':
      return undefined;
    case 'tensor':
    case 'qualified':
      return undefined;
    default:
      return true;
  }
}

/** The number a value holds (booleans count as 0/1, as in Python), else undefined. */
export function asNumber(value: Value | undefined): number | undefined {
  if (value?.kind === 'num') return value.value;
  if (value?.kind === 'bool') return value.value ? 1 : 0;
  return undefined;
}

/** The items of a list/tuple/dict-keys/string value, else undefined. */
export function iterate(value: Value): Value[] | undefined {
  if ((value.kind === 'seq' || value.kind === 'dict') && value.tainted) return undefined;
  if (value.kind === 'seq') return value.items;
  if (value.kind === 'dict') return [...value.entries.keys()].map(str);
  if (value.kind === 'str') return [...value.value].map(str);
  if (value.kind === 'tensor') return tensorElements(value);
  if (value.kind === 'module') {
    const mod = value.module;
    if (mod.containerKind === 'dict') return [...mod.children.keys()].map(str);
    return [...mod.children.values()].map((m): Value => ({ kind: 'module', module: m }));
  }
  return undefined;
}

/** Python equality for plain values; undefined when either side is unknown. */
export function pyEquals(a: Value, b: Value): boolean | undefined {
  if (a.kind === 'unknown' || b.kind === 'unknown') return undefined;
  const an = asNumber(a);
  const bn = asNumber(b);
  if (an !== undefined && bn !== undefined) return an === bn;
  if (a.kind === 'str' && b.kind === 'str') return a.value === b.value;
  if (a.kind === 'none' || b.kind === 'none') return a.kind === b.kind;
  if (a.kind === 'seq' && b.kind === 'seq') {
    if (a.items.length !== b.items.length) return false;
    let all: boolean | undefined = true;
    a.items.forEach((item, i) => {
      const same = pyEquals(item, b.items[i]);
      if (same === undefined) all = undefined;
      else if (!same && all !== undefined) all = false;
    });
    return all;
  }
  if (a.kind === 'module' && b.kind === 'module') return a.module === b.module;
  // Known plain values of different types are never equal (`64 == "M"` is False).
  const plain = ['num', 'bool', 'str', 'seq', 'dict'];
  if (plain.includes(a.kind) && plain.includes(b.kind) && (an === undefined || bn === undefined))
    return false;
  return undefined;
}

/** Evaluates `left op right` for numbers, strings and sequences; undefined when not applicable. */
export function binaryOp(op: string, left: Value, right: Value): Value | undefined {
  const l = asNumber(left);
  const r = asNumber(right);
  if (l !== undefined && r !== undefined) return numericOp(op, l, r);
  if (op === '+' && left.kind === 'str' && right.kind === 'str') return str(left.value + right.value);
  if (op === '+' && left.kind === 'seq' && right.kind === 'seq')
    return seq([...left.items, ...right.items], left.tuple);
  if (op === '*' && left.kind === 'seq' && r !== undefined) return seq(repeat(left.items, r), left.tuple);
  if (op === '*' && right.kind === 'seq' && l !== undefined) return seq(repeat(right.items, l), right.tuple);
  if (op === '*' && left.kind === 'str' && r !== undefined) return str(left.value.repeat(Math.max(0, r)));
  if (op === '%' && left.kind === 'str') return percentFormat(left.value, right);
  const valued = tensorArithmetic(op, left, right, 'tensor');
  if (valued) return valued;
  const tensor = left.kind === 'tensor' ? left : right.kind === 'tensor' ? right : undefined;
  if (tensor && (l !== undefined || r !== undefined || left.kind === right.kind))
    return elementwise(tensor, left.kind === 'tensor' && right.kind === 'tensor' ? right : undefined);
  return undefined;
}

/** The result of an elementwise op on tensors: the shape when both sides agree (or one is a scalar). */
function elementwise(a: Extract<Value, { kind: 'tensor' }>, b?: Extract<Value, { kind: 'tensor' }>): Value {
  const same = !b || (a.shape && b.shape && a.shape.join() === b.shape.join());
  return {
    kind: 'tensor',
    shape: same ? a.shape : null,
    text: a.text,
    reason: same ? a.reason : 'broadcast shape',
  };
}

/** `"layer%d" % i`, `"%s_%s" % (a, b)`: %d, %i, %s, %r and %% with known values. */
function percentFormat(format: string, right: Value): Value | undefined {
  const values = right.kind === 'seq' && right.tuple ? [...right.items] : [right];
  let failed = false;
  const text = format.replace(/%([disr%])/g, (_, code: string) => {
    if (code === '%') return '%';
    const value = values.shift();
    if (!value || (value.kind !== 'num' && value.kind !== 'str' && value.kind !== 'bool')) {
      failed = true;
      return '';
    }
    if (code === 'd' || code === 'i')
      return String(Math.trunc(Number(value.kind === 'bool' ? +value.value : value.value)));
    return code === 'r' && value.kind === 'str' ? `'${value.value}'` : renderPlain(value);
  });
  return failed || /%[^disr%]/.test(format) ? undefined : str(text);
}

/** `str(value)` for numbers, strings and booleans. */
export function renderPlain(value: Value): string {
  if (value.kind === 'bool') return value.value ? 'True' : 'False';
  if (value.kind === 'str') return value.value;
  if (value.kind === 'num') return String(value.value);
  if (value.kind === 'none') return 'None';
  return renderValue(value);
}

function repeat(items: Value[], times: number): Value[] {
  const out: Value[] = [];
  for (let i = 0; i < Math.min(times, 100_000); i++) out.push(...items);
  return out;
}

function numericOp(op: string, l: number, r: number): Value | undefined {
  switch (op) {
    case '+':
      return num(l + r);
    case '-':
      return num(l - r);
    case '*':
      return num(l * r);
    case '/':
      return r === 0 ? undefined : num(l / r);
    case '//':
      return r === 0 ? undefined : num(Math.floor(l / r));
    case '%':
      return r === 0 ? undefined : num(l - r * Math.floor(l / r));
    case '**':
      return num(l ** r);
    case '<<':
      return num(l * 2 ** r);
    case '>>':
      return num(Math.floor(l / 2 ** r));
    case '^':
      return num(l ^ r);
    case '&':
      return num(l & r);
    case '|':
      return num(l | r);
    default:
      return undefined;
  }
}

/** Evaluates a comparison between two known values; undefined when it cannot be decided. */
export function compareOp(op: string, left: Value, right: Value): boolean | undefined {
  if (op === 'is' || op === '==') return pyEquals(left, right);
  if (op === 'is not' || op === '!=') {
    const same = pyEquals(left, right);
    return same === undefined ? undefined : !same;
  }
  if (op === 'in' || op === 'not in') {
    const items = iterate(right);
    if (!items) return undefined;
    const found = items.some((item) => pyEquals(item, left) === true);
    return op === 'in' ? found : !found;
  }
  const l = asNumber(left);
  const r = asNumber(right);
  if (l === undefined || r === undefined) return undefined;
  if (op === '<') return l < r;
  if (op === '<=') return l <= r;
  if (op === '>') return l > r;
  if (op === '>=') return l >= r;
  return undefined;
}

/** A short Python-like rendering of a value, for constructor expressions and notes. */
export function renderValue(value: Value): string {
  switch (value.kind) {
    case 'num':
      return Number.isInteger(value.value) ? String(value.value) : String(value.value);
    case 'str':
      return JSON.stringify(value.value);
    case 'bool':
      return value.value ? 'True' : 'False';
    case 'none':
      return 'None';
    case 'seq': {
      const inner = value.items.map(renderValue).join(', ');
      return value.tuple ? `(${inner}${value.items.length === 1 ? ',' : ''})` : `[${inner}]`;
    }
    case 'object':
      return `${value.className}(…)`;
    case 'class':
      return value.cls.name;
    case 'qualified':
      return value.name;
    case 'unknown':
      return value.text;
    default:
      return `<${value.kind}>`;
  }
}

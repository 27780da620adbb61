// Calls to library names: Python builtins (range, min, max, int, len, dict, ...), math,
// torch tensor factories, nn.Parameter, torch.nn layers and containers, copy.deepcopy,
// OrderedDict, and library models (torchvision, transformers) through the estimate catalog.
import type { SyntaxNode } from '../parse/syntax';
import type { CallArgs } from './calls';
import { createContainer, isContainer } from './containers';
import type { Interpreter } from './interpreter';
import { createComposite } from './composite-layers';
import { callIntrospection } from './introspection';
import { arangeValues, linspaceValues, tensorArithmetic, tensorMethod, valuedTensor } from './tensor-values';
import { createLayer } from './layers';
import { isLibraryConfig, libraryModel } from './library-models';
import { ModuleInstance, deepCopyModule, makeParam } from './module-instance';
import {
  NONE,
  asNumber,
  bool,
  firstUnknown,
  iterate,
  num,
  pyEquals,
  seq,
  str,
  truthy,
  unknown,
  type Value,
} from './values';

const TENSOR_FACTORIES = new Set([
  'zeros',
  'ones',
  'randn',
  'rand',
  'empty',
  'full',
  'randint',
  'eye',
  'arange',
  'tensor',
  'linspace',
]);

/** `torch.divide`, `torch.pow`, `torch.round`, `torch.diff`, ... on tensors whose values are known. */
function valuedTorchCall(input: { name: string; args: CallArgs; text: string }): Value | undefined {
  const { name, args, text } = input;
  const [a, b] = args.positional;
  if ((name === 'divide' || name === 'div') && a && b) return tensorArithmetic('/', a, b, text);
  if (name === 'pow' && a && b) return tensorArithmetic('**', a, b, text);
  if ((name === 'add' || name === 'mul' || name === 'sub') && a && b)
    return tensorArithmetic({ add: '+', mul: '*', sub: '-' }[name], a, b, text);
  if (a?.kind === 'tensor') return tensorMethod(name, a, text);
  return undefined;
}

/** torch functions whose result has their first argument's shape. */
const ELEMENTWISE = new Set(
  'log exp abs neg sqrt sigmoid tanh clone clamp log1p expm1 sin cos tril triu'.split(' '),
);

/** Calls the library function or class `name` (fully qualified). */
export function callQualified(
  interp: Interpreter,
  input: { name: string; args: CallArgs; node: SyntaxNode },
): Value {
  const { name, args, node } = input;
  if (name.startsWith('builtins.'))
    return (
      callIntrospection(interp, { name: name.slice(9), args, node }) ??
      callBuiltin({ name: name.slice(9), args, node })
    );
  if (name.startsWith('math.')) return callMath({ name: name.slice(5), args, node });
  const torchNn = /^torch\.nn\.(?:modules\.\w+\.|parameter\.)?(\w+)$/.exec(name);
  if (torchNn) return callTorchNn(interp, { name: torchNn[1], args, node });
  const factory = /^torch\.(\w+)$/.exec(name);
  if (factory && TENSOR_FACTORIES.has(factory[1])) return tensorFactory({ name: factory[1], args, node });
  const first = args.positional[0];
  if (factory && first?.kind === 'tensor' && first.data) {
    const valued = valuedTorchCall({ name: factory[1], args, text: node.text });
    if (valued) return valued;
  }
  if (factory && ELEMENTWISE.has(factory[1]) && first?.kind === 'tensor')
    return { kind: 'tensor', shape: first.shape, text: node.text, reason: first.reason };
  if (factory?.[1] === 'pow' && first?.kind === 'num' && args.positional[1]?.kind === 'tensor')
    return (
      valuedTorchCall({ name: 'pow', args, text: node.text }) ?? unknown(node, '`torch.pow` not evaluated')
    );
  if (/^(numpy|np)\.linspace$/.test(name))
    return (
      linspaceValues(args.positional.map(asNumber), node.text) ?? unknown(node, '`linspace` not evaluated')
    );
  if (name === 'copy.copy' && args.positional[0]) return shallowCopy(args.positional[0]);
  if (name === 'copy.deepcopy' && args.positional[0]) return deepCopy(args.positional[0]);
  if (name === 'functools.partial' && args.positional[0]) {
    if (args.incomplete) return unknown(node, (args.incomplete as { reason: string }).reason);
    const [callee, ...positional] = args.positional;
    return { kind: 'partial', callee, positional, keywords: new Map(args.keywords) };
  }
  if (/^(collections|typing)\.(OrderedDict|defaultdict|DefaultDict|Dict)$/.test(name))
    return callBuiltin({ name: 'dict', args, node });
  if (/^typing\.List$/.test(name)) return callBuiltin({ name: 'list', args, node });
  if (name === 'typing.cast' && args.positional[1]) return args.positional[1];
  if (/^torch\.nn\.init\./.test(name) || /^(typing|warnings|logging)\./.test(name)) return NONE;
  if (name === 'types.SimpleNamespace')
    return { kind: 'object', className: 'SimpleNamespace', fields: new Map(args.keywords) };
  if (isLibraryConfig(name))
    return { kind: 'object', className: name.split('.').pop()!, fields: new Map(args.keywords) };
  if (/^torchvision\.ops\.(?:stochastic_depth\.)?StochasticDepth$/.test(name)) {
    // torchvision/ops/stochastic_depth.py: StochasticDepth(p, mode) has no parameters or buffers.
    const layer = new ModuleInstance('StochasticDepth', 'torchvision.ops.StochasticDepth', 'layer');
    layer.constructorText = node.text;
    layer.constructorArgs = { positional: args.positional, keywords: args.keywords };
    layer.origin = { file: null, line: node.start.line, character: node.start.column };
    if (!interp.builtAt.has(node)) interp.builtAt.set(node, layer);
    return { kind: 'module', module: layer };
  }
  const model = libraryModel({ name, args, node });
  if (model) return { kind: 'module', module: model };
  return unknown(node, `\`${name}\` not understood`);
}

function callTorchNn(interp: Interpreter, input: { name: string; args: CallArgs; node: SyntaxNode }): Value {
  const { name, args, node } = input;
  if (name === 'Parameter') {
    const data = args.positional[0] ?? args.keywords.get('data');
    const requiresGrad = args.positional[1] ?? args.keywords.get('requires_grad');
    const trainable = requiresGrad ? truthy(requiresGrad) !== false : true;
    if (data?.kind === 'tensor' && data.shape)
      return { kind: 'param', param: makeParam(data.shape, trainable) };
    if (data?.kind === 'param') return data;
    return unknown(
      node,
      data?.kind === 'unknown'
        ? data.reason
        : ((data as { reason?: string })?.reason ?? 'tensor shape unknown'),
    );
  }
  if (name === 'Module')
    return { kind: 'module', module: new ModuleInstance('Module', 'torch.nn.Module', 'container') };
  if (isContainer(name)) return { kind: 'module', module: createContainer({ name, args, node }) };
  const composite = createComposite({ name, args, text: node.text });
  if (composite) {
    composite.origin = { file: null, line: node.start.line, character: node.start.column };
    if (!interp.builtAt.has(node)) interp.builtAt.set(node, composite);
    return { kind: 'module', module: composite };
  }
  const layer = createLayer({ name, positional: args.positional, keywords: args.keywords, text: node.text });
  if (!layer) return unknown(node, `\`nn.${name}\` is not in the layer catalog`);
  if (args.incomplete)
    layer.unknowns.push({ text: node.text, reason: (args.incomplete as { reason: string }).reason });
  layer.origin = { file: null, line: node.start.line, character: node.start.column };
  if (!interp.builtAt.has(node)) interp.builtAt.set(node, layer);
  return { kind: 'module', module: layer };
}

/** Shapes from `torch.zeros(2, 3)`, `torch.zeros((2, 3))`, `torch.zeros([2, 3])`, `torch.arange(n)`. */
function tensorFactory(input: { name: string; args: CallArgs; node: SyntaxNode }): Value {
  const { name, args, node } = input;
  const values =
    name === 'full' || name === 'randint'
      ? args.positional.slice(name === 'randint' ? -1 : 0, 1)
      : args.positional;
  const text = node.text;
  const missing = firstUnknown(values);
  if (missing) return { kind: 'tensor', shape: null, text, reason: missing.reason };
  if (name === 'arange') {
    const valued = arangeValues(values.map(asNumber), text);
    if (valued) return valued;
    const [a, b, step] = values.map(asNumber);
    const count = b === undefined ? a : Math.ceil((b - (a ?? 0)) / (step ?? 1));
    return { kind: 'tensor', shape: count === undefined ? null : [count], text };
  }
  if (name === 'eye') {
    const [n, m] = values.map(asNumber);
    return { kind: 'tensor', shape: n === undefined ? null : [n, m ?? n], text };
  }
  if (name === 'tensor') {
    const items = values[0]?.kind === 'seq' ? values[0].items.map(asNumber) : undefined;
    if (items && items.every((v) => v !== undefined))
      return valuedTensor({
        data: items as number[],
        integral: (items as number[]).every(Number.isInteger),
        text,
      });
    return { kind: 'tensor', shape: literalShape(values[0]), text };
  }
  if (name === 'linspace') {
    const steps = asNumber(values[2] ?? args.keywords.get('steps'));
    const valued = linspaceValues([asNumber(values[0]), asNumber(values[1]), steps], text, false);
    if (valued) return valued;
    return { kind: 'tensor', shape: steps !== undefined ? [steps] : null, text };
  }
  const dims = values.length === 1 && values[0].kind === 'seq' ? values[0].items : values;
  const shape = dims.map(asNumber);
  if (shape.some((d) => d === undefined))
    return { kind: 'tensor', shape: null, text, reason: 'shape not evaluated' };
  return { kind: 'tensor', shape: shape as number[], text };
}

function literalShape(value: Value | undefined): number[] | null {
  if (!value) return null;
  if (value.kind === 'num' || value.kind === 'bool') return [];
  if (value.kind !== 'seq') return null;
  const inner = value.items.length ? literalShape(value.items[0]) : [];
  return inner ? [value.items.length, ...inner] : null;
}

/** `copy.copy`: a new container or config object with the same items (modules are deep-copied: their parameters would be shared, which we do not model). */
function shallowCopy(value: Value): Value {
  if (value.kind === 'object') return { ...value, fields: new Map(value.fields) };
  if (value.kind === 'dict') return { kind: 'dict', entries: new Map(value.entries) };
  if (value.kind === 'seq') return seq([...value.items], value.tuple);
  if (value.kind === 'module') return unknown(value.module.typeName, '`copy.copy` of a module not evaluated');
  return value;
}

/** A deep copy: a module gets fresh parameters (as `copy.deepcopy` does). */
function deepCopy(value: Value): Value {
  return value.kind === 'module' ? { kind: 'module', module: deepCopyModule(value.module) } : value;
}

function callMath(input: { name: string; args: CallArgs; node: SyntaxNode }): Value {
  const { name, args, node } = input;
  const values = args.positional.map(asNumber);
  const missing = firstUnknown(args.positional);
  if (missing) return unknown(node, missing.reason);
  const [a, b] = values;
  if (a === undefined) return unknown(node, `\`math.${name}\` not evaluated`);
  const table: Record<string, () => number> = {
    ceil: () => Math.ceil(a),
    floor: () => Math.floor(a),
    sqrt: () => Math.sqrt(a),
    log2: () => Math.log2(a),
    log: () => (b === undefined ? Math.log(a) : Math.log(a) / Math.log(b)),
    exp: () => Math.exp(a),
    gcd: () => gcd(a, b ?? 0),
    prod: () => (iterate(args.positional[0]) ?? []).reduce((p, v) => p * (asNumber(v) ?? NaN), 1),
  };
  const fn = table[name];
  const result = fn ? fn() : NaN;
  return Number.isFinite(result) ? num(result) : unknown(node, `\`math.${name}\` not evaluated`);
}

function gcd(a: number, b: number): number {
  return b === 0 ? Math.abs(a) : gcd(b, a % b);
}

function callBuiltin(input: { name: string; args: CallArgs; node: SyntaxNode }): Value {
  const { name, args, node } = input;
  const [first, second] = args.positional;
  const numbers = args.positional.map(asNumber);
  const missing = firstUnknown(args.positional);
  switch (name) {
    case 'range': {
      if (missing) return unknown(node, missing.reason);
      const [a, b, step = 1] = numbers;
      if (a === undefined || step === 0) return unknown(node, 'range not evaluated');
      const [start, end] = b === undefined ? [0, a] : [a, b];
      const items: Value[] = [];
      for (let i = start; step > 0 ? i < end : i > end; i += step) {
        if (items.length > 100_000) return unknown(node, 'range too long');
        items.push(num(i));
      }
      return seq(items);
    }
    case 'min':
    case 'max': {
      const pool = args.positional.length === 1 ? (iterate(first) ?? [first]) : args.positional;
      const unknownItem = firstUnknown(pool);
      if (unknownItem) return unknown(node, unknownItem.reason);
      const values = pool.map(asNumber);
      if (!values.length || values.some((v) => v === undefined))
        return unknown(node, `\`${name}\` not evaluated`);
      return num(name === 'min' ? Math.min(...(values as number[])) : Math.max(...(values as number[])));
    }
    case 'int':
    case 'float':
    case 'round':
    case 'abs': {
      if (missing) return unknown(node, missing.reason);
      const a = numbers[0] ?? (first?.kind === 'str' ? Number(first.value) : undefined);
      if (a === undefined || Number.isNaN(a)) return unknown(node, `\`${name}\` not evaluated`);
      if (name === 'int') return num(Math.trunc(a));
      if (name === 'round')
        return num(numbers[1] === undefined ? roundHalfEven(a) : Number(a.toFixed(numbers[1])));
      return num(name === 'abs' ? Math.abs(a) : a);
    }
    case 'len': {
      const items = first ? iterate(first) : undefined;
      return items
        ? num(items.length)
        : unknown(node, first?.kind === 'unknown' ? first.reason : '`len` not evaluated');
    }
    case 'sum': {
      const items = first ? iterate(first) : undefined;
      const values = items?.map(asNumber);
      if (!values || values.some((v) => v === undefined))
        return unknown(node, first?.kind === 'unknown' ? first.reason : '`sum` not evaluated');
      return num((values as number[]).reduce((a, b) => a + b, asNumber(second) ?? 0));
    }
    case 'set':
    case 'frozenset': {
      // NOTE: first-seen order; code reads len() and membership, not a set's iteration order.
      const items = first ? iterate(first) : [];
      if (!items) return unknown(node, first?.kind === 'unknown' ? first.reason : '`set` not evaluated');
      const kept: Value[] = [];
      for (const item of items) {
        const same = kept.map((k) => pyEquals(k, item));
        if (same.includes(undefined)) return unknown(node, '`set` items not comparable');
        if (!same.includes(true)) kept.push(item);
      }
      return seq(kept);
    }
    case 'list':
    case 'tuple':
    case 'sorted':
    case 'reversed': {
      if (!first) return seq([], name === 'tuple');
      const items = iterate(first);
      if (!items) return unknown(node, first.kind === 'unknown' ? first.reason : `\`${name}\` not evaluated`);
      const copy = [...items];
      if (name === 'reversed') copy.reverse();
      if (name === 'sorted') copy.sort((x, y) => (asNumber(x) ?? 0) - (asNumber(y) ?? 0));
      return seq(copy, name === 'tuple');
    }
    case 'dict': {
      const entries = new Map<string, Value>();
      if (first?.kind === 'dict') for (const [k, v] of first.entries) entries.set(k, v);
      else if (first)
        for (const pair of iterate(first) ?? []) {
          const [k, v] = iterate(pair) ?? [];
          if ((k?.kind === 'str' || k?.kind === 'num') && v) entries.set(String(k.value), v);
        }
      for (const [k, v] of args.keywords) entries.set(k, v);
      return { kind: 'dict', entries };
    }
    case 'enumerate':
    case 'zip': {
      const lists = args.positional.map((v) => iterate(v));
      if (lists.some((l) => !l)) return unknown(node, missing?.reason ?? `\`${name}\` not evaluated`);
      const length = Math.min(...lists.map((l) => l!.length));
      const start = asNumber(second ?? args.keywords.get('start')) ?? 0;
      return seq(
        Array.from({ length: name === 'enumerate' ? lists[0]!.length : length }, (_, i) =>
          seq(name === 'enumerate' ? [num(start + i), lists[0]![i]] : lists.map((l) => l![i]), true),
        ),
      );
    }
    case 'bool':
      return first
        ? truthy(first) === undefined
          ? unknown(node, missing?.reason ?? 'bool not evaluated')
          : bool(truthy(first)!)
        : bool(false);
    case 'str':
      return first?.kind === 'str'
        ? first
        : first?.kind === 'num'
          ? str(String(first.value))
          : unknown(node, '`str` not evaluated');
    case 'any':
    case 'all': {
      const items = first ? iterate(first)?.map(truthy) : undefined;
      if (!items || items.some((t) => t === undefined)) return unknown(node, `\`${name}\` not evaluated`);
      return bool(name === 'any' ? items.some(Boolean) : items.every(Boolean));
    }
    case 'divmod':
      if (numbers[0] === undefined || !numbers[1])
        return unknown(node, missing?.reason ?? 'divmod not evaluated');
      return seq(
        [
          num(Math.floor(numbers[0] / numbers[1])),
          num(numbers[0] - numbers[1] * Math.floor(numbers[0] / numbers[1])),
        ],
        true,
      );
    case 'pow':
      return numbers[0] !== undefined && numbers[1] !== undefined
        ? num(numbers[0] ** numbers[1])
        : unknown(node, missing?.reason ?? 'pow not evaluated');
    case 'print':
      return NONE;
    default:
      return unknown(node, `\`${name}\` not evaluated`);
  }
}

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (diff !== 0.5) return Math.round(value);
  return floor % 2 === 0 ? floor : floor + 1;
}

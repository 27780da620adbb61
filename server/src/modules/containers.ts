// nn.Sequential, nn.ModuleList, nn.ModuleDict (and the Parameter list/dict) and the
// nn.Module methods `__init__` code calls: append/extend/insert/update, add_module,
// register_buffer/register_parameter, parameters(), requires_grad_(), and fluent no-ops.
import type { SyntaxNode } from '../parse/syntax';
import type { CallArgs } from './calls';
import type { Interpreter } from './interpreter';
import { ModuleInstance, allParams, forEachModule } from './module-instance';
import { NONE, iterate, renderValue, seq, shortText, str, truthy, type Value } from './values';

const CONTAINERS: Record<string, 'list' | 'dict'> = {
  Sequential: 'list',
  ModuleList: 'list',
  ModuleDict: 'dict',
  ParameterList: 'list',
  ParameterDict: 'dict',
};

/** Whether `name` (the last part of `torch.nn.X`) is a container. */
export function isContainer(name: string): boolean {
  return name in CONTAINERS;
}

/** Builds a container from its constructor arguments. */
export function createContainer(input: { name: string; args: CallArgs; node: SyntaxNode }): ModuleInstance {
  const { name, args, node } = input;
  const module = new ModuleInstance(name, `torch.nn.${name}`, 'container');
  module.containerKind = CONTAINERS[name];
  module.constructorText = node.text;
  if (args.incomplete) module.unknowns.push({ text: node.text, reason: reasonText(args.incomplete) });
  const first = args.positional[0];
  if (name === 'Sequential' && first?.kind === 'dict') addEntries(module, first);
  else if (name === 'Sequential')
    args.positional.forEach((value) => addChild({ module, key: undefined, value, node }));
  else if (first && module.containerKind === 'dict') addEntries(module, first);
  else if (first) extend({ module, values: first, node });
  return module;
}

function reasonText(value: Value): string {
  return value.kind === 'unknown' ? value.reason : 'arguments not evaluated';
}

function addEntries(module: ModuleInstance, value: Value): void {
  if (value.kind === 'dict') {
    for (const [key, entry] of value.entries) addChild({ module, key, value: entry });
    return;
  }
  for (const pair of iterate(value) ?? []) {
    const [key, entry] = iterate(pair) ?? [];
    if (key?.kind === 'str' && entry) addChild({ module, key: key.value, value: entry });
  }
  if (value.kind === 'unknown') module.unknowns.push({ text: value.text, reason: value.reason });
}

function extend(input: { module: ModuleInstance; values: Value; node: SyntaxNode }): void {
  const items = iterate(input.values);
  if (!items) {
    input.module.unknowns.push({ text: input.node.text, reason: reasonText(input.values) });
    return;
  }
  for (const value of items) addChild({ module: input.module, key: undefined, value, node: input.node });
}

/** Adds a module (or parameter, for Parameter containers) under `key`, or the next index. */
function addChild(input: {
  module: ModuleInstance;
  key: string | undefined;
  value: Value;
  node?: SyntaxNode;
}): void {
  const { module, value } = input;
  const key = input.key ?? String(module.children.size + module.params.size);
  if (value.kind === 'module') module.children.set(key, value.module);
  else if (value.kind === 'param') module.params.set(key, value.param);
  else if (value.kind === 'unknown')
    module.unknowns.push({ text: value.text, reason: value.reason, line: input.node?.start.line });
  // NOTE: anything else (a config object, a function) would raise in torch or is something we
  // do not model: never dropped silently.
  else
    module.unknowns.push({
      text: input.node ? shortText(input.node.text) : key,
      reason: `\`${renderValue(value)}\` is not a module we could build`,
      line: input.node?.start.line,
    });
}

const FLUENT = new Set([
  'to',
  'cuda',
  'cpu',
  'half',
  'float',
  'double',
  'bfloat16',
  'train',
  'eval',
  'apply',
  'type',
  'share_memory',
]);

/**
 * The nn.Module methods called on a module value; undefined when `name` is not one of them
 * (the caller then looks for a user-defined method).
 */
export function containerMethod(
  interp: Interpreter,
  input: { module: ModuleInstance; self: Value; name: string; args: CallArgs; node: SyntaxNode },
): Value | undefined {
  const { module, self, name, args, node } = input;
  const [first, second] = args.positional;
  const keyOf = (value: Value | undefined) => (value?.kind === 'str' ? value.value : undefined);
  switch (name) {
    case 'append':
      if (first) addChild({ module, key: undefined, value: first, node });
      return NONE;
    case 'extend':
      if (first) extend({ module, values: first, node });
      return NONE;
    case 'insert':
    case 'update':
      if (name === 'update' && first) addEntries(module, first);
      else if (second) addChild({ module, key: undefined, value: second, node });
      return NONE;
    case 'add_module':
    case 'register_module':
    case 'register_parameter': {
      const key = keyOf(first);
      if (key && second) addChild({ module, key, value: second, node });
      return NONE;
    }
    case 'register_buffer':
      registerBuffer({ module, args, node });
      return NONE;
    case 'parameters':
      return seq(allParams(module).map((param): Value => ({ kind: 'param', param })));
    case 'named_parameters': {
      const named: Value[] = [];
      forEachModule(module, (m, path) => {
        for (const [key, param] of m.params)
          named.push(seq([str(path ? `${path}.${key}` : key), { kind: 'param', param }], true));
      });
      return seq(named);
    }
    case 'named_children':
      return seq(
        [...module.children].map(([k, m]): Value => seq([str(k), { kind: 'module', module: m }], true)),
      );
    case 'named_modules': {
      const all: Value[] = [];
      forEachModule(module, (m, path) => all.push(seq([str(path), { kind: 'module', module: m }], true)));
      return seq(all);
    }
    case 'children':
      return seq([...module.children.values()].map((child): Value => ({ kind: 'module', module: child })));
    case 'modules': {
      const all: Value[] = [];
      forEachModule(module, (m) => all.push({ kind: 'module', module: m }));
      return seq(all);
    }
    case 'requires_grad_': {
      const flag = first ?? args.keywords.get('requires_grad');
      const trainable = flag ? truthy(flag) !== false : true;
      for (const param of allParams(module)) param.trainable = trainable;
      return self;
    }
    case 'keys':
    case 'values':
    case 'items':
      if (module.containerKind !== 'dict') return undefined;
      return seq(
        [...module.children].map(([k, m]): Value => {
          const child: Value = { kind: 'module', module: m };
          return name === 'keys' ? str(k) : name === 'values' ? child : seq([str(k), child], true);
        }),
      );
    default:
      if (FLUENT.has(name) && !(module.cls && interp.classAttribute(module.cls, name))) return self;
      return undefined;
  }
}

function registerBuffer(input: { module: ModuleInstance; args: CallArgs; node: SyntaxNode }): void {
  const { module, args, node } = input;
  const [nameValue, tensorValue = args.keywords.get('tensor')] = args.positional;
  const persistentValue = args.positional[2] ?? args.keywords.get('persistent');
  if (nameValue?.kind !== 'str') {
    module.unknowns.push({ text: node.text, reason: 'buffer name not evaluated' });
    return;
  }
  if (!tensorValue || tensorValue.kind === 'none') return;
  const persistent = persistentValue ? truthy(persistentValue) !== false : true;
  if (tensorValue.kind === 'tensor' && tensorValue.shape) {
    const shape = tensorValue.shape;
    module.buffers.set(nameValue.value, { shape, numel: shape.reduce((a, b) => a * b, 1), persistent });
    return;
  }
  module.buffers.set(nameValue.value, { shape: null, numel: null, persistent });
  const reason =
    tensorValue.kind === 'unknown' ? tensorValue.reason : (tensorValue as { reason?: string }).reason;
  module.unknowns.push({
    text: node.text,
    reason: `buffer size unknown${reason ? `: ${reason}` : ''}`,
    line: node.start.line,
    bufferOnly: true,
  });
}

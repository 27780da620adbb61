// Calling user code symbolically: binding arguments to a `def`'s parameters, running a
// function or method body, and instantiating user classes — nn.Module subclasses run their
// `__init__` (through user base classes); dataclasses and NamedTuples bind their fields.
import type { SyntaxNode } from '../parse/syntax';
import type { CallArgs } from './calls';
import type { ClassInfo } from './classes';
import { Env, MAX_DEPTH, type Interpreter } from './interpreter';
import { initLibraryBase, isModuleBase } from './base-init';
import { ModuleInstance } from './module-instance';
import { execBlock } from './statements';
import { NONE, seq, unknown, type FunctionValue, type Value } from './values';
import { fieldOf } from '../analysis/syntax-helpers';

/** Binds call arguments to the parameters of `def` into a fresh scope. */
export function bindParameters(
  interp: Interpreter,
  input: { fn: FunctionValue; args: CallArgs; env: Env },
): void {
  const { fn, args, env } = input;
  const parameters = fieldOf(fn.node, 'parameters')?.children ?? [];
  const positional = fn.self ? [fn.self, ...args.positional] : [...args.positional];
  const keywords = new Map(args.keywords);
  let index = 0;
  for (const node of parameters) {
    // NOTE: `*args: Any` / `**kwargs: Any` are typed_parameter nodes around the splat pattern.
    const inner = node.type === 'typed_parameter' ? node.children[0] : undefined;
    const parameter = inner && /splat_pattern$/.test(inner.type) ? inner : node;
    if (parameter.type === 'list_splat_pattern') {
      const name = parameter.children[0]?.text;
      if (name) env.set(name, seq(positional.slice(index), true));
      index = positional.length;
      continue;
    }
    if (parameter.type === 'dictionary_splat_pattern') {
      const name = parameter.children[0]?.text;
      if (name) env.set(name, { kind: 'dict', entries: keywords });
      continue;
    }
    const name = parameterName(parameter);
    if (!name) continue;
    let value: Value | undefined;
    if (keywords.has(name)) {
      value = keywords.get(name);
      keywords.delete(name);
    } else if (index < positional.length) value = positional[index++];
    if (value === undefined) {
      const defaultNode = fieldOf(parameter, 'value');
      // NOTE: a `*args`/`**kwargs` splat we could not expand may have passed this parameter:
      // its default is not assumed.
      value = args.incomplete
        ? unknown(name, (args.incomplete as { reason: string }).reason)
        : defaultNode
          ? interp.evalExpr(defaultNode, new Env(fn.scope))
          : unknown(name, `\`${name}\` not given`);
    }
    env.set(name, value);
  }
}

/** The name a parameter node binds (`x`, `x=1`, `x: int`, `x: int = 1`). */
export function parameterName(parameter: SyntaxNode): string | undefined {
  if (parameter.type === 'identifier') return parameter.text;
  if (parameter.type === 'typed_parameter')
    return parameter.children.find((c) => c.type === 'identifier')?.text;
  if (parameter.type === 'default_parameter' || parameter.type === 'typed_default_parameter')
    return fieldOf(parameter, 'name')?.text;
  return undefined;
}

/** Runs a user function or method; its return value, or None. */
export function runFunction(
  interp: Interpreter,
  input: { fn: FunctionValue; args: CallArgs; node: SyntaxNode },
): { value: Value } {
  const { fn, args, node } = input;
  if (interp.depth >= MAX_DEPTH) return { value: unknown(node, 'calls nested too deeply') };
  interp.depth++;
  try {
    const env = new Env(fn.scope, fn.closure, fn.cls);
    bindParameters(interp, { fn, args, env });
    const body = fieldOf(fn.node, 'body');
    const signal = body ? execBlock(interp, { block: body, env }) : undefined;
    return { value: signal?.type === 'return' ? signal.value : NONE };
  } finally {
    interp.depth--;
  }
}

/** How a user class behaves when called. */
export function classKind(interp: Interpreter, cls: ClassInfo): 'module' | 'record' | 'plain' {
  const library = interp.libraryBases(cls);
  if (library.some(isModuleBase)) return 'module';
  if (library.some((name) => /(^|\.)NamedTuple$/.test(name) || /BaseModel$/.test(name))) return 'record';
  for (const info of interp.mro(cls)) {
    if (
      info.decorators.some((d) =>
        /(^|\.)dataclass$/.test((d.type === 'call' ? fieldOf(d, 'function') : d)?.text ?? ''),
      )
    ) {
      return 'record';
    }
  }
  return 'plain';
}

/** Instantiates a user class: a module instance, a record (dataclass/NamedTuple) or a plain object. */
export function instantiateClass(
  interp: Interpreter,
  input: { cls: ClassInfo; args: CallArgs; node: SyntaxNode },
): Value {
  const { cls, args, node } = input;
  const kind = classKind(interp, cls);
  // NOTE: a record class whose own `__init__` is written out (a subclass of a dataclass) runs it;
  // its `super().__init__(...)` binds the dataclass fields (calls.ts).
  if (kind === 'record' && !interp.mro(cls).some((c) => c.methods.has('__init__')))
    return buildRecord(interp, { cls, args });
  if (kind === 'record') {
    const object: Value = { kind: 'object', className: cls.name, cls, fields: new Map() };
    runMethod(interp, { cls, name: '__init__', self: object, args, node });
    return object;
  }
  if (kind === 'plain') {
    const object: Value = { kind: 'object', className: cls.name, cls, fields: new Map() };
    runMethod(interp, { cls, name: '__init__', self: object, args, node });
    return object;
  }
  if (interp.depth >= MAX_DEPTH) return unknown(node, 'modules nested too deeply');
  const module = new ModuleInstance(cls.name, cls.name, 'user', cls);
  module.constructorText = node.text;
  module.origin = {
    file: node.source === cls.scope.root.source ? cls.scope.filePath : null,
    line: node.start.line,
    character: node.start.column,
  };
  const self: Value = { kind: 'module', module };
  if (!runMethod(interp, { cls, name: '__init__', self, args, node }))
    initLibraryBase(interp, { cls, self, args, node });
  if (!interp.builtAt.has(node)) interp.builtAt.set(node, module);
  return self;
}

/** Runs method `name` found along `cls`'s user MRO with `self`; false when no user class defines it. */
export function runMethod(
  interp: Interpreter,
  input: { cls: ClassInfo; name: string; self: Value; args: CallArgs; node: SyntaxNode },
): boolean {
  for (const info of interp.mro(input.cls)) {
    const method = info.methods.get(input.name);
    if (!method) continue;
    const fn: FunctionValue = {
      kind: 'function',
      node: method,
      scope: info.scope,
      self: input.self,
      cls: info,
    };
    runFunction(interp, { fn, args: input.args, node: input.node });
    return true;
  }
  return false;
}

/** The fields of a dataclass/NamedTuple (base classes first), bound to the call's arguments. */
function buildRecord(interp: Interpreter, input: { cls: ClassInfo; args: CallArgs }): Value {
  const { cls } = input;
  const record: Value = { kind: 'object', className: cls.name, cls, fields: new Map() };
  bindRecordFields(interp, { ...input, fields: record.fields });
  const postInit = cls.methods.get('__post_init__');
  if (postInit) {
    const fn: FunctionValue = { kind: 'function', node: postInit, scope: cls.scope, self: record, cls };
    runFunction(interp, { fn, args: { positional: [], keywords: new Map() }, node: postInit });
  }
  return record;
}

/** Binds the declared fields of `cls` (a dataclass and its bases) from `args` into `fields`, as the generated `__init__` does. */
export function bindRecordFields(
  interp: Interpreter,
  input: { cls: ClassInfo; args: CallArgs; fields: Map<string, Value> },
): void {
  const { cls, args } = input;
  const order = interp.mro(cls).reverse();
  const declared: { name: string; value?: SyntaxNode; owner: ClassInfo }[] = [];
  for (const info of order) {
    for (const field of info.fields) {
      if (!field.annotated) continue;
      const existing = declared.findIndex((d) => d.name === field.name);
      if (existing >= 0) declared.splice(existing, 1);
      declared.push({ ...field, owner: info });
    }
  }
  declared.forEach((field, i) => {
    const given = args.keywords.get(field.name) ?? args.positional[i];
    input.fields.set(field.name, given ?? fieldDefault(interp, { field, className: cls.name }));
  });
}

function fieldDefault(
  interp: Interpreter,
  input: { field: { name: string; value?: SyntaxNode; owner: ClassInfo }; className: string },
): Value {
  const { field, className } = input;
  if (!field.value)
    return unknown(`${className}.${field.name}`, `\`${className}.${field.name}\` has no default`);
  const env = new Env(field.owner.scope);
  const valueNode = field.value;
  // dataclasses.field(default=..., default_factory=...)
  if (valueNode.type === 'call' && /(^|\.)field$/.test(fieldOf(valueNode, 'function')?.text ?? '')) {
    const list = fieldOf(valueNode, 'arguments');
    for (const arg of list?.children ?? []) {
      if (arg.type !== 'keyword_argument') continue;
      const key = fieldOf(arg, 'name')?.text;
      const value = fieldOf(arg, 'value');
      if (!value) continue;
      if (key === 'default') return interp.evalExpr(value, env);
      if (key === 'default_factory') {
        const factory = interp.evalExpr(value, env);
        if (factory.kind === 'class')
          return instantiateClass(interp, {
            cls: factory.cls,
            args: { positional: [], keywords: new Map() },
            node: value,
          });
        if (factory.kind === 'qualified' && /builtins\.(list|dict)$/.test(factory.name))
          return factory.name.endsWith('list') ? seq([]) : { kind: 'dict', entries: new Map() };
        return unknown(value, `\`${value.text}\` default not evaluated`);
      }
    }
    return unknown(`${className}.${field.name}`, `\`${className}.${field.name}\` has no default`);
  }
  return interp.evalExpr(valueNode, env);
}

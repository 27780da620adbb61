// Subscripts, slices, module attributes and literals for the symbolic interpreter: `cfg["d"]`,
// `layers[1:3]`, `self.fc.out_features`, `self.blocks[0]`, integer and string literals.
import type { SyntaxNode } from '../parse/syntax';
import { reasonOf, type Env, type Interpreter } from './interpreter';
import { ModuleInstance } from './module-instance';
import { bool, num, seq, str, unknown, type Value } from './values';

/** See the file comment. */
export function subscriptValue(input: { target: Value; index: Value; node: SyntaxNode }): Value {
  const { target, index, node } = input;
  if (target.kind === 'unknown') return unknown(node, target.reason);
  if (index.kind === 'unknown') return unknown(node, index.reason);
  if ((target.kind === 'dict' || target.kind === 'seq') && target.tainted)
    return unknown(node, target.tainted);
  const key = index.kind === 'str' || index.kind === 'num' ? String(index.value) : undefined;
  if (target.kind === 'dict' && key !== undefined)
    return target.entries.get(key) ?? unknown(node, `key ${key} not found`);
  if (target.kind === 'object' && key !== undefined)
    return target.fields.get(key) ?? unknown(node, `\`${node.text}\` unknown`);
  const items = target.kind === 'seq' ? target.items : undefined;
  if (items && index.kind === 'num')
    return (
      items[index.value < 0 ? items.length + index.value : index.value] ?? unknown(node, 'index out of range')
    );
  if (target.kind === 'module' && key !== undefined) {
    const mod = target.module;
    if (mod.containerKind === 'list' && index.kind === 'num') {
      const children = [...mod.children.values()];
      const child = children[index.value < 0 ? children.length + index.value : index.value];
      if (child) return { kind: 'module', module: child };
    }
    const child = mod.children.get(key);
    if (child) return { kind: 'module', module: child };
  }
  return unknown(node, `\`${node.text}\` not evaluated`);
}

/** See the file comment. */
export function sliceValue(
  interp: Interpreter,
  input: { target: Value; node: SyntaxNode; env: Env; whole: SyntaxNode },
): Value {
  const { whole } = input;
  // `self.layers[:4]` on a Sequential/ModuleList: its modules, in order.
  const target: Value =
    input.target.kind === 'module' && input.target.module.containerKind === 'list'
      ? seq([...input.target.module.children.values()].map((module): Value => ({ kind: 'module', module })))
      : input.target;
  const { node, env } = input;
  if (target.kind !== 'seq') return unknown(whole, reasonOf(target, whole));
  const parts: (number | undefined)[] = [];
  let slot = 0;
  for (const child of node.children) {
    const value = interp.evalExpr(child, env);
    if (value.kind !== 'num') return unknown(whole, reasonOf(value, child));
    // NOTE: the lowered tree drops the ':' tokens, so positions come from the text.
    slot = node.text.slice(0, child.startIndex - node.startIndex).split(':').length - 1;
    parts[slot] = value.value;
  }
  const [start, end, step] = parts;
  if (step !== undefined && step !== 1) return unknown(whole, 'slices with a step not evaluated');
  const items = target.items.slice(start, end);
  if (input.target.kind !== 'module') return seq(items, target.tuple);
  // A slice of a Sequential/ModuleList is a container of the same type holding the same modules.
  const source = input.target.module;
  const sliced = new ModuleInstance(source.typeName, source.qualified, 'container');
  sliced.containerKind = 'list';
  items.forEach((item, i) => {
    if (item.kind === 'module') sliced.children.set(String(i), item.module);
  });
  return { kind: 'module', module: sliced };
}

/** See the file comment. */
export function moduleAttribute(
  interp: Interpreter,
  input: { module: ModuleInstance; name: string; text: string; self: Value },
): Value {
  const { module, name, text, self } = input;
  const child = module.children.get(name);
  if (child) return { kind: 'module', module: child };
  const param = module.params.get(name);
  if (param) return { kind: 'param', param };
  const buffer = module.buffers.get(name);
  if (buffer) return { kind: 'tensor', shape: buffer.shape, text };
  const attr = module.attrs.get(name);
  if (attr) return attr;
  const config = module.layerConfig?.[name];
  if (typeof config === 'number') return num(config);
  if (typeof config === 'boolean') return bool(config);
  if (Array.isArray(config)) return seq(config.map(num), true);
  if (module.cls) {
    const found = interp.classAttribute(module.cls, name, self);
    if (found) return found;
  }
  return unknown(text, `\`${text}\` unknown`);
}

/** See the file comment. */
export function parseIntLiteral(text: string): number {
  const clean = text.replace(/_/g, '').replace(/[lL]$/, '');
  if (/^0[xob]/i.test(clean)) return Number(clean);
  return Number.parseInt(clean, 10);
}

/** See the file comment. */
export function stringLiteral(node: SyntaxNode): Value {
  if (node.children.some((c) => c.type === 'interpolation')) return unknown(node, 'f-string not evaluated');
  const content = node.children
    .filter((c) => c.type === 'string_content')
    .map((c) => c.text)
    .join('');
  return str(content);
}

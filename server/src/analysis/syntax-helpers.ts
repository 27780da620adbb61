// Small helpers over lowered syntax nodes: field access, call shapes, argument lookup,
// and iterative walks (never recursive: 10,000-deep nesting must not overflow the stack).
import type { SyntaxNode } from '../parse/syntax';

/** The child filling `field`, if any. */
export function fieldOf(node: SyntaxNode, field: string): SyntaxNode | undefined {
  for (const child of node.children) if (child.field === field) return child;
  return undefined;
}

/** Every child filling `field`. */
export function fieldsOf(node: SyntaxNode, field: string): SyntaxNode[] {
  return node.children.filter((child) => child.field === field);
}

/** Strips parentheses: `((x))` → `x`. */
export function unwrap(node: SyntaxNode): SyntaxNode {
  let current = node;
  while (current.type === 'parenthesized_expression' && current.children.length === 1)
    current = current.children[0];
  return current;
}

/** A call of a method: `receiver.name(...)`. */
export interface MethodCall {
  name: string;
  receiver: SyntaxNode;
}

/** For `a.b(...)`: the method name `b` and the receiver `a`; undefined for other calls. */
export function methodCall(call: SyntaxNode): MethodCall | undefined {
  if (call.type !== 'call') return undefined;
  const callee = fieldOf(call, 'function');
  if (!callee || callee.type !== 'attribute') return undefined;
  const name = fieldOf(callee, 'attribute');
  const receiver = fieldOf(callee, 'object');
  if (!name || !receiver) return undefined;
  return { name: name.text, receiver };
}

/** Whether a child of an argument list is a positional argument (not a keyword, splat or comment). */
export function isPositional(child: SyntaxNode): boolean {
  return (
    child.type !== 'keyword_argument' &&
    child.type !== 'list_splat' &&
    child.type !== 'dictionary_splat' &&
    child.type !== 'comment'
  );
}

/** The first positional argument of a call, if any: `positionalArgs(call)[0]` without the list. */
export function firstPositionalArg(call: SyntaxNode): SyntaxNode | undefined {
  const args = fieldOf(call, 'arguments');
  if (!args || args.type !== 'argument_list') return undefined;
  for (const child of args.children) if (isPositional(child)) return child;
  return undefined;
}

/** The positional arguments of a call (excluding keywords and splats). */
export function positionalArgs(call: SyntaxNode): SyntaxNode[] {
  const args = fieldOf(call, 'arguments');
  if (!args || args.type !== 'argument_list') return [];
  return args.children.filter(isPositional);
}

/** The value of keyword argument `name` in a call, if given. */
export function keywordArg(call: SyntaxNode, name: string): SyntaxNode | undefined {
  const args = fieldOf(call, 'arguments');
  if (!args) return undefined;
  for (const arg of args.children) {
    if (arg.type !== 'keyword_argument') continue;
    const key = fieldOf(arg, 'name');
    if (key && hasText(key, name)) return fieldOf(arg, 'value');
  }
  return undefined;
}

/** Whether a call has `**kwargs` or `*args` (its arguments cannot be fully known). */
export function hasSplat(call: SyntaxNode): boolean {
  const args = fieldOf(call, 'arguments');
  return !!args?.children.some((c) => c.type === 'list_splat' || c.type === 'dictionary_splat');
}

/** Pre-order walk of `root`'s subtree, calling `visit`; `visit` returning false skips a node's children. */
export function walk(root: SyntaxNode, visit: (node: SyntaxNode) => boolean | void): void {
  const stack: SyntaxNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (visit(node) === false) continue;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
}

/** Whether `node` lies inside `ancestor` (or is it). */
export function isWithin(node: SyntaxNode, ancestor: SyntaxNode): boolean {
  for (let current: SyntaxNode | null = node; current; current = current.parent)
    if (current === ancestor) return true;
  return false;
}

/** The nearest ancestor (or the node itself) whose type is one of `types`. */
export function closest(node: SyntaxNode, types: ReadonlySet<string>): SyntaxNode | undefined {
  for (let current: SyntaxNode | null = node; current; current = current.parent) {
    if (types.has(current.type)) return current;
  }
  return undefined;
}

/** The innermost function definition containing `node` (not `node` itself), if any. */
export function enclosingFunction(node: SyntaxNode): SyntaxNode | undefined {
  for (let current = node.parent; current; current = current.parent) {
    if (current.type === 'function_definition') return current;
  }
  return undefined;
}

/** Statement node types: the unit that suppression comments and contexts attach to. */
export const STATEMENT_TYPES = new Set([
  'expression_statement',
  'return_statement',
  'assert_statement',
  'if_statement',
  'for_statement',
  'while_statement',
  'with_statement',
  'try_statement',
  'delete_statement',
  'raise_statement',
  'function_definition',
  'class_definition',
  'decorated_definition',
  'global_statement',
  'nonlocal_statement',
  'import_statement',
  'import_from_statement',
  'pass_statement',
  'break_statement',
  'continue_statement',
  'match_statement',
]);

/** The statement containing `node` (the innermost), or the node's topmost ancestor. */
export function enclosingStatement(node: SyntaxNode): SyntaxNode {
  let current: SyntaxNode = node;
  while (current.parent && !STATEMENT_TYPES.has(current.type)) current = current.parent;
  return current;
}

/** The last identifier of an identifier or attribute chain: `self.optimizer` → `optimizer`. */
export function lastName(node: SyntaxNode): string | undefined {
  const target = unwrap(node);
  if (target.type === 'identifier') return target.text;
  if (target.type === 'attribute') return fieldOf(target, 'attribute')?.text;
  return undefined;
}

/** Whether `lastName(node)` is `name`, compared without slicing the text of other names. */
export function lastNameIs(node: SyntaxNode, name: string): boolean {
  const target = unwrap(node);
  const id =
    target.type === 'identifier'
      ? target
      : target.type === 'attribute'
        ? fieldOf(target, 'attribute')
        : undefined;
  return !!id && id.endIndex - id.startIndex === name.length && id.text === name;
}

/** Whether `node` spells exactly `text`, compared without slicing when the lengths differ. */
export function hasText(node: SyntaxNode, text: string): boolean {
  return node.endIndex - node.startIndex === text.length && node.text === text;
}

/** Whether `node` is a call of `super` (`super()`, `super(Block, self)`). */
export function isSuperCall(node: SyntaxNode): boolean {
  if (node.type !== 'call') return false;
  const callee = fieldOf(node, 'function');
  return !!callee && hasText(callee, 'super');
}

/**
 * The nodes of `ordered` (nodes of one tree, in document order, such as a FileModel index)
 * that lie in `ancestor`'s subtree, itself included. Ids are pre-order, so the subtree is
 * the id range from `ancestor` to its last descendant: two binary searches, no walk.
 */
export function nodesWithin(ordered: readonly SyntaxNode[], ancestor: SyntaxNode): SyntaxNode[] {
  const [from, to] = rangeWithin(ordered, ancestor);
  return ordered.slice(from, to);
}

/** Like {@link nodesWithin}, as the index range `[from, to)` of `ordered` (nothing copied). */
export function rangeWithin(ordered: readonly SyntaxNode[], ancestor: SyntaxNode): [number, number] {
  const from = firstAtOrAfter(ordered, ancestor.id);
  return [from, firstAtOrAfter(ordered, lastDescendantId(ancestor) + 1, from)];
}

/** The id of the last node of `node`'s subtree in document order (its own id when it has no children). */
export function lastDescendantId(node: SyntaxNode): number {
  let last = node;
  while (last.children.length) last = last.children[last.children.length - 1];
  return last.id;
}

/** Merges lists of nodes of one tree, each in document order, into one list in document order. */
export function mergeInDocumentOrder(lists: readonly (readonly SyntaxNode[])[]): SyntaxNode[] {
  let merged: SyntaxNode[] = [];
  // Shortest first: each merge copies what was merged before.
  for (const list of [...lists].sort((a, b) => a.length - b.length)) {
    const next: SyntaxNode[] = [];
    let i = 0;
    let j = 0;
    while (i < merged.length && j < list.length)
      next.push(merged[i].id <= list[j].id ? merged[i++] : list[j++]);
    while (i < merged.length) next.push(merged[i++]);
    while (j < list.length) next.push(list[j++]);
    merged = next;
  }
  return merged;
}

/** The index of the first node of `ordered` whose id is at least `id`. */
function firstAtOrAfter(ordered: readonly SyntaxNode[], id: number, low = 0): number {
  let high = ordered.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (ordered[middle].id < id) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Every call under `root` (itself included), in source order. */
export function callsInSourceOrder(root: SyntaxNode): SyntaxNode[] {
  const calls: SyntaxNode[] = [];
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'call') calls.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return calls.sort((a, b) => a.startIndex - b.startIndex);
}

// Where a batch tensor comes from, for the SL1xx copy rules: the `for` loop that binds it, the
// DataLoader it iterates, and whether that loader visibly pins memory; plus an edit that adds
// a keyword argument to a call.
import type { SyntaxNode } from '../parse/syntax';
import {
  enclosingFunction,
  fieldOf,
  firstPositionalArg,
  hasSplat,
  keywordArg,
  methodCall,
  positionalArgs,
  unwrap,
  walk,
} from '../analysis/syntax-helpers';
import type { FileModel } from '../analysis/file-model';
import { assignmentsTo, lastAssignedValue } from '../analysis/assignment-index';
import { perModel } from '../analysis/per-model';
import { parameterList } from '../analysis/definitions';
import { callsWithCallee } from '../analysis/name-indexes';
import type { TextEdit } from './types';

/** A DataLoader built in the file: its name, its constructor call, and `pin_memory` (undefined when not a literal). */
export interface LoaderFacts {
  name: string;
  call: SyntaxNode;
  pinned: boolean | undefined;
}

const WRAPPERS = /^(enumerate|tqdm|tqdm\.tqdm|iter|islice|itertools\.islice)$/;

/**
 * Per model: whether some call of the file is a loader (`DataLoader(...)`). Every loader fact
 * below rests on one (`loaderConstruction`, `passedLoader`), so a file without any has none.
 */
const buildsLoader = perModel((model) => model.nodes.call.some((call) => model.kindOf(call) === 'loader'));

/** The loader a batch expression (`x`, `batch["ids"]`, `batch.x`) was drawn from, when visible in the file. */
export function batchLoader(model: FileModel, expression: SyntaxNode): LoaderFacts | undefined {
  if (!buildsLoader(model)) return undefined;
  let root = unwrap(expression);
  while (root.type === 'subscript' || root.type === 'attribute' || root.type === 'call') {
    const next =
      root.type === 'call'
        ? methodCall(root)?.receiver
        : fieldOf(root, root.type === 'subscript' ? 'value' : 'object');
    if (!next) return undefined;
    root = unwrap(next);
  }
  if (root.type !== 'identifier') return undefined;
  let iterable = loopIterable(root) ?? nextIterable(model, root);
  while (iterable?.type === 'call' && WRAPPERS.test(fieldOf(iterable, 'function')?.text ?? ''))
    iterable = unwrapped(firstPositionalArg(iterable));
  if (!iterable || (iterable.type !== 'identifier' && iterable.type !== 'attribute')) return undefined;
  return loaderConstruction(model, iterable) ?? onlyLoaderOfFile(model, iterable);
}

/** For `x, y = next(it)` with `it = iter(loader)` (or `next(iter(loader))`): the loader expression. */
function nextIterable(model: FileModel, use: SyntaxNode): SyntaxNode | undefined {
  let value = lastAssignedValue(model, use);
  // In `x = x.cuda()` the last assignment is the statement of the use itself.
  if (value && value.startIndex <= use.startIndex && use.endIndex <= value.endIndex) value = undefined;
  value ??= unpackedFrom(model, use);
  const call = value && unwrap(value);
  if (call?.type !== 'call' || fieldOf(call, 'function')?.text !== 'next') return undefined;
  let source = unwrapped(firstPositionalArg(call));
  if (source?.type === 'identifier') {
    const made = lastAssignedValue(model, source);
    if (made) source = unwrap(made);
  }
  return source;
}

/** The right side of the last `a, b = value` before `use` (same function) that binds its name. */
function unpackedFrom(model: FileModel, use: SyntaxNode): SyntaxNode | undefined {
  const scope = enclosingFunction(use);
  let found: SyntaxNode | undefined;
  for (const assignment of model.nodes.assignment) {
    if (assignment.startIndex >= use.startIndex) break;
    const left = fieldOf(assignment, 'left');
    if (!left || (left.type !== 'pattern_list' && left.type !== 'tuple_pattern')) continue;
    if (enclosingFunction(assignment) !== scope) continue;
    if (left.children.some((c) => c.type === 'identifier' && c.text === use.text))
      found = fieldOf(assignment, 'right');
  }
  return found;
}

/**
 * A loader passed in as a parameter (`def train_one_epoch(model, data_loader, ...)`): the
 * loader the file's own calls of that function pass there (`train_one_epoch(model,
 * train_loader)` with `train_loader = DataLoader(...)`), when every such call passes one
 * whose pinning is known and they agree. No call in the file, or one passing something
 * else, says nothing.
 */
function onlyLoaderOfFile(model: FileModel, iterable: SyntaxNode, depth = 0): LoaderFacts | undefined {
  if (iterable.type !== 'identifier' || depth > 2) return undefined;
  const fn = enclosingFunction(iterable);
  const name = fn && fieldOf(fn, 'name')?.text;
  const parameters = fn ? parameterList(fn) : [];
  const index = parameters.indexOf(iterable.text);
  if (!name || index < 0) return undefined;
  let found: LoaderFacts | undefined;
  const calls = [...callsWithCallee(model, name), ...callsWithCallee(model, `self.${name}`)];
  for (const call of calls.sort((a, b) => a.startIndex - b.startIndex)) {
    if (hasSplat(call)) return undefined;
    const method = fieldOf(call, 'function')?.type === 'attribute';
    const position = index - (method && parameters[0] === 'self' ? 1 : 0);
    const arg = keywordArg(call, iterable.text) ?? positionalArgs(call)[position];
    const facts = arg && passedLoader(model, unwrap(arg), depth);
    if (!facts || facts.pinned === undefined || (found && found.pinned !== facts.pinned)) return undefined;
    found ??= { ...facts, name: iterable.text };
  }
  return found;
}

/** The loader an argument expression stands for: `loader`, `iter(loader)`, `DataLoader(...)`. */
function passedLoader(model: FileModel, arg: SyntaxNode, depth: number): LoaderFacts | undefined {
  let node: SyntaxNode | undefined = arg;
  while (node?.type === 'call' && WRAPPERS.test(fieldOf(node, 'function')?.text ?? ''))
    node = unwrapped(firstPositionalArg(node));
  if (!node) return undefined;
  if (node.type === 'call')
    return model.kindOf(node) === 'loader' && !hasSplat(node)
      ? { name: node.text, call: node, pinned: pinnedValue(model, node) }
      : undefined;
  if (node.type !== 'identifier' && node.type !== 'attribute') return undefined;
  return loaderConstruction(model, node) ?? onlyLoaderOfFile(model, node, depth + 1);
}

/** Whether `name` is a parameter of its nearest enclosing function. */
function isParameter(name: SyntaxNode): boolean {
  const fn = enclosingFunction(name);
  return !!fn && parameterList(fn).includes(name.text);
}

/** `pin_memory=` of a loader: a literal, or an argparse option's default (`pin_memory=args.pin_mem`). */
function pinnedValue(model: FileModel, call: SyntaxNode): boolean | undefined {
  const pin = keywordArg(call, 'pin_memory');
  if (!pin || pin.text === 'False') return false;
  if (pin.text === 'True') return true;
  const option = pin.type === 'attribute' ? fieldOf(pin, 'attribute')?.text : undefined;
  if (!option) return undefined;
  const defaultValue = argparseOptions(model).get(option);
  if (defaultValue === 'True') return true;
  if (defaultValue === 'False') return false;
  return undefined;
}

/** `dest` of each argparse option (`add_argument('--pin-mem', default=True)` → `pin_mem`) → its first `default=` text. */
const argparseOptions = perModel((model) => {
  const defaults = new Map<string, string | undefined>();
  for (const call of model.callNames.named('add_argument')) {
    if (!/(^|\.)add_argument$/.test(fieldOf(call, 'function')?.text ?? '')) continue;
    const dest =
      keywordArg(call, 'dest')?.text.replace(/['"]/g, '') ??
      positionalArgs(call)
        .map((a) => a.text.replace(/['"]/g, ''))
        .find((a) => a.startsWith('--'))
        ?.slice(2)
        .replace(/-/g, '_');
    if (dest !== undefined && !defaults.has(dest)) defaults.set(dest, keywordArg(call, 'default')?.text);
  }
  return defaults;
});

/** The iterable of the `for` loop whose target binds `name` around `use`. */
function loopIterable(use: SyntaxNode): SyntaxNode | undefined {
  for (let current = use.parent; current; current = current.parent) {
    if (current.type === 'function_definition') return undefined;
    if (current.type !== 'for_statement') continue;
    const left = fieldOf(current, 'left');
    let binds = false;
    if (left) walk(left, (n) => void (n.type === 'identifier' && n.text === use.text && (binds = true)));
    const right = fieldOf(current, 'right');
    if (binds) return right && unwrap(right);
  }
  return undefined;
}

/**
 * The single `name = DataLoader(...)` that binds the iterable, with its `pin_memory` when
 * literal. A plain name is looked up in its own function (then at module level, when the
 * function does not bind it); a parameter is bound by its callers, not here. `it =
 * iter(loader)` leads on to `loader`; any other wrapper call says nothing about pinning.
 */
function loaderConstruction(model: FileModel, iterable: SyntaxNode, depth = 0): LoaderFacts | undefined {
  const name = iterable.text;
  let assignments = assignmentsTo(model, name);
  if (iterable.type === 'identifier') {
    if (isParameter(iterable)) return undefined;
    const scope = enclosingFunction(iterable);
    const local = assignments.filter((a) => enclosingFunction(a) === scope);
    assignments = local.length || !scope ? local : assignments.filter((a) => !enclosingFunction(a));
  }
  const calls = assignments.flatMap((a) => {
    const right = fieldOf(a, 'right');
    return right ? [unwrap(right)] : [];
  });
  if (calls.length !== 1 || calls[0].type !== 'call') return undefined;
  const call = calls[0];
  const callee = fieldOf(call, 'function')?.text ?? '';
  if (WRAPPERS.test(callee)) {
    const inner = unwrapped(firstPositionalArg(call));
    const named = inner?.type === 'identifier' || inner?.type === 'attribute';
    return named && depth < 3 ? loaderConstruction(model, inner, depth + 1) : undefined;
  }
  if (model.kindOf(call) !== 'loader' || hasSplat(call)) return undefined;
  return { name, call, pinned: pinnedValue(model, call) };
}

/** An edit adding `text` as the last argument of `call`. */
export function insertArgumentEdit(call: SyntaxNode, text: string): TextEdit {
  const args = fieldOf(call, 'arguments')!;
  const last = args.children.filter((c) => c.type !== 'comment').at(-1);
  const at = last ? last.end : { line: args.end.line, column: args.end.column - 1 };
  return { range: { start: at, end: at }, newText: last ? `, ${text}` : text };
}

/** `node` without its parentheses, if there is a node. */
function unwrapped(node: SyntaxNode | undefined): SyntaxNode | undefined {
  return node && unwrap(node);
}

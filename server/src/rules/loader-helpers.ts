// Where a batch tensor comes from, for the SL1xx copy rules: the `for` loop that binds it, the
// DataLoader it iterates, and whether that loader visibly pins memory; plus an edit that adds
// a keyword argument to a call.
import type { SyntaxNode } from '../parse/syntax';
import {
  fieldOf,
  hasSplat,
  keywordArg,
  methodCall,
  positionalArgs,
  unwrap,
  walk,
} from '../analysis/syntax-helpers';
import type { FileModel } from '../analysis/file-model';
import { assignmentsTo } from '../analysis/assignment-index';
import type { TextEdit } from './types';

/** A DataLoader built in the file: its name, its constructor call, and `pin_memory` (undefined when not a literal). */
export interface LoaderFacts {
  name: string;
  call: SyntaxNode;
  pinned: boolean | undefined;
}

const WRAPPERS = /^(enumerate|tqdm|tqdm\.tqdm|iter|islice|itertools\.islice)$/;

/** The loader a batch expression (`x`, `batch["ids"]`, `batch.x`) was drawn from, when visible in the file. */
export function batchLoader(model: FileModel, expression: SyntaxNode): LoaderFacts | undefined {
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
  let iterable = loopIterable(root);
  while (iterable?.type === 'call' && WRAPPERS.test(fieldOf(iterable, 'function')?.text ?? ''))
    iterable = positionalArgs(iterable)[0] && unwrap(positionalArgs(iterable)[0]);
  if (!iterable || (iterable.type !== 'identifier' && iterable.type !== 'attribute')) return undefined;
  return loaderConstruction(model, iterable.text);
}

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

/** The single `name = DataLoader(...)` of the file, with its `pin_memory` when literal. */
function loaderConstruction(model: FileModel, name: string): LoaderFacts | undefined {
  const calls = assignmentsTo(model, name).map((a) => unwrap(fieldOf(a, 'right')!));
  if (calls.length !== 1 || calls[0].type !== 'call') return undefined;
  const call = calls[0];
  if (model.kindOf(call) !== 'loader' || hasSplat(call)) return undefined;
  const pin = keywordArg(call, 'pin_memory')?.text;
  const pinned = pin === undefined || pin === 'False' ? false : pin === 'True' ? true : undefined;
  return { name, call, pinned };
}

/** An edit adding `text` as the last argument of `call`. */
export function insertArgumentEdit(call: SyntaxNode, text: string): TextEdit {
  const args = fieldOf(call, 'arguments')!;
  const last = args.children.filter((c) => c.type !== 'comment').at(-1);
  const at = last ? last.end : { line: args.end.line, column: args.end.column - 1 };
  return { range: { start: at, end: at }, newText: last ? `, ${text}` : text };
}

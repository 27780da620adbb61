// Window re-parse: an edit inside a block re-parses only the statements around it, with
// tree-sitter's included ranges (the header lines of the enclosing definitions, then those
// statements), and splices them into the previous version's lowered tree. Tree-sitter's own
// re-parse reuses nothing after a block it had to re-lex to its end: before lexing the
// block's closing dedent it compares scanner states, finds them different, and skips each
// following subtree whole. A keystroke on the blank line after a method re-parsed the rest
// of the file that way (15-35 ms at 5,000 lines, against 2-3 ms elsewhere).
import type { Parser, Point, Range } from 'web-tree-sitter';
import { LoweredNode, lowerTree, type LoweredTree, type SyntaxNode } from './syntax';
import { cutLoose, renumber, type TextSpan } from './lower-reuse';
import { pointAfter, pointAt } from './points';
import { includedRangesOf } from './comment-runs';

/** The block of each compound statement a window may lie in: its header parses on its own. */
const BODY_FIELD: Readonly<Record<string, string>> = {
  class_definition: 'body',
  function_definition: 'body',
  if_statement: 'consequence',
  for_statement: 'body',
  while_statement: 'body',
  with_statement: 'body',
};

/** A window is declined when longer than this share of the text (tree-sitter's re-parse is then as cheap). */
const MAX_WINDOW_SHARE = 1 / 8;
const MIN_WINDOW_LIMIT = 4_000;
/** Enclosing windows tried after the deepest one fails. */
const MAX_ATTEMPTS = 3;

/** Windows parsed and declined, and the nodes lowered for them, for tests and the benchmark. */
export const windowParseCounts = { windows: 0, declined: 0, lowered: 0 };

/**
 * A test-only fault the equivalence test must catch: let a window end with a comment, whose
 * block the next line with code decides (a comment indented less than the block it ends
 * leaves it in a window that ends there, and stays in it in the whole text).
 */
let commentEndFault = false;
/** A test-only fault: let a window be followed by a statement indented deeper than the block's. */
let indentFault = false;
export function setWindowFault(fault: 'comment-end' | 'deeper-next' | 'none'): void {
  commentEndFault = fault === 'comment-end';
  indentFault = fault === 'deeper-next';
}

/** The statements to re-parse: children `first`..`last` of the block ending `path`. */
interface Window {
  /** The previous tree's nodes from the root down to the block. */
  path: LoweredNode[];
  /** The compound statements on `path`, whose header lines are parsed with the window. */
  headers: LoweredNode[];
  first: number;
  last: number;
}

/**
 * What a window re-parse gave: the new lowering, or none, and then whether the last window
 * tried had a syntax error (the whole text then almost surely has one too).
 */
export type WindowOutcome = { lowered: LoweredTree } | { lowered?: undefined; syntaxError: boolean };

/**
 * The lowering of `text` built from `root` (the previous version's lowering, error-free;
 * `span` is the edit since) by re-parsing a window of statements around the edit, unless
 * no window is known to parse as the whole text would. The previous tree must not be used
 * afterwards: its nodes outside the window now belong to the new one.
 */
export function lowerWindow(parser: Parser, text: string, root: SyntaxNode, span: TextSpan): WindowOutcome {
  const delta = span.newEnd - span.oldEnd;
  // NOTE: an edit can move lines out of the block they were in (a `#` deleted before a
  // `def` line makes the lines after it, which were the previous method's, its body): the
  // window then fails to parse or has another shape, and the enclosing one is tried.
  const windows = findWindows(root as LoweredNode, span, text, delta).slice(0, MAX_ATTEMPTS);
  let syntaxError = false;
  search: for (const found of windows) {
    let window = found;
    let statements: ReturnType<typeof parseWindow> = 'other shape';
    for (;;) {
      // The enclosing window holds the deeper lines after this one. A window that fails the
      // other checks ends the search, as before: the enclosing ones are longer still.
      if (!nextAtBlockIndent(window, text, delta)) break;
      const ranges = includedRanges(text, window, delta);
      if (!ranges) break search;
      statements = parseWindow(parser, text, window, ranges);
      // The edit ended the window with a comment (a `#` typed before its last statement):
      // the next statement decides that comment's block, so it joins the window.
      const more = window.last + 1 < window.path[window.path.length - 1].children.length;
      if (statements !== 'trailing comment' || !more) break;
      window = { ...window, last: window.last + 1 };
    }
    syntaxError = statements === 'syntax error';
    if (typeof statements === 'string') continue;
    windowParseCounts.windows++;
    return { lowered: splice(window, statements, span, text.length) };
  }
  windowParseCounts.declined++;
  return { syntaxError };
}

/** The window's statements lowered from a parse of `ranges`, unless it has an error or another shape. */
function parseWindow(
  parser: Parser,
  text: string,
  window: Window,
  ranges: Range[],
): LoweredNode[] | 'syntax error' | 'trailing comment' | 'other shape' {
  const tree = parser.parse(text, null, { includedRanges: includedRangesOf(text, ranges) });
  try {
    if (!tree || tree.rootNode.hasError) return 'syntax error';
    const lowered = lowerTree(tree, text);
    windowParseCounts.lowered += lowered.nodeCount;
    const from = ranges[ranges.length - 1].startIndex;
    const statements = windowStatements(lowered.root as LoweredNode, window.headers, from);
    // NOTE: the edit can end the window with a comment (a `#` typed before its last
    // statement). Which block that comment is in, the next line with code decides; and in
    // the window's parse, comments after its last statement fall outside the block (lost).
    const lastNew = statements?.[statements.length - 1];
    if (!lastNew) return 'other shape';
    const to = ranges[ranges.length - 1].endIndex;
    if (
      !commentEndFault &&
      ((lastNew.type === 'comment' && !onlyBlanksFrom(text, lastNew.endIndex)) ||
        /\S/.test(text.slice(lastNew.endIndex, to)))
    )
      return 'trailing comment';
    return statements;
  } finally {
    tree?.delete();
  }
}

/** The runs of statements around the edit whose enclosing headers parse alone, deepest first. */
function findWindows(root: LoweredNode, span: TextSpan, text: string, delta: number): Window[] {
  const found: Window[] = [];
  const path = [root];
  const headers: LoweredNode[] = [];
  for (;;) {
    const block = path[path.length - 1];
    const run = statementRun(block.children, span, text, delta);
    if (!run) return found.reverse();
    found.push({ path: [...path], headers: [...headers], ...run });
    if (run.first !== run.last) return found.reverse();
    const statement = block.children[run.first];
    const definition =
      statement.type === 'decorated_definition' ? inField(statement, 'definition') : statement;
    const field = definition && BODY_FIELD[definition.type];
    const body = field ? inField(definition, field) : undefined;
    if (!definition || !body || body.type !== 'block') return found.reverse();
    if (definition !== statement) path.push(statement);
    path.push(definition, body);
    headers.push(definition);
  }
}

/**
 * The children of a block to re-parse for `span`: from the last statement that starts
 * before the edit (so the window's first line keeps its indentation) to the first child
 * that ends at or after it; with the statements sharing their lines, and the comments
 * after the last with the statement after them.
 */
function statementRun(
  children: readonly LoweredNode[],
  span: TextSpan,
  text: string,
  delta: number,
): { first: number; last: number } | undefined {
  let first = -1;
  for (let k = 0; k < children.length; k++) {
    const start = children[k].startIndex;
    if (start >= span.start) break;
    if (children[k].type !== 'comment') first = k;
  }
  if (first === -1) return undefined;
  let last = first;
  while (last < children.length && children[last].endIndex < span.oldEnd) last++;
  if (last === children.length) return undefined;
  // Before the edit offsets are unchanged; after it they move by `delta`.
  while (first > 0 && !includesNewline(text, children[first - 1].endIndex, children[first].startIndex))
    first--;
  // A comment's block depends on the indentation of the next line with code, so the run
  // never ends with one unless nothing but blanks follows it.
  while (
    last + 1 < children.length &&
    ((children[last].type === 'comment' && !commentEndFault) ||
      children[last + 1].type === 'comment' ||
      !includesNewline(text, children[last].endIndex + delta, children[last + 1].startIndex + delta))
  )
    last++;
  if (
    children[last].type === 'comment' &&
    !commentEndFault &&
    !onlyBlanksFrom(text, children[last].endIndex + delta)
  )
    return undefined;
  return { first, last };
}

/**
 * Whether the statement after the window (if any) starts at the block's indentation.
 * tree-sitter accepts a line indented deeper than the statement before it, with no block
 * opened, as one more statement of the block (no syntax error). After `#` deleted from
 * `#if ...:` such lines belong to the `if` in the whole text, but not in the window.
 */
function nextAtBlockIndent(window: Window, text: string, delta: number): boolean {
  const children = window.path[window.path.length - 1].children;
  if (window.last + 1 >= children.length || indentFault) return true;
  const next = columnOf(text, children[window.last + 1].startIndex + delta);
  return next === columnOf(text, children[window.first].startIndex);
}

/** The header lines of the window's enclosing statements, then its own lines; undefined if any check fails. */
function includedRanges(text: string, window: Window, delta: number): Range[] | undefined {
  const block = window.path[window.path.length - 1];
  const firstStart = block.children[window.first].startIndex;
  const from = lineStart(text, firstStart);
  const to = endOfLine(text, block.children[window.last].endIndex + delta);
  if (to === -1 || !onlyIndentation(text, from, firstStart) || continuedFromAbove(text, from))
    return undefined;
  if (to - from > Math.max(MIN_WINDOW_LIMIT, text.length * MAX_WINDOW_SHARE)) return undefined;
  const bounds: number[] = [];
  for (const header of window.headers) {
    const body = inField(header, BODY_FIELD[header.type])!;
    const start = lineStart(text, header.startIndex);
    const end = lineStart(text, body.children[0].startIndex);
    if (!onlyIndentation(text, start, header.startIndex) || end <= start) return undefined;
    if (bounds.length && start < bounds[bounds.length - 1]) return undefined;
    bounds.push(start, end);
  }
  if (bounds.length && from < bounds[bounds.length - 1]) return undefined;
  bounds.push(from, to);
  if (hasLoneCarriageReturn(text, bounds)) return undefined;
  const points: Point[] = [pointAt(text, bounds[0])];
  for (let k = 1; k < bounds.length; k++)
    points.push(pointAfter(text, bounds[k - 1], bounds[k], points[k - 1]));
  const ranges: Range[] = [];
  for (let k = 0; k < bounds.length; k += 2)
    ranges.push({
      startIndex: bounds[k],
      endIndex: bounds[k + 1],
      startPosition: points[k],
      endPosition: points[k + 1],
    });
  return ranges;
}

/**
 * The window's statements in its parse: under the same headers (one statement at each
 * level), the children of the innermost block from the window's start on.
 */
function windowStatements(
  root: LoweredNode,
  headers: readonly LoweredNode[],
  from: number,
): LoweredNode[] | undefined {
  let level = root;
  for (const header of headers) {
    const statements = level.children.filter((child) => child.type !== 'comment');
    const [match] = statements;
    if (statements.length !== 1 || match.type !== header.type || match.startIndex !== header.startIndex)
      return undefined;
    const body = inField(match, BODY_FIELD[header.type]);
    if (!body || body.type !== 'block') return undefined;
    level = body;
  }
  const statements = level.children.filter((child) => child.startIndex >= from);
  return statements.length ? statements : undefined;
}

/**
 * The new tree: the path from the root to the block copied, the window's old children
 * replaced by `statements`, every other subtree moved over; the old path and window nodes
 * are cut loose.
 */
function splice(window: Window, statements: LoweredNode[], span: TextSpan, textLength: number): LoweredTree {
  const { path, first, last } = window;
  const delta = span.newEnd - span.oldEnd;
  const source = statements[0].source;
  const moved = new Map<LoweredNode, number>();
  const copies: LoweredNode[] = [];
  for (const old of path) {
    const parent = copies.length ? copies[copies.length - 1] : null;
    const copy = new LoweredNode(
      0,
      source,
      old.type,
      old.field,
      old.startIndex,
      old.endIndex,
      parent,
      old.indexSlot,
    );
    copy.operator = old.operator;
    copy.children = [];
    copies.push(copy);
  }
  const adopt = (copy: LoweredNode, child: LoweredNode, shift: number) => {
    child.parent = copy;
    copy.children.push(child);
    moved.set(child, shift);
  };
  path.forEach((old, depth) => {
    const copy = copies[depth];
    const next = path[depth + 1];
    old.children.forEach((child, index) => {
      if (next) {
        if (child === next) copy.children.push(copies[depth + 1]);
        else adopt(copy, child, child.startIndex > next.startIndex ? delta : 0);
      } else if (index < first) adopt(copy, child, 0);
      else if (index > last) adopt(copy, child, delta);
      else if (index === first) for (const statement of statements) adopt(copy, statement, 0);
    });
  });
  // The root spans the text. A node ending after the edit ends `delta` later; one ending
  // where the edit ends (text typed after its last token) ends with its last child.
  for (let depth = copies.length - 1; depth >= 0; depth--) {
    const copy = copies[depth];
    const lastChild = copy.children[copy.children.length - 1];
    copy.endIndex =
      depth === 0
        ? textLength
        : copy.endIndex > span.oldEnd
          ? copy.endIndex + delta
          : lastChild.endIndex + (moved.get(lastChild) ?? 0);
  }
  const tree = renumber(copies[0], source, moved);
  cutLoose(path[0], moved);
  return tree;
}

function inField(node: LoweredNode, field: string): LoweredNode | undefined {
  return node.children.find((child) => child.field === field);
}

function columnOf(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset after the line break ending the line of `offset` (or the text's end), if only blanks follow `offset` on it. */
function endOfLine(text: string, offset: number): number {
  let at = offset;
  while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\r')) at++;
  if (at === text.length) return at;
  return text[at] === '\n' ? at + 1 : -1;
}

function onlyIndentation(text: string, from: number, to: number): boolean {
  for (let at = from; at < to; at++) if (text[at] !== ' ' && text[at] !== '\t') return false;
  return true;
}

function onlyBlanksFrom(text: string, from: number): boolean {
  const visible = /\S/g;
  visible.lastIndex = from;
  return !visible.test(text);
}

function includesNewline(text: string, from: number, to: number): boolean {
  const at = text.indexOf('\n', from);
  return at !== -1 && at < to;
}

/** Whether the line before `from` ends in a backslash, which joins it to the line at `from`. */
function continuedFromAbove(text: string, from: number): boolean {
  let end = from - 1;
  if (end > 0 && text[end - 1] === '\r') end--;
  return end > 0 && text[end - 1] === '\\';
}

/** Whether a `\r` not followed by `\n` lies in one of the ranges (tree-sitter and Python count lines differently there). */
function hasLoneCarriageReturn(text: string, bounds: readonly number[]): boolean {
  for (let k = 0; k < bounds.length; k += 2) {
    for (
      let at = text.indexOf('\r', bounds[k]);
      at !== -1 && at < bounds[k + 1];
      at = text.indexOf('\r', at + 1)
    )
      if (text[at + 1] !== '\n') return true;
  }
  return false;
}

// Large literals in a text with syntax errors: a chunk (chunks.ts) that is one statement
// holding a large dictionary, set, list or call's arguments (a model zoo's table of
// configurations) is parsed in groups of entries, each group with the statement's first
// line before it and its closing lines after it (tree-sitter included ranges). The
// statement's own nodes come from a parse of those lines alone, its literal holding every
// group's entries. A keystroke in one entry then re-parses that entry's group alone, where
// the whole statement (in the benchmark's model zoo, a third of the file) was parsed before. On the
// error-free files of the development corpus, every literal split this way gives the nodes
// of the whole-file parse (docs/performance-log.md, "Large literals, entry by entry").
import type { Parser } from 'web-tree-sitter';
import type { ChunkRecord, PreviousChunks } from './chunked';
import { literalCuts, type LiteralCuts } from './chunks';
import { unchangedParts } from './edit-spans';
import type { TextSpan } from './lower-reuse';
import { lineRange } from './points';
import { indexSlotOf, LoweredNode, lowerTree, type SourceText } from './syntax';
import { unverifiedOf, type UnverifiedNodes } from './transplant';
import { collectGroups, groupsUnverified, nodesInside, type ChunkGroup } from './chunk-groups';
import { includedRangesOf } from './comment-runs';

/** A literal chunk cut into groups of entries, for the next version to reuse the unchanged ones. */
export interface LiteralSplit {
  cuts: LiteralCuts;
  groups: EntryGroup[];
}

/** One group of a literal's entries, as a parse of the statement's first and closing lines and the group gives them. */
interface EntryGroup extends ChunkGroup {
  /** The nodes the group adds to the literal, in order (entries and comments). */
  entries: LoweredNode[];
  /** The literal's type in this group's parse (`{` holds a dictionary or a set), if it made one. */
  literalType?: string;
  hasError: boolean;
  /** For a group just parsed: none of its nodes moves (the map is empty); absent for a group taken from the last version. */
  moved?: ReadonlyMap<LoweredNode, number>;
}

/** Counts for the benchmark and tests. */
export const literalChunkCounts = { parsed: 0, reused: 0, declined: 0 };

/** Test-only fault: a group taken from the last version keeps its offsets (its nodes do not move with the edit). */
let staleGroups = false;
export function setLiteralChunkFault(on: boolean): void {
  staleGroups = on;
}

/**
 * The chunk `[start, end)` of `source`'s text lowered group by group when it is a large
 * literal statement (see {@link literalCuts}); a group whose text is unchanged since
 * `previous` (where `old` was this chunk), with the first and closing lines unchanged too,
 * is taken from it. Undefined when the chunk is not such a statement, or when the parse of
 * its first and closing lines alone does not make the literal without an error, or the
 * first group's does not make it (the chunk is then parsed whole).
 */
export function lowerLiteralChunk(
  parser: Parser,
  source: SourceText,
  start: number,
  end: number,
  previous?: PreviousChunks,
  old?: ChunkRecord,
): ChunkRecord | undefined {
  const cuts = literalCuts(source.text, start, end);
  if (!cuts) return undefined;
  const statement = parseStatement(parser, source, start, end, cuts);
  if (!statement) {
    literalChunkCounts.declined++;
    return undefined;
  }
  const bounds = [cuts.headEnd, ...cuts.cuts, cuts.tailStart];
  const reusable =
    previous && old?.literal && old.start === start
      ? unchangedGroups(old.literal, previous.span, source.text.length)
      : new Map<number, EntryGroup>();
  const collected = collectGroups({
    bounds,
    reusable,
    stale: staleGroups,
    shiftBy: shiftGroup,
    parse: (groupStart, groupEnd, k) => {
      const group = parseGroup(parser, source, start, end, cuts, groupStart, groupEnd);
      // (The first group gives the literal's type; a group without errors always makes it.)
      return group.literalType || (k > 0 && group.hasError) ? group : undefined;
    },
    counts: literalChunkCounts,
  });
  if (!collected) return undefined;
  const { groups, shifts, reused } = collected;
  const settled = groups.map((group, k) => (reused.has(k) ? group : settle(group)));
  return assembleLiteral(start, end, statement, { cuts, groups: settled }, shifts);
}

/** A split kept whole by a chunk that moved by `shift`: its offsets moved too. */
export function shiftLiteralSplit(split: LiteralSplit, shift: number): LiteralSplit {
  if (shift === 0) return split;
  const { open, headEnd, tailStart, cuts } = split.cuts;
  return {
    cuts: {
      open: open + shift,
      headEnd: headEnd + shift,
      tailStart: tailStart + shift,
      cuts: cuts.map((cut) => cut + shift),
    },
    groups: split.groups.map((group) => shiftGroup(group, shift)),
  };
}

function shiftGroup(group: EntryGroup, shift: number): EntryGroup {
  if (shift === 0 && !group.moved) return group;
  const { moved: _moved, ...rest } = group;
  return { ...rest, start: group.start + shift, end: group.end + shift };
}

/**
 * The previous split's groups whose text is unchanged, by their start in the new text,
 * when the first line and the closing lines are unchanged too (every group is parsed with them).
 */
function unchangedGroups(split: LiteralSplit, span: TextSpan, length: number): Map<number, EntryGroup> {
  const { headEnd, tailStart } = split.cuts;
  return span.start < headEnd || span.oldEnd >= tailStart
    ? new Map()
    : unchangedParts(split.groups, span, length);
}

/** The statement's nodes from a parse of its first line and its closing lines, and its (empty) literal. */
interface StatementParse {
  /** The chunk's nodes: the statement, then the comments after it. */
  nodes: LoweredNode[];
  literal: LoweredNode;
}

/** Parses the first and closing lines alone; undefined unless they make the literal without an error. */
function parseStatement(
  parser: Parser,
  source: SourceText,
  start: number,
  end: number,
  cuts: LiteralCuts,
): StatementParse | undefined {
  const ranges = [lineRange(source, start, cuts.headEnd), lineRange(source, cuts.tailStart, end)];
  const parsed = parseRanges(parser, source, ranges);
  if (parsed.hasError) return undefined;
  const literal = literalIn(parsed.root, cuts);
  return literal ? { nodes: [...parsed.root.children], literal } : undefined;
}

/**
 * Parses the group `[start, end)` between the statement's first line and its closing lines,
 * and lowers it afresh: its entries are the literal's children that
 * lie in the group. When an error keeps the parse from making the literal, they are the
 * outermost nodes that lie in the group.
 */
function parseGroup(
  parser: Parser,
  source: SourceText,
  chunkStart: number,
  chunkEnd: number,
  cuts: LiteralCuts,
  start: number,
  end: number,
): EntryGroup {
  literalChunkCounts.parsed++;
  const ranges = [
    lineRange(source, chunkStart, cuts.headEnd),
    lineRange(source, start, end),
    lineRange(source, cuts.tailStart, chunkEnd),
  ];
  const { root, hasError } = parseRanges(parser, source, ranges);
  const literal = literalIn(root, cuts);
  const entries = nodesInside(literal ? literal.children : root.children, start, end);
  return { start, end, entries, hasError, ...(literal ? { literalType: literal.type } : {}) };
}

function parseRanges(
  parser: Parser,
  source: SourceText,
  ranges: ReturnType<typeof lineRange>[],
): { root: LoweredNode; hasError: boolean } {
  const tree = parser.parse(source.text, null, { includedRanges: includedRangesOf(source.text, ranges) });
  if (!tree) {
    parser.reset();
    throw new Error('tree-sitter returned no tree for a group of literal entries');
  }
  try {
    return {
      root: lowerTree(tree, source.text, undefined, source).root as LoweredNode,
      hasError: tree.rootNode.hasError,
    };
  } finally {
    tree.delete();
  }
}

/** The node of the literal that opens at `cuts.open` and closes on the tail's first line, if the parse made it. */
function literalIn(root: LoweredNode, cuts: LiteralCuts): LoweredNode | undefined {
  const text = root.source.text;
  let close = cuts.tailStart;
  while (text[close] === ' ' || text[close] === '\t') close++;
  let node: LoweredNode | undefined = root;
  while (node && node.startIndex !== cuts.open)
    node = node.children.find((child) => child.startIndex <= cuts.open && cuts.open < child.endIndex);
  return node && LITERALS.has(node.type) && node.endIndex === close + 1 ? node : undefined;
}

/** The node types a literal's bracket opens. */
const LITERALS = new Set(['dictionary', 'set', 'list', 'argument_list']);

/**
 * A group just parsed, and, when it has errors, its nodes no later lowering may reuse.
 * (Entries hold no statements, so none is taken back from the last version: see transplant.ts.)
 */
function settle(group: EntryGroup): EntryGroup {
  const unverified = group.hasError ? unverifiedOf(group.entries, new Map(), new Set()) : undefined;
  return { ...group, moved: new Map(), ...(unverified ? { unverified } : {}) };
}

/**
 * The chunk record of the statement with every group's entries in its literal (of the type
 * the first group's parse gave it: `{` with entries may be a set). The statement's nodes
 * are new in every version: the entries move, and the closing lines move with them.
 */
function assembleLiteral(
  start: number,
  end: number,
  statement: StatementParse,
  split: LiteralSplit,
  shifts: readonly number[],
): ChunkRecord {
  const { groups } = split;
  const empty = statement.literal;
  const type = groups[0].literalType ?? empty.type;
  const literal = new LoweredNode(
    0,
    empty.source,
    type,
    empty.field,
    empty.startIndex,
    empty.endIndex,
    empty.parent,
    indexSlotOf(type),
  );
  literal.children = [];
  const siblings = empty.parent!.children;
  siblings[siblings.indexOf(empty)] = literal;
  const moved = new Map<LoweredNode, number>();
  let hasError = false;
  groups.forEach((group, k) => {
    for (const entry of group.entries) {
      entry.parent = literal;
      literal.children.push(entry);
    }
    hasError ||= group.hasError;
    if (group.moved) for (const [node, shift] of group.moved) moved.set(node, shift);
    else for (const node of group.entries) moved.set(node, shifts[k]);
  });
  const unverified = hasError ? literalUnverified(statement.nodes, literal, groups) : undefined;
  return {
    start,
    end,
    nodes: statement.nodes,
    hasError,
    moved,
    literal: split,
    ...(unverified ? { unverified } : {}),
  };
}

/** The unverified nodes of a literal with errors: the statement's own nodes (not the entries under its literal), and the groups'. */
function literalUnverified(
  statementNodes: readonly LoweredNode[],
  literal: LoweredNode,
  groups: readonly EntryGroup[],
): UnverifiedNodes {
  const made: LoweredNode[] = [];
  const stack = [...statementNodes];
  while (stack.length) {
    const node = stack.pop()!;
    made.push(node);
    if (node !== literal) stack.push(...node.children);
  }
  return groupsUnverified(made, groups);
}

/**
 * The split of a literal chunk of an error-free whole-file lowering (`nodes`: the statement,
 * then the comments after it), when each of the literal's children lies inside one group:
 * what parsing each group gives (docs/performance-log.md).
 */
export function splitOfWholeLiteral(
  text: string,
  start: number,
  end: number,
  nodes: readonly LoweredNode[],
): LiteralSplit | undefined {
  const cuts = literalCuts(text, start, end);
  const [top] = nodes;
  if (!cuts || !top) return undefined;
  const literal = literalIn(top, cuts);
  if (!literal) return undefined;
  const bounds = [cuts.headEnd, ...cuts.cuts, cuts.tailStart];
  const groups: EntryGroup[] = [];
  let next = 0;
  for (let k = 0; k + 1 < bounds.length; k++) {
    const entries: LoweredNode[] = [];
    while (next < literal.children.length && literal.children[next].startIndex < bounds[k + 1]) {
      const entry = literal.children[next++] as LoweredNode;
      if (entry.startIndex < bounds[k] || entry.endIndex > bounds[k + 1]) return undefined;
      entries.push(entry);
    }
    groups.push({
      start: bounds[k],
      end: bounds[k + 1],
      entries,
      literalType: literal.type,
      hasError: false,
    });
  }
  return next === literal.children.length ? { cuts, groups } : undefined;
}

// The lowering of a text with syntax errors: each module-level chunk (chunks.ts) is parsed
// alone and the module-level nodes of every chunk go under one module node. An error then
// stays inside its chunk, and a keystroke in one chunk re-parses that chunk alone: the
// other chunks' nodes, whose text is unchanged, move over from the last version (same
// objects, offsets shifted), as a window re-parse moves them (window-parse.ts). A chunk
// that is one large class or function is parsed in groups of its body's statements
// (definition-chunks.ts), one that is a statement holding a large literal in groups of its
// entries (literal-chunks.ts).
import type { Parser } from 'web-tree-sitter';
import { chunkStarts } from './chunks';
import { lowerDefinitionChunk } from './definition-chunks';
import { shiftSplit, splitOfWholeDefinition, type DefinitionSplit } from './definition-split';
import {
  lowerLiteralChunk,
  shiftLiteralSplit,
  splitOfWholeLiteral,
  type LiteralSplit,
} from './literal-chunks';
import { cutLoose, lowerPartReusing, renumber, type NodeSet, type TextSpan } from './lower-reuse';
import { unchangedParts } from './edit-spans';
import { lineRange } from './points';
import { transplant, unverifiedOf, type UnverifiedNodes } from './transplant';
import { indexSlotOf, LoweredNode, lowerTree, SourceText, type LoweredTree, type SyntaxNode } from './syntax';
import { includedRangesOf } from './comment-runs';

/** One chunk of a chunked lowering: its bounds and its module-level nodes. */
export interface ChunkRecord {
  start: number;
  end: number;
  nodes: LoweredNode[];
  /** For a chunk just parsed: the previous version's subtrees its lowering took, with how far each moves. */
  moved?: ReadonlyMap<LoweredNode, number>;
  hasError: boolean;
  /** For a chunk with errors: its nodes no later lowering may reuse (see {@link ChunkErrorNodes}). */
  unverified?: UnverifiedNodes;
  /** For a large class or function: its groups of body statements (definition-chunks.ts). */
  split?: DefinitionSplit;
  /** For a large literal: its groups of entries (literal-chunks.ts). */
  literal?: LiteralSplit;
}

/** A chunked lowering: the tree, and its chunks for the next version to reuse. */
export interface ChunkedLowering {
  lowered: LoweredTree;
  chunks: ChunkRecord[];
  hasError: boolean;
  /** The nodes of the chunks with errors no later lowering may reuse (see {@link ChunkErrorNodes}). */
  unverified: NodeSet;
}

/** The last version's chunks and the edit since (offsets of its text, then of the new one). */
export interface PreviousChunks {
  chunks: readonly ChunkRecord[];
  root: SyntaxNode;
  span: TextSpan;
  /** The previous lowering's nodes that are never reused. */
  unverified: NodeSet;
}

/** Test-only fault: reuse a chunk that starts where an old one started, edited or not. */
let staleChunks = false;
export function setChunkFault(on: boolean): void {
  staleChunks = on;
}

/** Counts for the benchmark and tests. */
export const chunkCounts = { parsed: 0, reused: 0 };

/**
 * The chunks of `text` (see chunks.ts): each whose text is unchanged since `previous` is
 * taken from it, the others are parsed alone. Nothing of `previous` changes yet; see
 * {@link assembleChunks}.
 */
export function planChunks(parser: Parser, text: string, previous?: PreviousChunks): ChunkPlan {
  const starts = chunkStarts(text);
  const source = new SourceText(text);
  const reusable = previous ? unchangedChunks(previous, text.length) : new Map<number, ChunkRecord>();
  const chunks: ChunkRecord[] = [];
  const shifts: number[] = [];
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i];
    const end = i + 1 < starts.length ? starts[i + 1] : text.length;
    const old = reusable.get(start);
    if (old && old.end - old.start === end - start) {
      const { nodes, hasError, unverified, split, literal } = old;
      const shift = start - old.start;
      chunks.push({
        start,
        end,
        nodes,
        hasError,
        unverified,
        ...(split ? { split: shiftSplit(split, shift) } : {}),
        ...(literal ? { literal: shiftLiteralSplit(literal, shift) } : {}),
      });
      shifts.push(shift);
      chunkCounts.reused++;
    } else {
      const edited = previous && editedChunk(previous, start);
      chunks.push(
        lowerDefinitionChunk(parser, source, start, end, previous, edited) ??
          lowerLiteralChunk(parser, source, start, end, previous, edited) ??
          parseChunk(parser, source, start, end, previous),
      );
      shifts.push(0);
    }
  }
  // The module starts at its first token, as a whole parse's does.
  const rootStart = firstTokenStart(text);
  return { chunks, shifts, source, rootStart, hasError: chunks.some((chunk) => chunk.hasError) };
}

/** The chunks of a text, before they are put under one module node. */
export interface ChunkPlan {
  chunks: ChunkRecord[];
  /** How far each chunk's nodes move from where they were lowered. */
  shifts: number[];
  source: SourceText;
  /** Where the module node starts: at the first token, as tree-sitter's does. */
  rootStart: number;
  hasError: boolean;
}

/**
 * The module node holding every chunk's nodes, numbered. The previous version's nodes not
 * reused are cut loose: its tree must not be used afterwards.
 */
export function assembleChunks(plan: ChunkPlan, previousRoot?: SyntaxNode): ChunkedLowering {
  const { source } = plan;
  const root = new LoweredNode(
    0,
    source,
    'module',
    null,
    plan.rootStart,
    source.text.length,
    null,
    indexSlotOf('module'),
  );
  root.children = [];
  const moved = new Map<LoweredNode, number>();
  plan.chunks.forEach((chunk, i) => {
    for (const node of chunk.nodes) {
      node.parent = root;
      root.children.push(node);
      // A chunk parsed now has new nodes, which may hold subtrees of the last version.
      if (!chunk.moved) moved.set(node, plan.shifts[i]);
    }
    for (const [node, shift] of chunk.moved ?? []) moved.set(node, shift);
  });
  const lowered = renumber(root, source, moved);
  if (previousRoot) cutLoose(previousRoot as LoweredNode, moved);
  const withErrors = plan.chunks.flatMap((chunk) => (chunk.unverified ? [chunk.unverified] : []));
  return {
    lowered,
    chunks: plan.chunks,
    hasError: plan.hasError,
    unverified: new ChunkErrorNodes(root, withErrors),
  };
}

/** Lowers `text` chunk by chunk, afresh: the lowering of a text with syntax errors. */
export function lowerChunked(parser: Parser, text: string): ChunkedLowering {
  return assembleChunks(planChunks(parser, text));
}

/**
 * The chunks of an error-free version lowered from a whole-file tree: its module-level
 * nodes grouped by the chunks of its text, when none crosses a chunk's end. Each chunk of
 * an error-free text parses alone as it does in the whole file (see chunks.ts).
 */
export function chunksOfWholeLowering(root: SyntaxNode): ChunkRecord[] | undefined {
  const text = root.source.text;
  const starts = chunkStarts(text);
  const chunks: ChunkRecord[] = [];
  let next = 0;
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i];
    const end = i + 1 < starts.length ? starts[i + 1] : text.length;
    const nodes: LoweredNode[] = [];
    while (next < root.children.length && root.children[next].startIndex < end) {
      const node = root.children[next++] as LoweredNode;
      if (node.startIndex < start || node.endIndex > end) return undefined;
      nodes.push(node);
    }
    const split = splitOfWholeDefinition(text, start, end, nodes);
    const literal = split ? undefined : splitOfWholeLiteral(text, start, end, nodes);
    chunks.push({
      start,
      end,
      nodes,
      hasError: false,
      ...(split ? { split } : {}),
      ...(literal ? { literal } : {}),
    });
  }
  return next === root.children.length ? chunks : undefined;
}

/**
 * The previous version's chunks whose text is unchanged, by their start in the new text:
 * those that end at or before the edit, and those that start at or after its end.
 */
function unchangedChunks(previous: PreviousChunks, length: number): Map<number, ChunkRecord> {
  if (staleChunks) return new Map(previous.chunks.map((chunk) => [chunk.start, chunk]));
  return unchangedParts(previous.chunks, previous.span, length);
}

/** The previous chunk that started at `start` and holds the edit's start: the chunk edited, which began before it. */
function editedChunk(previous: PreviousChunks, start: number): ChunkRecord | undefined {
  if (start >= previous.span.start) return undefined;
  return previous.chunks.find((chunk) => chunk.start === start && chunk.end >= previous.span.start);
}

/**
 * The nodes of the chunks with syntax errors that no later lowering reuses: tree-sitter's
 * error recovery can shape a node near an error without an error inside it (a tuple on the
 * right of an assignment became a `pattern_list` when a `)` was typed on the next line), so
 * no error-free look tells such a node from a sound one. A node of such a chunk lowered
 * from its tree is one; a statement put back from the previous version because it had the
 * same shape (see {@link transplant}) is one only if it was one there. The module is one.
 */
class ChunkErrorNodes implements NodeSet {
  private readonly fresh = new Set<SyntaxNode>();
  private readonly subtrees = new Set<SyntaxNode>();
  constructor(
    private readonly root: SyntaxNode,
    chunks: readonly UnverifiedNodes[],
  ) {
    for (const chunk of chunks) {
      for (const node of chunk.fresh) this.fresh.add(node);
      for (const node of chunk.subtrees) this.subtrees.add(node);
    }
    if (chunks.length) this.fresh.add(root);
  }
  get size(): number {
    return this.fresh.size + this.subtrees.size;
  }
  has(node: SyntaxNode): boolean {
    if (this.fresh.has(node)) return true;
    if (this.subtrees.size === 0) return false;
    for (let at: SyntaxNode | null = node; at && at !== this.root; at = at.parent)
      if (this.subtrees.has(at)) return true;
    return false;
  }
}

/**
 * Parses `[start, end)` of `source`'s text alone and lowers it (nodes at their offsets in
 * the text). A chunk without syntax errors reuses the previous version's subtrees whose
 * text did not change (see lower-reuse.ts); one with errors is lowered afresh, and then
 * takes back the previous statements it has the same shape as (see {@link transplant}).
 */
function parseChunk(
  parser: Parser,
  source: SourceText,
  start: number,
  end: number,
  previous: PreviousChunks | undefined,
): ChunkRecord {
  chunkCounts.parsed++;
  const { text } = source;
  const tree = parser.parse(text, null, {
    includedRanges: includedRangesOf(text, [lineRange(source, start, end)]),
  });
  if (!tree) {
    parser.reset();
    throw new Error('tree-sitter returned no tree for a chunk');
  }
  try {
    const hasError = tree.rootNode.hasError;
    const part =
      previous && !hasError
        ? lowerPartReusing(tree, source, {
            root: previous.root,
            span: previous.span,
            changed: [],
            unverified: previous.unverified,
          })
        : { root: lowerTree(tree, text, undefined, source).root as LoweredNode, moved: undefined };
    const top = part.root;
    // NOTE: a chunk that fails whole can come back as an ERROR root instead of a module.
    const nodes = top.type === 'module' ? [...top.children] : [top];
    if (part.moved) return { start, end, nodes, hasError, moved: part.moved };
    const taken = previous
      ? transplant(nodes, previous, start, end)
      : { moved: new Map<LoweredNode, number>(), unverifiedTwins: new Set<LoweredNode>() };
    const unverified = hasError ? unverifiedOf(nodes, taken.moved, taken.unverifiedTwins) : undefined;
    return { start, end, nodes, hasError, moved: taken.moved, ...(unverified ? { unverified } : {}) };
  } finally {
    tree.delete();
  }
}

/** Where tree-sitter's module node starts: after the whitespace and line breaks before the first token. */
function firstTokenStart(text: string): number {
  const match = /[^ \t\f\r\n]/.exec(text);
  return match ? match.index : text.length;
}

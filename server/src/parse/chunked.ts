// The lowering of a text with syntax errors: each module-level chunk (chunks.ts) is parsed
// alone and the module-level nodes of every chunk go under one module node. An error then
// stays inside its chunk, and a keystroke in one chunk re-parses that chunk alone: the
// other chunks' nodes, whose text is unchanged, move over from the last version (same
// objects, offsets shifted), as a window re-parse moves them (window-parse.ts).
import type { Parser, Range } from 'web-tree-sitter';
import { chunkStarts } from './chunks';
import { cutLoose, lowerPartReusing, renumber, type NodeSet, type TextSpan } from './lower-reuse';
import { indexSlotOf, LoweredNode, lowerTree, SourceText, type LoweredTree, type SyntaxNode } from './syntax';

/** One chunk of a chunked lowering: its bounds and its module-level nodes. */
export interface ChunkRecord {
  start: number;
  end: number;
  nodes: LoweredNode[];
  /** For a chunk just parsed: the previous version's subtrees its lowering took, with how far each moves. */
  moved?: ReadonlyMap<LoweredNode, number>;
  hasError: boolean;
}

/** A chunked lowering: the tree, and its chunks for the next version to reuse. */
export interface ChunkedLowering {
  lowered: LoweredTree;
  chunks: ChunkRecord[];
  hasError: boolean;
  /** Every node of the chunks with errors (see {@link ErrorChunkNodes}). */
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
      chunks.push({ start, end, nodes: old.nodes, hasError: old.hasError });
      shifts.push(start - old.start);
      chunkCounts.reused++;
    } else {
      chunks.push(parseChunk(parser, source, start, end, previous));
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
  const withErrors = plan.chunks.filter((chunk) => chunk.hasError).flatMap((chunk) => chunk.nodes);
  return {
    lowered,
    chunks: plan.chunks,
    hasError: plan.hasError,
    unverified: new ErrorChunkNodes(root, withErrors),
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
    chunks.push({ start, end, nodes, hasError: false });
  }
  return next === root.children.length ? chunks : undefined;
}

/**
 * The previous version's chunks whose text is unchanged, by their start in the new text:
 * those that end at or before the edit, and those that start at or after its end.
 */
function unchangedChunks(previous: PreviousChunks, length: number): Map<number, ChunkRecord> {
  const { span } = previous;
  const delta = span.newEnd - span.oldEnd;
  const found = new Map<number, ChunkRecord>();
  for (const chunk of previous.chunks) {
    if (chunk.end <= span.start || staleChunks) found.set(chunk.start, chunk);
    else if (chunk.start >= span.oldEnd && chunk.end + delta <= length) found.set(chunk.start + delta, chunk);
  }
  return found;
}

/**
 * The nodes of the chunks with syntax errors, which no later lowering reuses apart from
 * their whole chunk: tree-sitter's error recovery can shape a node near an error without
 * an error inside it (a tuple on the right of an assignment became a `pattern_list` when a
 * `)` was typed on the next line), so no error-free look tells such a node from a sound one.
 * A node is one when its module-level ancestor is one of `tops` (or it is the module).
 */
class ErrorChunkNodes implements NodeSet {
  private readonly tops: ReadonlySet<SyntaxNode>;
  constructor(
    private readonly root: SyntaxNode,
    tops: readonly SyntaxNode[],
  ) {
    this.tops = new Set(tops);
  }
  get size(): number {
    return this.tops.size;
  }
  has(node: SyntaxNode): boolean {
    if (this.tops.size === 0) return false;
    if (node === this.root) return true;
    let top = node;
    while (top.parent && top.parent !== this.root) top = top.parent;
    return this.tops.has(top);
  }
}

/**
 * Parses `[start, end)` of `source`'s text alone and lowers it (nodes at their offsets in
 * the text). A chunk without syntax errors reuses the previous version's subtrees whose
 * text did not change (see lower-reuse.ts); one with errors is lowered afresh.
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
  const from = source.positionAt(start);
  const to = source.positionAt(end);
  const range: Range = {
    startIndex: start,
    endIndex: end,
    startPosition: { row: from.line, column: from.column },
    endPosition: { row: to.line, column: to.column },
  };
  const tree = parser.parse(text, null, { includedRanges: [range] });
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
    return { start, end, nodes, hasError, moved: part.moved ?? new Map() };
  } finally {
    tree.delete();
  }
}

/** Where tree-sitter's module node starts: after the whitespace and line breaks before the first token. */
function firstTokenStart(text: string): number {
  const match = /[^ \t\f\r\n]/.exec(text);
  return match ? match.index : text.length;
}

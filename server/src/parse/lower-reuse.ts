// Incremental lowering: after an incremental re-parse, only the nodes on the path of the
// edit are lowered again from the wasm tree. Every other subtree of the previous version's
// lowered tree is moved into the new one as it is (same objects, offsets shifted, ids
// renumbered), so a keystroke costs a walk of the edited path plus one pass over plain JS
// objects instead of a wasm call per node. An unchanged function keeps its node objects
// across versions, which is what lets later stages reuse their per-scope results. Around a
// version with syntax errors (lowered chunk by chunk, chunked.ts, not re-parsed), subtrees
// are matched by their unchanged text instead, where neither side holds an error.
import type { Node, Tree } from 'web-tree-sitter';
import {
  IndexedLists,
  lowerTree,
  type LoweredNode,
  type LoweredTree,
  SourceText,
  type SubtreeSource,
  type SyntaxNode,
} from './syntax';

/**
 * What changed between the previous lowered text and the new one: `[start, oldEnd)` of the
 * old text became `[start, newEnd)` of the new one; everything before `start` and after
 * the ends is the same text at the same (or shifted) offsets.
 */
export interface TextSpan {
  start: number;
  oldEnd: number;
  newEnd: number;
}

/** A range of UTF-16 offsets, end exclusive. */
export interface TextRange {
  startIndex: number;
  endIndex: number;
}

/** Nodes a lowering must not reuse: what `has` says, and whether there are any. */
export interface NodeSet {
  has(node: SyntaxNode): boolean;
  readonly size: number;
}

/** The previous version to reuse from. */
export interface PreviousLowering {
  root: SyntaxNode;
  span: TextSpan;
  /**
   * Ranges of the new text no reused subtree may touch (new offsets): tree-sitter's changed
   * ranges when the new tree is a re-parse of the tree `root` was lowered from; otherwise
   * the new tree's errors (see {@link errorSpots}).
   */
  changed: readonly { startIndex: number; endIndex: number }[];
  /**
   * Set when the new tree is not a re-parse of the tree `root` was lowered from: the nodes
   * of `root` lowered from a tree with syntax errors whose text touches an error, which
   * are never reused. A subtree is then reused only when its text is unchanged, it had no
   * error, and the new tree has a node of the same type and field over the same text with
   * no error in it.
   */
  unverified?: NodeSet;
}

/**
 * Test-only faults the equivalence test must catch: reuse subtrees without moving their
 * offsets, or reuse nodes that touched a syntax error.
 */
export type LoweringReuseFault = 'none' | 'stale-offsets' | 'reuse-unverified';
let fault: LoweringReuseFault = 'none';
export function setLoweringReuseFault(next: LoweringReuseFault): void {
  fault = next;
}

/** Counters for tests and the benchmark: nodes lowered from wasm and nodes moved from the previous version. */
export const loweringReuseCounts = { lowered: 0, reused: 0 };

/**
 * Lowers `tree` (a parse of `text` without syntax errors) reusing the previous lowered
 * subtrees that lie wholly outside the edit and `previous.changed` (a fresh lowering when
 * the direct wasm walk is unavailable). The previous tree must not be used afterwards: its
 * reused nodes now belong to the new one.
 */
export function lowerReusing(tree: Tree, text: string, previous: PreviousLowering): LoweredTree {
  return lowerTree(tree, text, new PreviousSubtrees(previous));
}

/**
 * Lowers `tree`, a parse of part of `source`'s text (a chunk, see chunked.ts), reusing the
 * previous lowered subtrees as {@link lowerReusing} does, but leaving the numbering and the
 * previous tree to whoever puts the parts together: the reused subtrees are returned with
 * how far each moves, for {@link renumber}.
 */
export function lowerPartReusing(
  tree: Tree,
  source: SourceText,
  previous: PreviousLowering,
): { root: LoweredNode; moved: ReadonlyMap<LoweredNode, number> } {
  const reuse = new PreviousSubtrees(previous, true);
  const { root } = lowerTree(tree, source.text, reuse, source);
  return { root: root as LoweredNode, moved: reuse.moved };
}

/**
 * The places in `tree` that hold a syntax error, found by descending only into nodes that
 * contain one (a few calls for a local error): each missing token; each ERROR node's two
 * ends (what it wraps is either an error-free subtree or searched in turn, and any node
 * holding one of its skipped tokens holds the ERROR node); a node with an error in none of
 * its children, whole.
 */
export function errorSpots(tree: Tree): TextRange[] {
  const spots: TextRange[] = [];
  const visit = (node: Node) => {
    if (node.isMissing) {
      spots.push({ startIndex: node.startIndex, endIndex: node.endIndex });
      return;
    }
    const erroneous = node.children.filter((child): child is Node => child?.hasError === true);
    if (node.isError) {
      spots.push({ startIndex: node.startIndex, endIndex: node.startIndex });
      spots.push({ startIndex: node.endIndex, endIndex: node.endIndex });
    } else if (erroneous.length === 0) spots.push({ startIndex: node.startIndex, endIndex: node.endIndex });
    for (const child of erroneous) visit(child);
  };
  if (tree.rootNode.hasError) visit(tree.rootNode);
  return spots;
}

/**
 * Ranges of a text that answer whether `[from, to]` touches one of them (ends included) by
 * a binary search: sorted by start, with the largest end so far. A broken file can have
 * thousands of error spots, and every node lowered or offered for reuse asks.
 */
class RangeIndex {
  private readonly starts: number[] = [];
  private readonly endsSoFar: number[] = [];

  constructor(ranges: readonly { startIndex: number; endIndex: number }[]) {
    let end = -1;
    for (const range of [...ranges].sort((a, b) => a.startIndex - b.startIndex)) {
      end = Math.max(end, range.endIndex);
      this.starts.push(range.startIndex);
      this.endsSoFar.push(end);
    }
  }

  touches(from: number, to: number): boolean {
    // The last range starting at or before `to`; any earlier one ends no later than endsSoFar.
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.starts[middle] <= to) low = middle + 1;
      else high = middle;
    }
    return low > 0 && this.endsSoFar[low - 1] >= from;
  }
}

/** Node types whose children are statements. */
export const STATEMENT_PARENTS: ReadonlySet<string> = new Set(['module', 'block', 'ERROR']);

/** Whether a node of this type may have a block somewhere under it (expressions have none). */
export function mayHoldStatements(type: string): boolean {
  return (
    STATEMENT_PARENTS.has(type) ||
    type.endsWith('_statement') ||
    type.endsWith('_definition') ||
    type.endsWith('_clause')
  );
}

/**
 * Where the scan of one open new node's old counterpart stands: a stack of sibling lists
 * (an old ERROR node's children are scanned in place of it, as if it were not there).
 */
interface Frame {
  levels: { nodes: readonly LoweredNode[]; next: number }[];
}

/** Follows the walk through the previous lowered tree and hands over its unchanged subtrees. */
class PreviousSubtrees implements SubtreeSource {
  /** For each open new node: the scan of its old counterpart's children (same type and start). */
  private readonly frames: Frame[] = [];
  /** The old counterpart the last `adopt` found but could not reuse: the next opened node's. */
  private counterpart: LoweredNode | undefined;
  readonly moved = new Map<LoweredNode, number>();
  private readonly delta: number;
  private readonly changed: RangeIndex;
  private statementsByStart: Map<number, LoweredNode[]> | undefined;

  /** `part`: the tree is one part of the text; `finish` neither numbers it nor cuts the previous tree. */
  constructor(
    private readonly previous: PreviousLowering,
    private readonly part = false,
  ) {
    this.delta = previous.span.newEnd - previous.span.oldEnd;
    this.changed = new RangeIndex(previous.changed);
    this.counterpart = previous.root as LoweredNode;
  }

  adopt(type: string, field: string | null, from: number, to: number): LoweredNode | undefined {
    this.counterpart = this.scanTo(type, field, from) ?? this.movedStatement(type, field, from);
    const old = this.counterpart;
    if (
      !old ||
      old.endIndex - old.startIndex !== to - from ||
      !this.untouched(from, to) ||
      (this.previous.unverified?.has(old) && fault !== 'reuse-unverified')
    )
      return undefined;
    this.moved.set(old, from - old.startIndex);
    return old;
  }

  /** Advances the open node's scan to `from`: the old sibling there of this type and field, if any. */
  private scanTo(type: string, field: string | null, from: number): LoweredNode | undefined {
    const levels = this.frames[this.frames.length - 1]?.levels ?? [];
    while (levels.length) {
      const level = levels[levels.length - 1];
      if (level.next >= level.nodes.length) {
        if (levels.length === 1) return undefined;
        levels.pop();
        continue;
      }
      const candidate = level.nodes[level.next];
      const at = this.mappedStart(candidate);
      if (at !== -1 && at > from) return undefined;
      level.next++;
      if (at === from && candidate.type === type && candidate.field === field) return candidate;
      // The statements a syntax error wrapped in an ERROR node are its children.
      if (candidate.type === 'ERROR') levels.push({ nodes: candidate.children, next: 0 });
    }
    return undefined;
  }

  /**
   * When the trees differ by a syntax error, a statement may have moved to another parent
   * (into or out of an ERROR node that cut a class short): the old statement of this type
   * and field that started here, wherever it was.
   */
  private movedStatement(type: string, field: string | null, from: number): LoweredNode | undefined {
    if (!this.previous.unverified) return undefined;
    this.statementsByStart ??= this.indexStatements(this.previous.root as LoweredNode);
    return this.statementsByStart
      .get(from)
      ?.find((old) => old.type === type && old.field === field && !this.moved.has(old));
  }

  /** The old tree's statements (children of a module, block or ERROR node) by their start in the new text. */
  private indexStatements(root: LoweredNode): Map<number, LoweredNode[]> {
    const byStart = new Map<number, LoweredNode[]>();
    const stack = [root];
    while (stack.length) {
      const node = stack.pop()!;
      const statements = STATEMENT_PARENTS.has(node.type);
      for (const child of node.children) {
        if (mayHoldStatements(child.type)) stack.push(child);
        const at = statements ? this.mappedStart(child) : -1;
        if (at === -1) continue;
        const list = byStart.get(at);
        if (list) list.push(child);
        else byStart.set(at, [child]);
      }
    }
    return byStart;
  }

  opened(node: LoweredNode): void {
    const old = this.counterpart?.type === node.type ? this.counterpart : undefined;
    // A new ERROR node with no counterpart wraps what were its parent's children: its scan
    // is its parent's, shared, so it goes on where the ERROR node ends.
    const parent = this.frames[this.frames.length - 1];
    this.frames.push(
      old
        ? { levels: [{ nodes: old.children, next: 0 }] }
        : node.type === 'ERROR' && parent
          ? parent
          : { levels: [] },
    );
    this.counterpart = undefined;
  }

  closed(): void {
    this.frames.pop();
  }

  finish(root: LoweredNode, source: SourceText, lowered: number): LoweredTree {
    // NOTE: a part's nodes are counted by chunked.ts (chunkCounts), not here.
    if (this.part) return { root, nodeCount: lowered, byType: new Map() };
    const tree = renumber(root, source, this.moved);
    // A memo that still holds the old tree then keeps no later version alive through the
    // nodes this one did not take over (a moved node's parent is its new one).
    cutLoose(this.previous.root as LoweredNode, this.moved);
    loweringReuseCounts.lowered += lowered;
    loweringReuseCounts.reused += tree.nodeCount - lowered;
    return tree;
  }

  /** Where an old node's start lies in the new text, or -1 when it starts inside the edit. */
  private mappedStart(old: LoweredNode): number {
    const { start, oldEnd } = this.previous.span;
    return old.startIndex < start
      ? old.startIndex
      : old.startIndex > oldEnd
        ? old.startIndex + this.delta
        : -1;
  }

  /**
   * Whether `[from, to)` of the new text lies outside the edit and every changed range
   * (when the new tree is not a re-parse, its errors: a node with an error in it is never
   * matched with an old error-free one, such as a `for` statement whose body a new error
   * wrapped in an ERROR node, over the same text).
   */
  private untouched(from: number, to: number): boolean {
    const { start, newEnd } = this.previous.span;
    return (to < start || from > newEnd) && !this.changed.touches(from, to);
  }
}

/** The text of every node an edit dropped (see `cutLoose`). */
const DROPPED_SOURCE = new SourceText('');

/**
 * Cuts the links of an old tree's nodes, except the subtrees a new tree took over (`kept`):
 * a dropped node's parent would lead to the version it was dropped from, and its text source
 * is that version's whole text. A memo may keep dropped nodes for their identity (the kind
 * carry keeps the last version without syntax errors while the document has one), and each
 * node dropped in another version would keep another whole text alive.
 */
export function cutLoose(root: LoweredNode, kept: ReadonlyMap<LoweredNode, unknown>): void {
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (kept.has(node)) continue;
    stack.push(...node.children);
    node.children.length = 0;
    node.parent = null;
    node.source = DROPPED_SOURCE;
  }
}

/**
 * One pre-order pass over the new tree: document-order ids, the by-type index, and for
 * each moved subtree its offsets shifted by its move and its text source replaced.
 */
export function renumber(
  root: LoweredNode,
  source: SourceText,
  moved: ReadonlyMap<LoweredNode, number>,
): LoweredTree {
  const index = new RenumberIndex();
  const stack: LoweredNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    const move = moved.get(node);
    if (move !== undefined) {
      // NOTE: moved subtrees never nest (a lowering adopts a subtree instead of descending
      // into it), so nothing inside one is looked up.
      index.settleMoved(node, fault === 'stale-offsets' ? 0 : move, source);
      continue;
    }
    index.add(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return { root, nodeCount: index.count, byType: index.byType() };
}

/** The ids and by-type lists `renumber` hands out, in the order it visits nodes. */
class RenumberIndex extends IndexedLists {
  /** Numbers a moved subtree in pre-order, shifting its offsets by `shift` into `source`. */
  settleMoved(top: LoweredNode, shift: number, source: SourceText): void {
    const stack: LoweredNode[] = [top];
    while (stack.length) {
      const node = stack.pop()!;
      if (shift !== 0) {
        node.startIndex += shift;
        node.endIndex += shift;
      }
      node.source = source;
      this.add(node);
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
}

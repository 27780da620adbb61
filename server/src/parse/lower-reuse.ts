// Incremental lowering: after an incremental re-parse, only the nodes on the path of the
// edit are lowered again from the wasm tree. Every other subtree of the previous version's
// lowered tree is moved into the new one as it is (same objects, offsets shifted, ids
// renumbered), so a keystroke costs a walk of the edited path plus one pass over plain JS
// objects instead of a wasm call per node. An unchanged function keeps its node objects
// across versions, which is what lets later stages reuse their per-scope results.
import type { Tree } from 'web-tree-sitter';
import {
  lowerTree,
  type LoweredNode,
  type LoweredTree,
  type SourceText,
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

/** The previous version to reuse from. */
export interface PreviousLowering {
  root: SyntaxNode;
  span: TextSpan;
  /** tree-sitter's changed ranges between the edited old tree and the new tree (new offsets). */
  changed: readonly { startIndex: number; endIndex: number }[];
}

/** Test-only fault: reuse subtrees without moving their offsets (the equivalence test must catch it). */
let skipShift = false;
export function setLoweringReuseFault(on: boolean): void {
  skipShift = on;
}

/** Counters for tests and the benchmark: nodes lowered from wasm and nodes moved from the previous version. */
export const loweringReuseCounts = { lowered: 0, reused: 0 };

/**
 * Lowers `tree` (a re-parse of `text` from the previous version's tree) reusing the
 * previous lowered subtrees that lie wholly outside the edit and tree-sitter's changed
 * ranges (a fresh lowering when the direct wasm walk is unavailable). The previous tree
 * must not be used afterwards: its reused nodes now belong to the new one.
 */
export function lowerReusing(tree: Tree, text: string, previous: PreviousLowering): LoweredTree {
  return lowerTree(tree, text, new PreviousSubtrees(previous));
}

/** Follows the walk through the previous lowered tree and hands over its unchanged subtrees. */
class PreviousSubtrees implements SubtreeSource {
  /** For each open new node: its old counterpart (same type and start) and how far its old children were scanned. */
  private readonly frames: { old: LoweredNode | undefined; next: number }[] = [];
  /** The old counterpart the last `adopt` found but could not reuse: the next opened node's. */
  private counterpart: LoweredNode | undefined;
  private readonly moved = new Map<LoweredNode, number>();
  private readonly delta: number;

  constructor(private readonly previous: PreviousLowering) {
    this.delta = previous.span.newEnd - previous.span.oldEnd;
    this.counterpart = previous.root as LoweredNode;
  }

  adopt(type: string, field: string | null, from: number, to: number): LoweredNode | undefined {
    const frame = this.frames[this.frames.length - 1];
    const siblings = frame?.old?.children ?? [];
    this.counterpart = undefined;
    while (frame && frame.next < siblings.length) {
      const candidate = siblings[frame.next];
      const at = this.mappedStart(candidate);
      if (at !== -1 && at > from) break;
      frame.next++;
      if (at === from && candidate.type === type && candidate.field === field) {
        this.counterpart = candidate;
        break;
      }
    }
    const old = this.counterpart;
    if (!old || old.endIndex - old.startIndex !== to - from || !this.untouched(from, to)) return undefined;
    this.moved.set(old, from - old.startIndex);
    return old;
  }

  opened(node: LoweredNode): void {
    const old = this.counterpart?.type === node.type ? this.counterpart : undefined;
    this.frames.push({ old, next: 0 });
    this.counterpart = undefined;
  }

  closed(): void {
    this.frames.pop();
  }

  finish(root: LoweredNode, source: SourceText, lowered: number): LoweredTree {
    loweringReuseCounts.lowered += lowered;
    return renumber(root, source, this.moved);
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

  /** Whether `[from, to)` of the new text lies outside the edit and every changed range. */
  private untouched(from: number, to: number): boolean {
    const { start, newEnd } = this.previous.span;
    return (
      (to < start || from > newEnd) &&
      this.previous.changed.every((r) => to < r.startIndex || from > r.endIndex)
    );
  }
}

/**
 * One pre-order pass over the new tree: document-order ids, the by-type index, and for
 * each moved subtree its offsets shifted by its move and its text source replaced.
 */
function renumber(
  root: LoweredNode,
  source: SourceText,
  moved: ReadonlyMap<LoweredNode, number>,
): LoweredTree {
  const byType = new Map<string, SyntaxNode[]>();
  let count = 0;
  let reused = 0;
  const nodes: LoweredNode[] = [root];
  const shifts: number[] = [0];
  while (nodes.length) {
    const node = nodes.pop()!;
    let shift = shifts.pop()!;
    const move = moved.get(node);
    if (move !== undefined) shift = skipShift ? 0 : move;
    if (move !== undefined || shift !== 0 || node.source !== source) {
      reused++;
      node.startIndex += shift;
      node.endIndex += shift;
      node.source = source;
    }
    node.id = count++;
    let list = byType.get(node.type);
    if (!list) byType.set(node.type, (list = []));
    list.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) {
      nodes.push(node.children[i]);
      shifts.push(shift);
    }
  }
  loweringReuseCounts.reused += reused;
  return { root, nodeCount: count, byType };
}

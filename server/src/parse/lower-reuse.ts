// Incremental lowering: after an incremental re-parse, only the nodes on the path of the
// edit are lowered again from the wasm tree. Every other subtree of the previous version's
// lowered tree is moved into the new one as it is (same objects, offsets shifted, ids
// renumbered), so a keystroke costs a walk of the edited path plus one pass over plain JS
// objects instead of a wasm call per node. An unchanged function keeps its node objects
// across versions, which is what lets later stages reuse their per-scope results.
import type { Tree } from 'web-tree-sitter';
import { directAccess } from './direct-walk';
import {
  ERROR_TYPE_ID,
  LoweredNode,
  OPERATOR_PARENTS,
  SourceText,
  languageTables,
  type LoweredTree,
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
 * ranges. Returns undefined when the direct wasm walk is unavailable (the caller lowers
 * afresh). The previous tree must not be used afterwards: its reused nodes now belong to
 * the new one.
 */
export function lowerReusing(tree: Tree, text: string, previous: PreviousLowering): LoweredTree | undefined {
  const direct = directAccess(tree);
  if (!direct) return undefined;
  const { wasm, address } = direct;
  const { types, fields, named } = languageTables(tree);
  const { start, oldEnd, newEnd } = previous.span;
  const delta = newEnd - oldEnd;
  const source = new SourceText(text);
  /** Where an old node's start lies in the new text, or -1 when it starts inside the edit. */
  const mappedStart = (old: LoweredNode) =>
    old.startIndex < start ? old.startIndex : old.startIndex > oldEnd ? old.startIndex + delta : -1;
  const untouched = (from: number, to: number) =>
    (to < start || from > newEnd) && previous.changed.every((r) => to < r.startIndex || from > r.endIndex);
  const moved = new Map<LoweredNode, number>();
  let lowered = 0;

  wasm._ts_tree_root_node_wasm(address);
  wasm._ts_tree_cursor_new_wasm(address);
  try {
    const make = (parent: LoweredNode | null, typeId: number, from: number, to: number): LoweredNode => {
      lowered++;
      return new LoweredNode(
        0,
        source,
        types[typeId] ?? 'ERROR',
        fields[wasm._ts_tree_cursor_current_field_id_wasm(address)] ?? null,
        from,
        to,
        parent,
      );
    };
    const oldRoot = previous.root as LoweredNode;
    const root = make(
      null,
      wasm._ts_tree_cursor_current_node_type_id_wasm(address),
      wasm._ts_tree_cursor_start_index_wasm(address),
      wasm._ts_tree_cursor_end_index_wasm(address),
    );
    // For each open new node: its old counterpart (same type, same start) and how far its old children were scanned.
    const stack: { node: LoweredNode; old: LoweredNode | undefined; next: number }[] = [
      { node: root, old: oldRoot.type === root.type ? oldRoot : undefined, next: 0 },
    ];
    if (wasm._ts_tree_cursor_goto_first_child_wasm(address)) {
      for (;;) {
        const frame = stack[stack.length - 1];
        const parent = frame.node;
        const typeId = wasm._ts_tree_cursor_current_node_type_id_wasm(address);
        if (named[typeId] || typeId === ERROR_TYPE_ID) {
          const from = wasm._ts_tree_cursor_start_index_wasm(address);
          const to = wasm._ts_tree_cursor_end_index_wasm(address);
          const type = types[typeId] ?? 'ERROR';
          const field = fields[wasm._ts_tree_cursor_current_field_id_wasm(address)] ?? null;
          let counterpart: LoweredNode | undefined;
          const siblings = frame.old?.children ?? [];
          while (frame.next < siblings.length) {
            const candidate = siblings[frame.next];
            const at = mappedStart(candidate);
            if (at !== -1 && at > from) break;
            frame.next++;
            if (at === from && candidate.type === type && candidate.field === field) {
              counterpart = candidate;
              break;
            }
          }
          if (
            counterpart &&
            counterpart.endIndex - counterpart.startIndex === to - from &&
            untouched(from, to)
          ) {
            counterpart.parent = parent;
            parent.children.push(counterpart);
            moved.set(counterpart, from - counterpart.startIndex);
          } else {
            const node = make(parent, typeId, from, to);
            parent.children.push(node);
            if (wasm._ts_tree_cursor_goto_first_child_wasm(address)) {
              stack.push({ node, old: counterpart, next: 0 });
              continue;
            }
          }
        } else if (OPERATOR_PARENTS.has(parent.type)) {
          recordToken(parent, types[typeId], wasm._ts_tree_cursor_current_field_id_wasm(address));
        }
        let done = false;
        while (!wasm._ts_tree_cursor_goto_next_sibling_wasm(address)) {
          if (!wasm._ts_tree_cursor_goto_parent_wasm(address) || (stack.pop(), stack.length === 0)) {
            done = true;
            break;
          }
        }
        if (done) break;
      }
    }
    loweringReuseCounts.lowered += lowered;
    return renumber(root, source, moved);
  } finally {
    wasm._ts_tree_cursor_delete_wasm(address);
  }
}

/** The same rule as syntax.ts's `recordOperator`, for a token already read. */
function recordToken(parent: LoweredNode, token: string, fieldId: number): void {
  if (token === '(' || token === ')') return;
  if (parent.type !== 'comparison_operator' && fieldId === 0) return;
  parent.operator = parent.operator ? `${parent.operator} ${token}` : token;
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

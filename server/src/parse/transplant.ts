// Statements put back after a re-parse that may be shaped by tree-sitter's error recovery:
// a chunk (or a class's member group) with syntax errors is lowered afresh, and each
// previous statement outside the edit with the same shape all the way down takes the new
// one's place, so unchanged code keeps its objects (and the analyses carried with them).
import { mayHoldStatements, STATEMENT_PARENTS } from './lower-reuse';
import type { LoweredNode } from './syntax';
import type { PreviousChunks } from './chunked';

/** The nodes of a chunk with errors that no later lowering may reuse. */
export interface UnverifiedNodes {
  /** Nodes lowered from the chunk's tree, each alone (the previous version's equals are not among them). */
  fresh: LoweredNode[];
  /** Nodes put back from the previous version that were unverified there, with their subtrees. */
  subtrees: LoweredNode[];
}

/**
 * In the new nodes of a chunk with errors (lowered afresh, see {@link ChunkErrorNodes}), puts
 * in place of each statement the previous version's statement that lies outside the edit
 * and has the same shape (type, field, extent, operator, all the way down): the same
 * objects for unchanged code, which later stages reuse their results for. Returns the
 * statements put back, with how far each moves, and those that were unverified there.
 */
export function transplant(
  nodes: LoweredNode[],
  previous: PreviousChunks,
  start: number,
  end: number,
): { moved: Map<LoweredNode, number>; unverifiedTwins: ReadonlySet<LoweredNode> } {
  const { span } = previous;
  const delta = span.newEnd - span.oldEnd;
  // The previous statements outside the edit, by where they start in the new text.
  const byStart = new Map<number, LoweredNode[]>();
  const oldStart = start < span.start ? start : start - delta;
  const oldEnd = end <= span.start ? end : end - delta;
  const stack = [previous.root as LoweredNode];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.endIndex < oldStart || node.startIndex > oldEnd) continue;
    const statements = STATEMENT_PARENTS.has(node.type);
    for (const child of node.children) {
      // NOTE: an expression holds no statement; the walk stays on what may.
      if (mayHoldStatements(child.type)) stack.push(child);
      if (!statements) continue;
      const at =
        child.endIndex <= span.start
          ? child.startIndex
          : child.startIndex >= span.oldEnd
            ? child.startIndex + delta
            : -1;
      if (at === -1) continue;
      const list = byStart.get(at);
      if (list) list.push(child);
      else byStart.set(at, [child]);
    }
  }
  const moved = new Map<LoweredNode, number>();
  const unverifiedTwins = new Set<LoweredNode>();
  const visit = (parent: LoweredNode | null, list: LoweredNode[]) => {
    for (let i = 0; i < list.length; i++) {
      const node = list[i];
      const twin =
        parent === null || STATEMENT_PARENTS.has(parent.type)
          ? byStart
              .get(node.startIndex)
              ?.find((old) => !moved.has(old) && sameShape(old, node, node.startIndex - old.startIndex))
          : undefined;
      if (!twin) {
        visit(node, node.children);
        continue;
      }
      // NOTE: asked before its parent changes (the previous lowering looks up its ancestors).
      if (previous.unverified.has(twin)) unverifiedTwins.add(twin);
      twin.parent = node.parent;
      list[i] = twin;
      moved.set(twin, node.startIndex - twin.startIndex);
    }
  };
  visit(null, nodes);
  return { moved, unverifiedTwins };
}

/** Whether `old`, moved by `shift`, has the shape of `node` all the way down. */
function sameShape(old: LoweredNode, node: LoweredNode, shift: number): boolean {
  if (
    old.type !== node.type ||
    old.field !== node.field ||
    old.startIndex + shift !== node.startIndex ||
    old.endIndex + shift !== node.endIndex ||
    old.operator !== node.operator ||
    old.children.length !== node.children.length
  )
    return false;
  for (let i = 0; i < old.children.length; i++)
    if (!sameShape(old.children[i], node.children[i], shift)) return false;
  return true;
}

/** The nodes of a chunk with errors no later lowering may reuse (see {@link ChunkErrorNodes}). */
export function unverifiedOf(
  nodes: readonly LoweredNode[],
  moved: ReadonlyMap<LoweredNode, number>,
  unverifiedTwins: ReadonlySet<LoweredNode>,
): UnverifiedNodes {
  const fresh: LoweredNode[] = [];
  const subtrees: LoweredNode[] = [];
  const stack = [...nodes];
  while (stack.length) {
    const node = stack.pop()!;
    if (moved.has(node)) {
      if (unverifiedTwins.has(node)) subtrees.push(node);
      continue;
    }
    fresh.push(node);
    stack.push(...node.children);
  }
  return { fresh, subtrees };
}

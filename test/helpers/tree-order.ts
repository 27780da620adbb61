// Test helpers: a lowered tree's own shape, whatever built it (a whole parse, chunks, member
// groups, reuse across versions): each node appears once, under the node its `parent` names,
// inside that node's range, and after the sibling before it; and whether two trees match.
import type { SyntaxNode } from '../../server/src/parse/syntax';

/** The first node that breaks the tree's shape, in words (undefined when none does). */
export function misshapenNode(root: SyntaxNode): string | undefined {
  const seen = new Set<SyntaxNode>();
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (seen.has(node)) return `${node.type} at ${node.startIndex} twice`;
    seen.add(node);
    let end = node.startIndex;
    for (const child of node.children) {
      const where = `${child.type} at ${child.startIndex}-${child.endIndex} in ${node.type} at ${node.startIndex}-${node.endIndex}`;
      if (child.parent !== node) return `${where}: its parent is another node`;
      if (child.startIndex < end) return `${where}: before the end of the sibling before it (${end})`;
      if (child.endIndex > node.endIndex) return `${where}: past its parent's end`;
      end = child.endIndex;
      stack.push(child);
    }
  }
  return undefined;
}

/** Whether two lowered subtrees have the same type, field, extent and operator all the way down. */
export function sameTree(a: SyntaxNode, b: SyntaxNode): string | undefined {
  if (
    a.type !== b.type ||
    a.field !== b.field ||
    a.startIndex !== b.startIndex ||
    a.endIndex !== b.endIndex ||
    a.operator !== b.operator
  )
    return `${a.type}/${a.field} ${a.startIndex}-${a.endIndex} against ${b.type}/${b.field} ${b.startIndex}-${b.endIndex}`;
  if (a.children.length !== b.children.length)
    return `${a.type} at ${a.startIndex}: ${a.children.length} children against ${b.children.length}`;
  for (let i = 0; i < a.children.length; i++) {
    const differs = sameTree(a.children[i], b.children[i]);
    if (differs) return differs;
  }
  return undefined;
}

// Indexes of a tree's `x = ...` assignments, built once on first use (per list of assignment
// nodes, so the role analysis, which runs before the FileModel exists, and the rules share
// one): by the text of the left side, and by (enclosing function, assigned name) for "last
// assignment before a use" questions. These are asked per identifier, so scanning every
// assignment would be quadratic.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from './file-model';
import { enclosingFunction, fieldOf } from './syntax-helpers';

interface AssignmentIndex {
  /** Left-side text → the assignments with that left side, in document order. */
  byLeftText: Map<string, SyntaxNode[]>;
  /** Enclosing function (undefined at module level) → identifier name → assignments in document order. */
  byScopeAndName: Map<SyntaxNode | undefined, Map<string, SyntaxNode[]>>;
}

/** One index per list of assignments (a FileModel's `nodes.assignment`, which never changes). */
const indexes = new WeakMap<readonly SyntaxNode[], AssignmentIndex>();

function indexOf(assignments: readonly SyntaxNode[]): AssignmentIndex {
  const known = indexes.get(assignments);
  if (known) return known;
  const index: AssignmentIndex = { byLeftText: new Map(), byScopeAndName: new Map() };
  for (const assignment of assignments) {
    const left = fieldOf(assignment, 'left');
    if (!left) continue;
    pushTo(index.byLeftText, left.text, assignment);
    if (left.type !== 'identifier') continue;
    const scope = enclosingFunction(assignment);
    let names = index.byScopeAndName.get(scope);
    if (!names) index.byScopeAndName.set(scope, (names = new Map()));
    pushTo(names, left.text, assignment);
  }
  indexes.set(assignments, index);
  return index;
}

function pushTo(map: Map<string, SyntaxNode[]>, key: string, value: SyntaxNode): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Every assignment whose left side has exactly the text `leftText` (`x`, `self.device`), in document order. */
export function assignmentsTo(model: FileModel, leftText: string): readonly SyntaxNode[] {
  return indexOf(model.nodes.assignment).byLeftText.get(leftText) ?? [];
}

/** The right side of the last `name = ...` before `use` in the same function (or module). */
export function lastAssignedValue(model: FileModel, use: SyntaxNode): SyntaxNode | undefined {
  return lastAssignedIn(model.nodes.assignment, use);
}

/** {@link lastAssignedValue} among `assignments` (every assignment of the tree, in document order). */
export function lastAssignedIn(assignments: readonly SyntaxNode[], use: SyntaxNode): SyntaxNode | undefined {
  const candidates = indexOf(assignments).byScopeAndName.get(enclosingFunction(use))?.get(use.text);
  if (!candidates) return undefined;
  // Assignments are in document order (pre-order walk), so start offsets never decrease:
  // binary-search the last one starting before the use.
  let low = 0;
  let high = candidates.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (candidates[middle].startIndex < use.startIndex) low = middle + 1;
    else high = middle;
  }
  return low > 0 ? fieldOf(candidates[low - 1], 'right') : undefined;
}

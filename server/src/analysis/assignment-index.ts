// Per-FileModel indexes of the `x = ...` assignments, built once on first use: by the text of
// the left side, and by (enclosing function, assigned name) for "last assignment before a
// use" questions. Rules ask these per identifier, so scanning every assignment would be quadratic.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from './file-model';
import { enclosingFunction, fieldOf } from './syntax-helpers';
import { perModel } from './per-model';

interface AssignmentIndex {
  /** Left-side text → the assignments with that left side, in document order. */
  byLeftText: Map<string, SyntaxNode[]>;
  /** Enclosing function (undefined at module level) → identifier name → assignments in document order. */
  byScopeAndName: Map<SyntaxNode | undefined, Map<string, SyntaxNode[]>>;
}

/** One index per model; the model (and its tree) never changes once built. */
const indexOf = perModel((model): AssignmentIndex => {
  const index: AssignmentIndex = { byLeftText: new Map(), byScopeAndName: new Map() };
  for (const assignment of model.nodes.assignment) {
    const left = fieldOf(assignment, 'left');
    if (!left) continue;
    pushTo(index.byLeftText, left.text, assignment);
    if (left.type !== 'identifier') continue;
    const scope = enclosingFunction(assignment);
    let names = index.byScopeAndName.get(scope);
    if (!names) index.byScopeAndName.set(scope, (names = new Map()));
    pushTo(names, left.text, assignment);
  }
  return index;
});

function pushTo(map: Map<string, SyntaxNode[]>, key: string, value: SyntaxNode): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Every assignment whose left side has exactly the text `leftText` (`x`, `self.device`), in document order. */
export function assignmentsTo(model: FileModel, leftText: string): readonly SyntaxNode[] {
  return indexOf(model).byLeftText.get(leftText) ?? [];
}

/** The right side of the last `name = ...` before `use` in the same function (or module). */
export function lastAssignedValue(model: FileModel, use: SyntaxNode): SyntaxNode | undefined {
  const candidates = indexOf(model).byScopeAndName.get(enclosingFunction(use))?.get(use.text);
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

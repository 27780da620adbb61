// Calls grouped by method name (`x.item()` under `item`), built once per model: many rules
// look for one method among every call of the file, and a lookup beats re-reading each call.
import type { FileModel } from '../analysis/file-model';
import { methodCall } from '../analysis/syntax-helpers';
import type { SyntaxNode } from '../parse/syntax';
import { perModel } from '../analysis/per-model';

const callsByMethod = perModel((model): ReadonlyMap<string, readonly SyntaxNode[]> => {
  const grouped = new Map<string, SyntaxNode[]>();
  for (const call of model.nodes.call) {
    const name = methodCall(call)?.name;
    if (name === undefined) continue;
    const calls = grouped.get(name);
    if (calls) calls.push(call);
    else grouped.set(name, [call]);
  }
  return grouped;
});

/** Every `x.name(...)` call of the file (any receiver), in document order. */
export function callsToMethod(model: FileModel, name: string): readonly SyntaxNode[] {
  return callsByMethod(model).get(name) ?? [];
}

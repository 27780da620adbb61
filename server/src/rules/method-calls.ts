// Method calls by name (`x.item()` under `item`), read from the file's call index once per
// model and name: many rules look for one method among every call of the file.
import type { FileModel } from '../analysis/file-model';
import { methodCall } from '../analysis/syntax-helpers';
import type { SyntaxNode } from '../parse/syntax';
import { perModel } from '../analysis/per-model';

const methodCallsByName = perModel(() => new Map<string, readonly SyntaxNode[]>());

/** Every `x.name(...)` call of the file (any receiver), in document order. */
export function callsToMethod(model: FileModel, name: string): readonly SyntaxNode[] {
  const byName = methodCallsByName(model);
  let calls = byName.get(name);
  if (!calls) {
    // The index also holds `name(...)` and `(x.name)(...)`: a method call's callee is `x.name` itself.
    calls = model.callNames.named(name).filter((call) => methodCall(call)?.name === name);
    byName.set(name, calls);
  }
  return calls;
}

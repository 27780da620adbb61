// Per-FileModel lookups by name, each built with one pass on first use: functions by their
// `def` name, attribute nodes by the attribute they name, calls by their callee's text.
// Helpers that resolve a name look it up here instead of filtering every node of the file.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from './file-model';
import { perModel } from './per-model';
import { fieldOf } from './syntax-helpers';

/** Groups `nodes` by `keyOf` (nodes without a key are left out), keeping document order in each group. */
function groupBy(
  nodes: readonly SyntaxNode[],
  keyOf: (node: SyntaxNode) => string | undefined,
): Map<string, SyntaxNode[]> {
  const groups = new Map<string, SyntaxNode[]>();
  for (const node of nodes) {
    const key = keyOf(node);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(node);
    else groups.set(key, [node]);
  }
  return groups;
}

const functionsByName = perModel((model) =>
  groupBy(model.nodes.function_definition, (fn) => fieldOf(fn, 'name')?.text),
);
const attributesByName = perModel((model) =>
  groupBy(model.nodes.attribute, (node) => fieldOf(node, 'attribute')?.text),
);
const callsByCalleeText = perModel((model) =>
  groupBy(model.nodes.call, (call) => fieldOf(call, 'function')?.text),
);

/** Every `def name` of the file (methods and nested functions included), in document order. */
export function functionsNamed(model: FileModel, name: string): readonly SyntaxNode[] {
  return functionsByName(model).get(name) ?? [];
}

/** Every `x.name` attribute node of the file (any object), in document order. */
export function attributesNamed(model: FileModel, name: string): readonly SyntaxNode[] {
  return attributesByName(model).get(name) ?? [];
}

/** Every call whose callee is spelled exactly `text` (`self.core`, `model`), in document order. */
export function callsWithCallee(model: FileModel, text: string): readonly SyntaxNode[] {
  return callsByCalleeText(model).get(text) ?? [];
}

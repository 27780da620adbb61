// Where the host reads a tensor's value: `.item()`, `.tolist()`, `.cpu()`, `float(t)`,
// `math.f(t)`, a truth test (`if t:`, `assert t`), or formatting (`print(t)`, f-strings).
// SL406 asks it of an all-reduced tensor: a collective whose result only feeds device code
// (`torch._assert_async`, gradient scaling) costs no host sync.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import { enclosingFunction, fieldOf, methodCall, walk } from '../analysis/syntax-helpers';

const READ_METHODS = /^(item|tolist|cpu|numpy)$/;
const READ_BUILTINS = /^(float|int|bool|print|str|repr|format|math\.\w+)$/;

/** The first use of `name` after `after`, in the same function, that reads its value on the host. */
export function firstHostReadAfter(input: {
  model: FileModel;
  after: SyntaxNode;
  name: string;
}): SyntaxNode | undefined {
  const { after, name } = input;
  const scope = enclosingFunction(after) ?? input.model.root;
  let found: SyntaxNode | undefined;
  walk(scope, (node) => {
    if (found) return false;
    if (node !== scope && node.type === 'function_definition') return false;
    if (node.endIndex <= after.endIndex) return node.startIndex < after.endIndex ? undefined : false;
    if ((node.type === 'identifier' || node.type === 'attribute') && node.text === name && readsOnHost(node))
      found = node;
    return undefined;
  });
  return found;
}

function readsOnHost(use: SyntaxNode): boolean {
  let node = use;
  for (let depth = 0; depth < 6 && node.parent; depth++) {
    const parent = node.parent;
    if (parent.type === 'attribute' && fieldOf(parent, 'object') === node) {
      const call = parent.parent?.type === 'call' ? parent.parent : undefined;
      const method = call && methodCall(call);
      if (method && READ_METHODS.test(method.name)) return true;
      if (method && /^(detach|float|double|sum|mean|clone|to)$/.test(method.name)) {
        node = call;
        continue;
      }
      return false;
    }
    if (parent.type === 'argument_list') {
      const callee = parent.parent && fieldOf(parent.parent, 'function');
      return !!callee && READ_BUILTINS.test(callee.text);
    }
    if (parent.type === 'interpolation') return true;
    if (
      (parent.type === 'if_statement' || parent.type === 'while_statement') &&
      fieldOf(parent, 'condition') === node
    )
      return true;
    if (parent.type === 'assert_statement') return true;
    if (
      parent.type === 'binary_operator' ||
      parent.type === 'comparison_operator' ||
      parent.type === 'parenthesized_expression'
    ) {
      node = parent;
      continue;
    }
    return false;
  }
  return false;
}

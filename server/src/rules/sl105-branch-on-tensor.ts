// SL105: Python control flow on a tensor (`if loss > best:`, `while t:`, `assert (x >= 0).all()`,
// `a if t else b`, `t and x`, `not t`) — each truth test is a `bool(t)`, a sync.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, unwrap } from '../analysis/syntax-helpers';
import { isDeviceTensor, lastAssignedValue } from './sync-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Rule } from './types';
import { sl105Text } from './messages/sl1';

/**
 * Python control flow on a tensor value calls `bool(t)`: a sync.
 *
 * ## What it does
 * Flags Python control flow on a tensor value: the condition of `if`/`elif`/`while`, an `assert`,
 * a conditional expression, and operands of `and`/`or`/`not` — `if loss > best:`, `if
 * torch.isnan(loss):`, `assert (x >= 0).all()`. Comparisons of numbers (`if step > warmup:`), `is
 * None` tests and `torch.cuda.is_available()` are never flagged.
 * When only a loader's name suggests the value is a tensor (`for x, y in train_loader` with
 * nothing showing what `train_loader` is, and no element passed to a module, a loss or
 * `.backward()`), the finding is information at most, and its hover says why.
 *
 * ## Why is this bad?
 * Python calls `bool(t)` to choose the branch, a sync reported by `set_sync_debug_mode`. A
 * host–device sync makes the CPU wait until every kernel already queued on the GPU has finished;
 * then the GPU sits idle while Python runs and launches the next kernels. CUDA work is
 * asynchronous (PyTorch docs, *CUDA semantics — Asynchronous execution*), so for a step whose
 * kernels take milliseconds, the host waits that whole queue every step and the launch latency of
 * the next step (tens of microseconds per kernel, hundreds of kernels) becomes GPU idle time.
 * `torch.cuda.set_sync_debug_mode("warn")` reports these syncs (PyTorch docs,
 * *torch.cuda.set_sync_debug_mode*; the list of ops it reports was measured with PyTorch 2.11 on
 * an H100).
 *
 * ## Example
 * ```python
 * if torch.isnan(loss):
 *     raise RuntimeError("loss is nan")
 * ```
 *
 * ## Use instead
 * ```python
 * torch._assert_async(~torch.isnan(loss))   # checked on the device
 * # or check inside `if step % log_interval == 0:`
 * ```
 *
 * ## Quick fix
 * None: the safe change depends on what the value is used for.
 */
export const sl105: Rule = {
  code: 'SL105',
  name: 'branch-on-tensor',
  category: 'sync',
  severity: 'by-role',
  summary: 'Python control flow on a tensor value calls `bool(t)`: a sync.',
  check({ model, report }) {
    const seen = new Set<SyntaxNode>();
    const flag = (value: SyntaxNode, where: string) => {
      for (const tested of truthTested(model, value)) {
        if (seen.has(tested)) continue;
        seen.add(tested);
        report({
          node: tested,
          tensors: [tested],
          ...sl105Text({ model, node: tested, where }),
        });
      }
    };
    const conditions: [readonly SyntaxNode[], string][] = [
      [model.nodes.if_statement, 'This `if`'],
      [model.nodes.elif_clause, 'This `elif`'],
      [model.nodes.while_statement, 'This `while`'],
      [model.nodes.conditional_expression, 'This conditional expression'],
    ];
    for (const [nodes, where] of conditions) {
      for (const node of nodes) {
        const condition =
          node.type === 'conditional_expression' ? node.children[1] : fieldOf(node, 'condition');
        if (condition) flag(condition, where);
      }
    }
    for (const assertion of model.nodes.assert_statement) {
      if (assertion.children[0]) flag(assertion.children[0], 'This `assert`');
    }
    for (const node of [...model.nodes.not_operator, ...model.nodes.boolean_operator]) {
      if (coveredByOuterTest(node)) continue;
      if (node.type === 'not_operator') flag(node, '`not`');
      else flag(node.children[0], `\`${node.operator ?? 'and'}\``);
    }
  },
};

/** Whether an enclosing `not` (or the left side of an enclosing `and`/`or`) already tests this node's truth. */
function coveredByOuterTest(node: SyntaxNode): boolean {
  let child = node;
  let parent = node.parent;
  while (parent?.type === 'parenthesized_expression') {
    child = parent;
    parent = parent.parent;
  }
  if (!parent) return false;
  return (
    parent.type === 'not_operator' || (parent.type === 'boolean_operator' && parent.children[0] === child)
  );
}

/** The tensor-valued sub-expressions whose truth a boolean context evaluates (iterative: chains can be 10,000 deep). */
function truthTested(model: FileModel, expression: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  const pending = [expression];
  while (pending.length) {
    const node = unwrap(pending.pop()!);
    if (node.type === 'boolean_operator' || node.type === 'not_operator') {
      for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]);
    } else if (isTruthTestedTensor(model, node)) {
      found.push(node);
    }
  }
  return found;
}

function isTruthTestedTensor(model: FileModel, node: SyntaxNode): boolean {
  if (!isDeviceTensor(model, node)) return false;
  // NOTE: a bare name, item or attribute (`if not batch:`, `if outputs.loss:`) is usually an
  // emptiness or None test of a dict or list the analysis took for a tensor; flag a bare name
  // only when it was visibly assigned a tensor computation.
  if (node.type === 'subscript' || node.type === 'attribute') return false;
  if (node.type === 'identifier') {
    const value = lastAssignedValue(model, node);
    const computed =
      value && /^(call|comparison_operator|binary_operator|unary_operator)$/.test(unwrap(value).type);
    return !!computed && isDeviceTensor(model, value);
  }
  return true;
}

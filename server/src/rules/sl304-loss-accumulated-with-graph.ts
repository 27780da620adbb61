// SL304: `total_loss += loss` across training steps keeps every step's autograd graph
// alive through the accumulator: memory grows until out-of-memory.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, unwrap } from '../analysis/syntax-helpers';
import type { FileModel } from '../analysis/file-model';
import { carriedAcross, carriesGraph, hotLoopOf } from './memory-helpers';
import type { Fix, Rule } from './types';
import { sl304Text } from './messages/sl2-sl3';

/**
 * A loss accumulated across steps without `.detach()` keeps every step’s graph alive.
 *
 * ## What it does
 * Flags `total += loss` and `total = total + loss` inside a training loop when `total` is bound
 * before the loop and never reset inside it, and `loss` is a tensor with an autograd graph created
 * in the same loop: the result of a model or loss call (or arithmetic on one), not `.detach()`ed,
 * `.item()`ed, `float()`ed or computed under `torch.no_grad()`. It stays silent on `loss = loss /
 * grad_accum_steps`, on `loss += aux_loss` within one step (the accumulator is created inside the
 * loop), on `total += loss.item()` / `loss.detach()`, and in eval loops.
 *
 * ## Why is this bad?
 * `total` becomes a tensor whose graph references every step's loss, so none of those graphs can
 * be freed: memory grows every step until the job runs out of memory. This is the first item of
 * the PyTorch FAQ ("My model reports cuda runtime error(2): out of memory" — "Don't accumulate
 * history across your training loop"). Before `backward()` each graph holds the step's saved
 * activations (gigabytes); after it, the graph nodes still pile up.
 *
 * ## Example
 * ```python
 * total_loss = 0.0
 * for x, y in loader:
 *     loss = F.cross_entropy(model(x), y)
 *     loss.backward()
 *     optimizer.step()
 *     total_loss += loss
 * ```
 *
 * ## Use instead
 * ```python
 *     total_loss += loss.detach()   # stays on the device: no host sync
 * ```
 * `loss.item()` also works but waits for the GPU every step (see SL101): prefer `detach()` and
 * call `.item()` when logging.
 *
 * ## Quick fix
 * Accumulate `loss.detach()`.
 */
export const sl304: Rule = {
  code: 'SL304',
  name: 'loss-accumulated-with-graph',
  category: 'memory',
  severity: 'by-role',
  summary: 'A loss accumulated across steps without `.detach()` keeps every step’s graph alive.',
  check({ model, report }) {
    for (const statement of [...model.nodes.augmented_assignment, ...model.nodes.assignment]) {
      const found = accumulation(statement);
      if (!found) continue;
      const role = model.roleOf(statement);
      if (role !== 'hot' && role !== 'logging') continue;
      const loop = hotLoopOf(model, statement);
      if (!loop || !carriesGraph(model, found.value, loop)) continue;
      const carried = carriedAcross({
        model,
        name: found.name,
        use: statement,
        loop,
        allowed: (anchor) => !!accumulation(anchor) && accumulation(anchor)!.name === found.name,
      });
      if (!carried) continue;
      report({
        node: statement,
        ...sl304Text({ name: found.name, value: short(found.value) }),
        fixes: detachFix(model, found.value),
      });
    }
  },
};

/** `acc += value` or `acc = acc + value` (also `value + acc`), for a plain local `acc`. */
function accumulation(statement: SyntaxNode): { name: string; value: SyntaxNode } | undefined {
  const left = fieldOf(statement, 'left');
  const right = fieldOf(statement, 'right');
  if (!left || !right || left.type !== 'identifier') return undefined;
  if (statement.type === 'augmented_assignment') {
    return statement.operator === '+=' ? { name: left.text, value: right } : undefined;
  }
  if (statement.type !== 'assignment') return undefined;
  const sum = unwrap(right);
  if (sum.type !== 'binary_operator' || sum.operator !== '+') return undefined;
  const a = fieldOf(sum, 'left');
  const b = fieldOf(sum, 'right');
  if (a?.type === 'identifier' && a.text === left.text && b) return { name: left.text, value: b };
  if (b?.type === 'identifier' && b.text === left.text && a) return { name: left.text, value: a };
  return undefined;
}

function short(node: SyntaxNode): string {
  return node.text.length <= 40 ? node.text : 'the value';
}

/** `loss` → `loss.detach()`; parenthesises anything but a primary expression. */
export function detachFix(_model: FileModel, value: SyntaxNode): Fix[] {
  const primary = ['identifier', 'attribute', 'call', 'subscript', 'parenthesized_expression'].includes(
    value.type,
  );
  const text = primary ? `${value.text}.detach()` : `(${value.text}).detach()`;
  return [
    {
      title: `Accumulate \`${short(value)}.detach()\``,
      edits: [{ range: { start: value.start, end: value.end }, newText: text }],
    },
  ];
}

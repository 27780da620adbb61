// SL104: printing or formatting a tensor (`print(t)`, `f"{t}"`, `str(t)`, `"%f" % t`) in a hot step.
import type { SyntaxNode } from '../parse/syntax';
import { methodCall, positionalArgs, unwrap } from '../analysis/syntax-helpers';
import { stringInterpolations } from '../analysis/value-vocabulary';
import { builtinCall, isDeviceTensor } from './sync-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Rule } from './types';
import { sl104Text } from './messages/sl1';

const PRINTERS = new Set(['print', 'str', 'repr', 'format']);

/**
 * ## What it does
 * Flags a tensor passed to `print`, `str`, `repr` or `format`, interpolated in an f-string
 * (`f"{loss}"`, `f"{loss:.4f}"`), given to `"...".format(...)`, or `%`-formatted.
 *
 * ## Why is this bad?
 * Turning a CUDA tensor into text reads its values on the host, so the CPU waits for every
 * queued kernel (`torch.cuda.set_sync_debug_mode("warn")` reports `str(t)` and `print(t)`).
 *
 * ## Example
 * ```python
 * print(f"step {step} loss {loss:.4f}")
 * ```
 *
 * ## Use instead
 * Print inside `if step % log_interval == 0:`, or keep a device-side sum and print its
 * `.item()` once per interval.
 */
export const sl104: Rule = {
  code: 'SL104',
  name: 'format-tensor',
  category: 'sync',
  severity: 'by-role',
  summary: 'Printing or formatting a tensor reads it on the host: a sync.',
  check({ model, report }) {
    const flag = (value: SyntaxNode, how: string) =>
      report({
        node: value,
        ...sl104Text({ model, node: value, how }),
      });
    for (const call of model.nodes.call) {
      const builtin = builtinCall(model, call, PRINTERS);
      const method = methodCall(call);
      const formatsString = method?.name === 'format' && unwrap(method.receiver).type === 'string';
      if (!builtin && !formatsString) continue;
      const all = positionalArgs(call);
      const args = builtin === 'print' || formatsString ? all : all.slice(0, 1);
      for (const arg of args)
        if (isDeviceTensor(model, arg)) flag(arg, builtin === 'print' ? 'Printing' : 'Formatting');
    }
    for (const string of model.nodes.string) {
      for (const value of stringInterpolations(string)) {
        if (isDeviceTensor(model, value)) flag(value, 'The f-string field');
      }
    }
    for (const operand of percentOperands(model)) flag(operand, '`%`-formatting');
  },
};

/** Tensor operands of `"..." % x` and `"..." % (x, y)`. */
function percentOperands(model: FileModel): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (const string of model.nodes.string) {
    const parent = string.parent;
    if (parent?.type !== 'binary_operator' || parent.operator !== '%' || parent.children[0] !== string)
      continue;
    const right = unwrap(parent.children[1]);
    const values = right.type === 'tuple' ? right.children : [right];
    for (const value of values) if (isDeviceTensor(model, value)) found.push(value);
  }
  return found;
}

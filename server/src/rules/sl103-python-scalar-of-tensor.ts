// SL103: `float(t)`, `int(t)`, `bool(t)`, `torch.allclose`/`torch.equal` — a tensor turned into a Python scalar.
import { fieldOf, methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { builtinCall, isDeviceTensor, isTensor } from './sync-helpers';
import type { Rule } from './types';
import { sl103BoolText, sl103BuiltinText } from './messages/sl1';

const CONVERSIONS = new Set(['float', 'int', 'bool', 'complex']);
const BOOL_RESULT = /^(allclose|equal|is_nonzero)$/;

/**
 * ## What it does
 * Flags `float(t)`, `int(t)`, `bool(t)` of a value shown to be a tensor, and
 * `torch.allclose` / `torch.equal` / `t.is_nonzero()`, which return a Python bool.
 *
 * ## Why is this bad?
 * Producing a Python number from a CUDA tensor needs its value on the host: the CPU waits
 * for every queued kernel (`torch.cuda.set_sync_debug_mode("warn")` reports `float(t)`,
 * `bool(t)` and `allclose`).
 *
 * ## Example
 * ```python
 * running_loss += float(loss)
 * ```
 *
 * ## Use instead
 * Keep the value as a tensor (`running_loss += loss.detach()`) and convert once per log interval.
 */
export const sl103: Rule = {
  code: 'SL103',
  name: 'python-scalar-of-tensor',
  category: 'sync',
  severity: 'by-role',
  summary: '`float()`/`int()`/`bool()` of a tensor (or `allclose`/`equal`) syncs the GPU.',
  check({ model, report }) {
    for (const call of model.nodes.call) {
      const builtin = builtinCall(model, call, CONVERSIONS);
      const args = positionalArgs(call);
      if (builtin && args.length === 1 && isDeviceTensor(model, args[0])) {
        report({
          node: call,
          ...sl103BuiltinText({ model, node: call, builtin, argument: args[0] }),
        });
        continue;
      }
      const qualified = model.imports.resolve(fieldOf(call, 'function')!);
      const method = methodCall(call);
      const torchBool = qualified && /^torch\.(allclose|equal)$/.test(qualified);
      const methodBool =
        !qualified && method && BOOL_RESULT.test(method.name) && isTensor(model, method.receiver);
      if (!torchBool && !methodBool) continue;
      report({
        node: call,
        ...sl103BoolText({ model, node: call, callee: torchBool ? qualified : `.${method!.name}()` }),
      });
    }
  },
};

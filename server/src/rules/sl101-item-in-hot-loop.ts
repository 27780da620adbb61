// SL101: `.item()` on a tensor inside a hot training step — a host–device sync every step.
import { methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { isDeviceTensor } from './sync-helpers';
import { callsToMethod } from './method-calls';
import type { Rule } from './types';
import { sl101Text } from './messages/sl1';

/**
 * ## What it does
 * Flags `tensor.item()` where the analysis shows the receiver is a tensor. Warning in a hot
 * training step, information in a logging branch, hint in an eval loop, silent in setup.
 *
 * ## Why is this bad?
 * `.item()` copies a value to the host, so the CPU waits for every queued kernel to finish:
 * the GPU's queue drains and the next step's kernels launch late
 * (`torch.cuda.set_sync_debug_mode("warn")` reports it).
 *
 * ## Example
 * ```python
 * for x, y in loader:
 *     loss = F.cross_entropy(model(x), y)
 *     loss.backward(); opt.step()
 *     total += loss.item()
 * ```
 *
 * ## Use instead
 * Keep running sums on the device (`total += loss.detach()`) and call `.item()` once per
 * log interval.
 */
export const sl101: Rule = {
  code: 'SL101',
  name: 'item-in-hot-loop',
  category: 'sync',
  severity: 'by-role',
  summary: '`.item()` in a hot training step forces a host–device sync every step.',
  check({ model, report }) {
    for (const call of callsToMethod(model, 'item')) {
      const method = methodCall(call)!;
      if (positionalArgs(call).length > 0) continue;
      if (!isDeviceTensor(model, method.receiver)) continue;
      report({
        node: call,
        ...sl101Text({ model, node: call, receiver: method.receiver }),
      });
    }
  },
};

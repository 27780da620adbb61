// SL101: `.item()` on a tensor inside a hot training step — a host–device sync every step.
import { methodCall, positionalArgs } from '../analysis/syntax-helpers';
import type { Rule } from './types';

/**
 * ## What it does
 * Flags `tensor.item()` where the statement runs once per training step.
 *
 * ## Why is this bad?
 * `.item()` copies a value to the host, so the CPU waits for every queued kernel to finish:
 * the GPU's queue drains and the next step's kernels launch late.
 *
 * ## Use instead
 * Keep running sums on the device and call `.item()` once per log interval.
 */
export const sl101: Rule = {
  code: 'SL101',
  name: 'item-in-hot-loop',
  category: 'sync',
  severity: 'by-role',
  summary: '`.item()` in a hot training step forces a host–device sync every step.',
  check({ model, report }) {
    for (const call of model.nodes.call) {
      const method = methodCall(call);
      if (!method || method.name !== 'item' || positionalArgs(call).length > 0) continue;
      const kind = model.kindOf(method.receiver);
      if (kind !== 'tensor' && kind !== 'unknown') continue;
      const name = method.receiver.text.length <= 40 ? `\`${method.receiver.text}\`` : 'the tensor';
      report({
        node: call,
        message:
          `\`.item()\` on ${name} waits for the GPU: every queued kernel must finish before the value reaches ` +
          `the host, so the GPU idles while Python catches up. Keep a running sum on the device ` +
          `(\`total += loss.detach()\`) and call \`.item()\` once per log interval.`,
      });
    }
  },
};

// SL102: device→host copies of a tensor (`.cpu()`, `.to("cpu")`, `.tolist()`) in a hot step.
import { methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { chainHasHostCopy, hostCopy, isHostResident, isTensor } from './sync-helpers';
import type { Rule } from './types';
import { sl102Text } from './messages/sl1';

/**
 * ## What it does
 * Flags `t.cpu()`, `t.to("cpu")`, `t.to(torch.device("cpu"))` and `t.tolist()` where `t`
 * is shown to be a tensor (never a module: `model.cpu()` is not flagged). A non-blocking
 * copy (`non_blocking=True`) does not wait, so it is left to SL110. A bare `t.numpy()` is
 * not flagged: on a CUDA tensor it raises, on a CPU tensor it is free; `t.cpu().numpy()`
 * is reported once, at `.cpu()`.
 *
 * ## Why is this bad?
 * A blocking copy to the host waits for every kernel queued before it, then the GPU idles
 * until Python queues more work (`torch.cuda.set_sync_debug_mode("warn")` reports it).
 *
 * ## Example
 * ```python
 * preds.append(logits.argmax(-1).cpu())
 * ```
 *
 * ## Use instead
 * Accumulate on the device and copy once per log interval or after the loop.
 */
export const sl102: Rule = {
  code: 'SL102',
  name: 'device-to-host-copy',
  category: 'sync',
  severity: 'by-role',
  summary: 'A blocking device→host copy (`.cpu()`, `.to("cpu")`, `.tolist()`) syncs the GPU every step.',
  check({ model, report }) {
    for (const call of model.nodes.call) {
      const copy = hostCopy(model, call);
      const method = methodCall(call);
      const isToList =
        method?.name === 'tolist' && positionalArgs(call).length === 0 && isTensor(model, method.receiver);
      if (copy?.nonBlocking || (!copy && !isToList)) continue;
      const receiver = copy?.receiver ?? method!.receiver;
      if (chainHasHostCopy(model, receiver) || isHostResident(model, receiver)) continue;
      const tail = call.text.slice(receiver.text.length);
      const spelled = tail.length <= 40 ? `\`${tail}\`` : `\`.${method!.name}()\``;
      report({
        node: call,
        ...sl102Text({ model, node: call, spelled, receiver }),
      });
    }
  },
};

// SL101: `.item()` on a tensor inside a hot training step — a host–device sync every step.
import { methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { isDeviceTensor } from './sync-helpers';
import { callsToMethod } from './method-calls';
import type { Rule } from './types';
import { sl101Text } from './messages/sl1';

/**
 * `.item()` in a hot training step forces a host–device sync every step.
 *
 * ## What it does
 * Flags `tensor.item()` on a value the analysis shows is a tensor.
 * When only a loader's name suggests the value is a tensor (`for x, y in train_loader` with
 * nothing showing what `train_loader` is, and no element passed to a module, a loss or
 * `.backward()`), the finding is information at most, and its hover says why.
 *
 * ## Why is this bad?
 * `.item()` copies one value to the host, a sync reported by `set_sync_debug_mode`. A host–device
 * sync makes the CPU wait until every kernel already queued on the GPU has finished; then the GPU
 * sits idle while Python runs and launches the next kernels. CUDA work is asynchronous (PyTorch
 * docs, *CUDA semantics — Asynchronous execution*), so for a step whose kernels take milliseconds,
 * the host waits that whole queue every step and the launch latency of the next step (tens of
 * microseconds per kernel, hundreds of kernels) becomes GPU idle time.
 * `torch.cuda.set_sync_debug_mode("warn")` reports these syncs (PyTorch docs,
 * *torch.cuda.set_sync_debug_mode*; the list of ops it reports was measured with PyTorch 2.11 on
 * an H100).
 *
 * ## Example
 * ```python
 * for x, y in loader:
 *     loss = F.cross_entropy(model(x), y)
 *     loss.backward()
 *     optimizer.step()
 *     total += loss.item()
 * ```
 *
 * ## Use instead
 * ```python
 * for step, (x, y) in enumerate(loader):
 *     loss = F.cross_entropy(model(x), y)
 *     loss.backward()
 *     optimizer.step()
 *     total += loss.detach()
 *     if step % log_interval == 0:
 *         print(total.item() / log_interval)
 *         total.zero_()
 * ```
 *
 * ## Quick fix
 * None: the safe change depends on what the value is used for.
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
        tensors: [method.receiver],
        ...sl101Text({ model, node: call, receiver: method.receiver }),
      });
    }
  },
};

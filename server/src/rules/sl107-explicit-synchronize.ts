// SL107: explicit `torch.cuda.synchronize()`, `event.synchronize()`, `stream.synchronize()` in a training step.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, methodCall, positionalArgs, unwrap } from '../analysis/syntax-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Rule } from './types';
import { sl107Text } from './messages/sl1';

const DEVICE_SYNC = /^torch\.(cuda|accelerator|xpu|mps)\.synchronize$/;
const STREAM_FACTORIES = /^torch\.cuda\.(current_stream|default_stream|Stream|Event)$/;

/**
 * An explicit `synchronize()` in a training step drains the GPU queue every step.
 *
 * ## What it does
 * Flags `torch.cuda.synchronize()` (and `torch.accelerator.synchronize()`), `.synchronize()` on a
 * `torch.cuda.Event` or `torch.cuda.Stream`, and `torch.cuda.current_stream().synchronize()` in a
 * training step. A benchmark or timing loop that does not train is setup and stays silent.
 *
 * ## Why is this bad?
 * These calls block the host by definition; `set_sync_debug_mode` does not report
 * `torch.cuda.synchronize()` or `Event.synchronize()` (measured with PyTorch 2.11 on an H100), so
 * this rule does. A host–device sync makes the CPU wait until every kernel already queued on the
 * GPU has finished; then the GPU sits idle while Python runs and launches the next kernels. CUDA
 * work is asynchronous (PyTorch docs, *CUDA semantics — Asynchronous execution*), so for a step
 * whose kernels take milliseconds, the host waits that whole queue every step and the launch
 * latency of the next step (tens of microseconds per kernel, hundreds of kernels) becomes GPU idle
 * time.
 *
 * ## Example
 * ```python
 * loss.backward(); optimizer.step()
 * torch.cuda.synchronize()
 * step_ms = (time.perf_counter() - t0) * 1000
 * ```
 *
 * ## Use instead
 * ```python
 * start.record(); ...; end.record()
 * if step % log_interval == 0:
 *     end.synchronize()
 *     step_ms = start.elapsed_time(end)
 * ```
 *
 * ## Quick fix
 * None: the safe change depends on what the value is used for.
 */
export const sl107: Rule = {
  code: 'SL107',
  name: 'explicit-synchronize',
  category: 'sync',
  severity: 'by-role',
  summary: 'An explicit `synchronize()` in a training step drains the GPU queue every step.',
  check({ model, report }) {
    for (const call of model.callNames.named('synchronize')) {
      const what = synchronizeCall(model, call);
      if (!what) continue;
      report({
        node: call,
        ...sl107Text({ model, node: call, what }),
      });
    }
  },
};

function synchronizeCall(model: FileModel, call: SyntaxNode): string | undefined {
  const qualified = model.imports.resolve(fieldOf(call, 'function')!);
  if (qualified && DEVICE_SYNC.test(qualified)) return `\`${qualified}()\``;
  const method = methodCall(call);
  if (!method || method.name !== 'synchronize' || positionalArgs(call).length > 0) return undefined;
  const receiver = unwrap(method.receiver);
  const kind = model.kindOf(receiver);
  if (kind === 'event') return '`Event.synchronize()`';
  if (kind === 'stream') return '`Stream.synchronize()`';
  if (receiver.type === 'call') {
    const factory = model.imports.resolve(fieldOf(receiver, 'function')!);
    if (factory && STREAM_FACTORIES.test(factory)) return `\`${factory}(...).synchronize()\``;
  }
  return undefined;
}

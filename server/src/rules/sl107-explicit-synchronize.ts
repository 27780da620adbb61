// SL107: explicit `torch.cuda.synchronize()`, `event.synchronize()`, `stream.synchronize()` in a training step.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, methodCall, positionalArgs, unwrap } from '../analysis/syntax-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Rule } from './types';
import { sl107Text } from './messages/sl1';

const DEVICE_SYNC = /^torch\.(cuda|accelerator|xpu|mps)\.synchronize$/;
const STREAM_FACTORIES = /^torch\.cuda\.(current_stream|default_stream|Stream|Event)$/;

/**
 * ## What it does
 * Flags `torch.cuda.synchronize()` (and `torch.accelerator.synchronize()`), and
 * `.synchronize()` on a `torch.cuda.Event` or `torch.cuda.Stream` (a name constructed from
 * one in the file, or `torch.cuda.current_stream().synchronize()`), where the statement runs
 * in a training step. A benchmark loop that does not train is setup and stays silent.
 *
 * ## Why is this bad?
 * The host stops until every kernel queued on the device (or stream, or before the event)
 * has finished, so the GPU's queue drains every step. `torch.cuda.set_sync_debug_mode`
 * does not report `torch.cuda.synchronize()` or `Event.synchronize()`, so this rule does.
 *
 * ## Example
 * ```python
 * loss.backward(); optimizer.step()
 * torch.cuda.synchronize()
 * step_time = time.perf_counter() - t0
 * ```
 *
 * ## Use instead
 * Time with CUDA events read once per log interval (`start.record()`, `end.record()`,
 * then `end.synchronize()` inside the logging branch), or profile with `torch.profiler`.
 */
export const sl107: Rule = {
  code: 'SL107',
  name: 'explicit-synchronize',
  category: 'sync',
  severity: 'by-role',
  summary: 'An explicit `synchronize()` in a training step drains the GPU queue every step.',
  check({ model, report }) {
    for (const call of model.nodes.call) {
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

// SL502: fp16 autocast in a training step with no GradScaler — small gradients underflow
// to zero in float16.
import type { FileModel } from '../analysis/file-model';
import { methodCall } from '../analysis/syntax-helpers';
import { callsTo, frameworkOwnsLoop, isBackwardCall } from './distributed-helpers';
import { autocastCalls, autocastPrecision } from './pipeline-helpers';
import type { Rule } from './types';
import { sl502Text } from './messages/sl5';

/** GradScaler in every spelling, including FSDP's ShardedGradScaler. */
export const GRAD_SCALER =
  /^torch\.(cuda\.amp\.|amp\.|amp\.grad_scaler\.|cuda\.amp\.grad_scaler\.)?GradScaler$|ShardedGradScaler$/;

/**
 * ## What it does
 * Flags a float16 autocast region — `torch.autocast("cuda")` (whose default dtype is fp16),
 * `torch.autocast("cuda", dtype=torch.float16)`, `torch.cuda.amp.autocast()` — in a training
 * step of a file that calls `backward()` and never creates a `GradScaler` (nor scales a loss).
 * bf16, inference, and files where accelerate, Lightning or DeepSpeed own precision are not
 * checked.
 *
 * ## Why is this bad?
 * float16 has a 5-bit exponent: the smallest subnormal is 2⁻²⁴ ≈ 6e-8 and the smallest normal
 * 6.1e-5. Many activation gradients are smaller, so in fp16 they flush to zero and the weights
 * they feed stop learning (Micikevicius et al., "Mixed Precision Training", arXiv:1710.03740,
 * §3.2: most of a Multibox SSD's activation-gradient values lie below fp16's range, and it only
 * matched fp32 with loss scaling). `GradScaler` multiplies
 * the loss (by 65,536 at first) before backward and unscales before the step, skipping steps
 * whose gradients overflowed.
 *
 * ## Example
 * ```python
 * with torch.autocast("cuda", dtype=torch.float16):
 *     loss = model(x, y)
 * loss.backward()
 * optimizer.step()
 * ```
 *
 * ## Use instead
 * ```python
 * scaler = torch.amp.GradScaler("cuda")
 * with torch.autocast("cuda", dtype=torch.float16):
 *     loss = model(x, y)
 * scaler.scale(loss).backward()
 * scaler.step(optimizer)
 * scaler.update()
 * ```
 * or train in `dtype=torch.bfloat16`, which needs no scaler.
 */
export const sl502: Rule = {
  code: 'SL502',
  name: 'fp16-without-grad-scaler',
  category: 'pipeline',
  severity: 'warning',
  summary: 'float16 autocast in training without a GradScaler: small gradients underflow to zero.',
  check({ model, report }) {
    if (frameworkOwnsLoop(model) || /\bapex\b/.test(model.source.text) || hasScaler(model)) return;
    if (!model.nodes.call.some((call) => isBackwardCall(call) && model.roleOf(call) === 'hot')) return;
    for (const call of autocastCalls(model)) {
      if (autocastPrecision(model, call) !== 'fp16' || model.roleOf(call) !== 'hot') continue;
      report({
        node: call,
        ...sl502Text(),
      });
    }
  },
};

/** Whether the file creates a GradScaler or scales a loss through one (maybe created elsewhere). */
function hasScaler(model: FileModel): boolean {
  if (callsTo(model, GRAD_SCALER).length) return true;
  if (/GradScaler/.test(model.source.text)) return true;
  return model.nodes.call.some((call) => {
    const method = methodCall(call);
    return method?.name === 'scale' && /scaler/i.test(method.receiver.text);
  });
}

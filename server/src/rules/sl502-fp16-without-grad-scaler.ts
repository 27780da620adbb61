// SL502: fp16 autocast in a training step with no GradScaler — small gradients underflow
// to zero in float16.
import type { FileModel } from '../analysis/file-model';
import { methodCall } from '../analysis/syntax-helpers';
import { callsTo, frameworkOwnsLoop } from './distributed-helpers';
import { GRAD_SCALER } from './callee-patterns';
import { callsToMethod } from './method-calls';
import { autocastCalls, autocastPrecision } from './pipeline-helpers';
import type { Rule } from './types';
import { sl502Text } from './messages/sl5';

/**
 * float16 autocast in training without a GradScaler: small gradients underflow to zero.
 *
 * ## What it does
 * Flags a float16 autocast region in a training step — `torch.autocast("cuda",
 * dtype=torch.float16)`, `torch.autocast("cuda")` (whose default CUDA dtype is float16),
 * `torch.amp.autocast(device_type="cuda", dtype=torch.float16)`, `torch.cuda.amp.autocast()` — in
 * a file that calls `backward()` in a training step and never creates a `GradScaler` (any
 * spelling, including FSDP's `ShardedGradScaler`) or scales a loss. A dtype held in a variable
 * (nanoGPT's `ptdtype`), `enabled=` with a non-literal value, bf16, inference code, and files
 * using accelerate, Lightning, DeepSpeed or apex (which handle loss scaling) are not flagged.
 *
 * ## Why is this bad?
 * float16 has a 5-bit exponent: its smallest normal value is 2⁻¹⁴ ≈ 6.1e-5 and its smallest
 * subnormal 2⁻²⁴ ≈ 6e-8. Activation gradients are often smaller, so under fp16 autocast they flush
 * to zero during backward and the parameters they feed stop learning — silently, with a loss curve
 * that merely looks worse. Micikevicius et al., "Mixed Precision Training" (arXiv:1710.03740,
 * §3.2), show that most activation-gradient values of a Multibox SSD lie below fp16's range and
 * that the network matches fp32 only with loss scaling. `GradScaler` multiplies the loss
 * (initially by 65,536) before backward, unscales the gradients before the step, and skips steps
 * whose gradients overflowed.
 *
 * ## Example
 * ```python
 * for x, y in loader:
 *     with torch.autocast("cuda", dtype=torch.float16):
 *         loss = F.cross_entropy(model(x), y)
 *     loss.backward()
 *     optimizer.step()
 * ```
 *
 * ## Use instead
 * ```python
 * scaler = torch.amp.GradScaler("cuda")
 * for x, y in loader:
 *     with torch.autocast("cuda", dtype=torch.float16):
 *         loss = F.cross_entropy(model(x), y)
 *     scaler.scale(loss).backward()
 *     scaler.step(optimizer)
 *     scaler.update()
 * # or, on Ampere and newer, dtype=torch.bfloat16 without a scaler
 * ```
 *
 * ## Quick fix
 * None: a scaler changes three lines (backward, step, update) and its state belongs in the
 * checkpoint.
 */
export const sl502: Rule = {
  code: 'SL502',
  name: 'fp16-without-grad-scaler',
  category: 'pipeline',
  severity: 'warning',
  summary: 'float16 autocast in training without a GradScaler: small gradients underflow to zero.',
  check({ model, report }) {
    const autocasts = autocastCalls(model);
    if (!autocasts.length || frameworkOwnsLoop(model) || mentionsApex(model.source.text) || hasScaler(model))
      return;
    if (!callsToMethod(model, 'backward').some((call) => model.roleOf(call) === 'hot')) return;
    for (const call of autocasts) {
      if (autocastPrecision(model, call) !== 'fp16' || model.roleOf(call) !== 'hot') continue;
      report({
        node: call,
        ...sl502Text(),
      });
    }
  },
};

/** Whether the word `apex` appears (NVIDIA apex's amp scales the loss itself). */
function mentionsApex(text: string): boolean {
  // A plain search first: a regex led by `\b` is tried at every position of the file.
  return text.includes('apex') && /\bapex\b/.test(text);
}

/** Whether the file creates a GradScaler or scales a loss through one (maybe created elsewhere). */
function hasScaler(model: FileModel): boolean {
  if (callsTo(model, GRAD_SCALER).length) return true;
  if (model.source.text.includes('GradScaler')) return true;
  return callsToMethod(model, 'scale').some((call) => /scaler/i.test(methodCall(call)!.receiver.text));
}

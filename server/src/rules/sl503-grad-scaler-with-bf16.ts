// SL503: a GradScaler around bf16 autocast — bf16 has float32's exponent range, so loss
// scaling only adds work.
import { keywordArg } from '../analysis/syntax-helpers';
import { callsTo } from './distributed-helpers';
import { autocastCalls, autocastPrecision } from './pipeline-helpers';
import { GRAD_SCALER } from './sl502-fp16-without-grad-scaler';
import type { Rule } from './types';
import { sl503Text } from './messages/sl5';

/**
 * ## What it does
 * Flags `GradScaler(...)` (resolved, enabled unconditionally) in a file whose every autocast
 * region is `dtype=torch.bfloat16` and which never mentions float16. A scaler whose `enabled=`
 * depends on the dtype (nanoGPT: `GradScaler(enabled=(dtype == 'float16'))`) is fine.
 *
 * ## Why is this bad?
 * bfloat16 keeps float32's 8-bit exponent (smallest normal ≈ 1.2e-38), so gradients do not
 * underflow and loss scaling has nothing to fix. The scaler still multiplies the loss, unscales
 * every gradient, checks them all for inf/NaN (one extra pass over the gradients and a host
 * sync in `scaler.step`) and can skip steps. PyTorch's AMP docs: bf16 does not need gradient
 * scaling.
 *
 * ## Example
 * ```python
 * scaler = torch.amp.GradScaler("cuda")
 * with torch.autocast("cuda", dtype=torch.bfloat16):
 *     loss = model(x, y)
 * scaler.scale(loss).backward()
 * ```
 *
 * ## Use instead
 * ```python
 * with torch.autocast("cuda", dtype=torch.bfloat16):
 *     loss = model(x, y)
 * loss.backward()
 * optimizer.step()
 * ```
 */
export const sl503: Rule = {
  code: 'SL503',
  name: 'grad-scaler-with-bf16',
  category: 'pipeline',
  severity: 'information',
  summary: "A GradScaler with bf16 autocast does useless work: bf16 has float32's exponent range.",
  check({ model, report }) {
    const autocasts = autocastCalls(model);
    if (!autocasts.length || !autocasts.every((call) => autocastPrecision(model, call) === 'bf16')) return;
    if (/float16|\bhalf\b|fp16/.test(model.source.text.replace(/bfloat16/g, ''))) return;
    for (const call of callsTo(model, GRAD_SCALER)) {
      const enabled = keywordArg(call, 'enabled');
      if (enabled && enabled.text !== 'True') continue;
      report({
        node: call,
        ...sl503Text(),
      });
    }
  },
};

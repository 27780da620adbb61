// SL503: a GradScaler around bf16 autocast — bf16 has float32's exponent range, so loss
// scaling only adds work.
import { keywordArg } from '../analysis/syntax-helpers';
import { callsTo } from './distributed-helpers';
import { autocastCalls, autocastPrecision } from './pipeline-helpers';
import { GRAD_SCALER } from './callee-patterns';
import type { Rule } from './types';
import { sl503Text } from './messages/sl5';

/**
 * A GradScaler with bf16 autocast does useless work: bf16 has float32's exponent range.
 *
 * ## What it does
 * Flags `GradScaler(...)` (resolved, enabled unconditionally: no `enabled=` or `enabled=True`) in
 * a file whose every autocast region uses `dtype=torch.bfloat16` and which does not mention
 * float16 anywhere. A scaler whose `enabled=` depends on the dtype — nanoGPT's
 * `GradScaler(enabled=(dtype == 'float16'))` — is the right pattern and stays silent.
 *
 * ## Why is this bad?
 * bfloat16 keeps float32's 8-bit exponent (smallest normal ≈ 1.2e-38), so gradients do not
 * underflow and loss scaling has nothing to fix. The scaler still costs: `scaler.unscale_` /
 * `scaler.step` multiply every gradient by 1/scale and check all of them for inf/NaN (one extra
 * read and write of every gradient, 2 × 4Ψ bytes for Ψ fp32 gradients), `scaler.step` reads the
 * found-inf flag on the host (a host–device sync every step), and a spurious overflow skips an
 * optimizer step. PyTorch's AMP documentation describes gradient scaling for float16; bf16
 * training recipes (torchtitan, nanoGPT with `dtype='bfloat16'`) run without it.
 *
 * ## Example
 * ```python
 * scaler = torch.amp.GradScaler("cuda")
 * with torch.autocast("cuda", dtype=torch.bfloat16):
 *     loss = model(x, y)
 * scaler.scale(loss).backward()
 * scaler.step(optimizer)
 * scaler.update()
 * ```
 *
 * ## Use instead
 * ```python
 * with torch.autocast("cuda", dtype=torch.bfloat16):
 *     loss = model(x, y)
 * loss.backward()
 * optimizer.step()
 * # or keep one code path for both: GradScaler("cuda", enabled=(dtype == torch.float16))
 * ```
 *
 * ## Quick fix
 * None: removing the scaler also changes the backward and step lines.
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

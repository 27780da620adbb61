// SL302: `torch.utils.checkpoint.checkpoint(...)` without an explicit `use_reentrant=`:
// PyTorch warns, the default is changing, and the reentrant variant silently drops grads.
import { fieldOf, hasSplat, keywordArg } from '../analysis/syntax-helpers';
import type { Fix, Rule } from './types';
import type { SyntaxNode } from '../parse/syntax';
import { sl302Text } from './messages/sl2-sl3';

const CHECKPOINT = /^torch\.utils\.checkpoint\.(checkpoint|checkpoint_sequential)$/;

/**
 * `checkpoint(...)` without an explicit `use_reentrant=`: deprecated default, silent grad loss.
 *
 * ## What it does
 * Flags calls to `torch.utils.checkpoint.checkpoint` and `checkpoint_sequential` (under any import
 * spelling) that do not pass `use_reentrant=` explicitly. Calls with `**kwargs` are skipped.
 *
 * ## Why is this bad?
 * Since PyTorch 2.1, omitting `use_reentrant` emits a warning and the documentation says it will
 * become an error; the recommended value is `False` (PyTorch docs, `torch.utils.checkpoint`). The
 * implicit default is still the reentrant variant, which:
 * - computes no gradients for the parameters inside the checkpointed function when none of its
 *   tensor inputs requires grad (for example when the input comes from a frozen embedding):
 *   training silently stops updating those blocks;
 * - does not support `torch.autograd.grad`, keyword arguments, or tensors nested in structures.
 *
 * ## Example
 * ```python
 * x = checkpoint(block, x)
 * ```
 *
 * ## Use instead
 * ```python
 * x = checkpoint(block, x, use_reentrant=False)
 * ```
 *
 * ## Quick fix
 * Add `use_reentrant=False`.
 */
export const sl302: Rule = {
  code: 'SL302',
  name: 'checkpoint-without-use-reentrant',
  category: 'memory',
  severity: 'warning',
  summary: '`checkpoint(...)` without an explicit `use_reentrant=`: deprecated default, silent grad loss.',
  check({ model, report }) {
    for (const call of model.callNames.namedAny(['checkpoint', 'checkpoint_sequential'])) {
      const callee = fieldOf(call, 'function');
      if (!callee || !CHECKPOINT.test(model.imports.resolve(callee) ?? '')) continue;
      if (keywordArg(call, 'use_reentrant') || hasSplat(call)) continue;
      report({
        node: call,
        ...sl302Text(),
        fixes: addKeywordFix(call),
      });
    }
  },
};

/** Appends `use_reentrant=False` as the call's last argument. */
function addKeywordFix(call: SyntaxNode): Fix[] {
  const args = fieldOf(call, 'arguments');
  if (!args || args.type !== 'argument_list') return [];
  const last = [...args.children].reverse().find((c) => c.type !== 'comment');
  if (!last) return [];
  // NOTE: inserted right after the last argument, so a trailing comma stays valid after it.
  return [
    {
      title: 'Pass `use_reentrant=False`',
      edits: [{ range: { start: last.end, end: last.end }, newText: ', use_reentrant=False' }],
    },
  ];
}

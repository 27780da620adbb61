// SL302: `torch.utils.checkpoint.checkpoint(...)` without an explicit `use_reentrant=`:
// PyTorch warns, the default is changing, and the reentrant variant silently drops grads.
import { fieldOf, hasSplat, keywordArg } from '../analysis/syntax-helpers';
import type { Fix, Rule } from './types';
import type { SyntaxNode } from '../parse/syntax';
import { sl302Text } from './messages/sl2-sl3';

const CHECKPOINT = /^torch\.utils\.checkpoint\.(checkpoint|checkpoint_sequential)$/;

/**
 * ## What it does
 * Flags calls to `torch.utils.checkpoint.checkpoint` and `checkpoint_sequential` that do
 * not pass `use_reentrant=` explicitly.
 *
 * ## Why is this bad?
 * Since PyTorch 2.1 omitting it emits a warning, and the docs say it will become an error
 * (the default is moving to `use_reentrant=False`). The implicit default today is the
 * reentrant variant, which computes no gradients for the checkpointed parameters when no
 * tensor input requires grad (for example the first block fed from an embedding under a
 * frozen input), does not support `torch.autograd.grad` or keyword arguments, and ignores
 * `set_grad_enabled` inside the function.
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
 */
export const sl302: Rule = {
  code: 'SL302',
  name: 'checkpoint-without-use-reentrant',
  category: 'memory',
  severity: 'warning',
  summary: '`checkpoint(...)` without an explicit `use_reentrant=`: deprecated default, silent grad loss.',
  check({ model, report }) {
    for (const call of model.nodes.call) {
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

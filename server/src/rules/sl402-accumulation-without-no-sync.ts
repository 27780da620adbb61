// SL402: gradient accumulation on a DDP/FSDP model without `no_sync()` — the gradients are
// all-reduced after every micro-batch instead of once per optimizer step.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, isWithin, walk } from '../analysis/syntax-helpers';
import {
  containsTrainingCall,
  frameworkOwnsLoop,
  isBackwardCall,
  isOptimizerStep,
  wrapsOf,
  mentionsAttribute,
} from './distributed-helpers';
import type { Rule } from './types';
import { sl402Text } from './messages/sl4';

/** Any of these in the file means gradient sync is managed (DDP/FSDP1 `no_sync`, nanoGPT's flag, FSDP2). */
const SYNC_CONTROL = /^(no_sync|require_backward_grad_sync|set_requires_gradient_sync|set_is_last_backward)$/;

/**
 * ## What it does
 * Flags `loss.backward()` in a gradient-accumulation pattern — an inner micro-batch loop with
 * the optimizer step after it, or an optimizer step guarded by `step % accum == 0` — in a file
 * that wraps its model in `DistributedDataParallel` or FSDP and never uses `no_sync()`,
 * `require_backward_grad_sync` or `set_requires_gradient_sync`. Files using accelerate,
 * Lightning or DeepSpeed (which skip the sync themselves) are not checked.
 *
 * ## Why is this bad?
 * DDP all-reduces every gradient bucket during each backward: 2Ψ bytes per rank for Ψ
 * parameters (ZeRO paper, arXiv:1910.02054 §5). With `accum` micro-batches per step that is
 * `accum` all-reduces where one would do. For a 7B-parameter model with bf16 gradients
 * (14 GB) a ring all-reduce on 8×H100 over NVLink 4 (450 GB/s per direction, FACTS.md) takes at
 * least 2·7/8·14 GB / 450 GB/s ≈ 54 ms per micro-batch (nccl-tests' bus factor 2(n−1)/n).
 *
 * ## Example
 * ```python
 * for micro_step in range(accum_steps):
 *     loss = model(x[micro_step]).mean() / accum_steps
 *     loss.backward()
 * optimizer.step()
 * ```
 *
 * ## Use instead
 * ```python
 * for micro_step in range(accum_steps):
 *     sync = micro_step == accum_steps - 1
 *     with (contextlib.nullcontext() if sync else model.no_sync()):
 *         loss = model(x[micro_step]).mean() / accum_steps
 *         loss.backward()
 * optimizer.step()
 * ```
 */
export const sl402: Rule = {
  code: 'SL402',
  name: 'accumulation-without-no-sync',
  category: 'distributed',
  severity: 'warning',
  summary: 'Gradient accumulation on a DDP/FSDP model without `no_sync()` all-reduces every micro-batch.',
  check({ model, report }) {
    if (frameworkOwnsLoop(model) || mentionsAttribute(model, SYNC_CONTROL)) return;
    const wraps = wrapsOf(model);
    if (!wraps.length) return;
    const ddp = wraps.some((wrap) => wrap.kind === 'ddp');
    // Loop → innerMicroBatchLoop's answer: it depends on the loop only, and every backward
    // call of a loop asks it (each answer walks the whole enclosing loop).
    const microBatch = new Map<SyntaxNode, string | undefined>();
    for (const call of model.nodes.call) {
      if (!isBackwardCall(call) || model.roleOf(call) !== 'hot') continue;
      const loop = model.roles.enclosingLoop(call);
      if (!loop) continue;
      if (!microBatch.has(loop)) microBatch.set(loop, innerMicroBatchLoop(model, loop));
      const how = microBatch.get(loop) ?? guardedStep(loop, call);
      if (!how) continue;
      report({
        node: call,
        severity: ddp ? 'warning' : 'information',
        ...sl402Text({ ddp, how }),
      });
    }
  },
};

/** `loop` is a micro-batch loop: it does not step the optimizer, but its enclosing loop does, after it. */
function innerMicroBatchLoop(
  model: Parameters<Rule['check']>[0]['model'],
  loop: SyntaxNode,
): string | undefined {
  if (containsTrainingCall(fieldOf(loop, 'body') ?? loop, isOptimizerStep)) return undefined;
  const outer = model.roles.enclosingLoop(loop);
  if (!outer) return undefined;
  let stepsAfter = false;
  walk(fieldOf(outer, 'body') ?? outer, (node) => {
    if (stepsAfter || node === loop) return false;
    if (node.type === 'function_definition' || node.type === 'lambda') return false;
    if (node.type === 'call' && node.startIndex > loop.endIndex && isOptimizerStep(node)) stepsAfter = true;
  });
  return stepsAfter ? 'an inner micro-batch loop' : undefined;
}

/** `loop` steps the optimizer only under an `if ... % ...:` guard that the backward is outside of. */
function guardedStep(loop: SyntaxNode, backward: SyntaxNode): string | undefined {
  let found: string | undefined;
  walk(fieldOf(loop, 'body') ?? loop, (node) => {
    if (found) return false;
    if (
      node.type === 'function_definition' ||
      node.type === 'for_statement' ||
      node.type === 'while_statement'
    )
      return node === loop ? undefined : false;
    if (node.type !== 'if_statement') return;
    const condition = fieldOf(node, 'condition');
    const consequence = fieldOf(node, 'consequence');
    if (!condition || !consequence || isWithin(backward, node)) return;
    let modulo = false;
    walk(condition, (c) => {
      if (c.type === 'binary_operator' && c.operator === '%') modulo = true;
    });
    if (modulo && containsTrainingCall(consequence, isOptimizerStep))
      found = `\`${condition.text}\` guards the step`;
  });
  return found;
}

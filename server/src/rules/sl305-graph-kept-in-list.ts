// SL305: `history.append(loss)` across training steps keeps every step's autograd graph
// (and the activations it references) alive in the list.
import { methodCall, positionalArgs, unwrap } from '../analysis/syntax-helpers';
import { carriedAcross, carriesGraph, hotLoopOf } from './memory-helpers';
import { detachFix } from './sl304-loss-accumulated-with-graph';
import { callsToMethod } from './method-calls';
import type { Rule } from './types';
import { sl305Text } from './messages/sl2-sl3';

/**
 * Tensors with autograd graphs appended to a list across steps keep every graph alive.
 *
 * ## What it does
 * Flags `items.append(value)` inside a training loop when `items` is a local list bound before the
 * loop and never rebound inside it, and `value` is a tensor with an autograd graph created in the
 * loop (a loss, logits, any model output), not detached. Silent on values without grad
 * (`logits.argmax(-1)`, comparisons, `.item()`), on lists rebuilt every step (micro-batch losses
 * stacked for one backward), in eval loops and under `torch.no_grad()`. Attribute lists
 * (`self.outputs.append(...)`, the Lightning hook pattern) are not checked.
 *
 * ## Why is this bad?
 * Each appended tensor keeps its whole graph reachable. Before `backward()` that graph holds all
 * saved activations of the step; afterwards the graph nodes and the tensor itself remain. Memory
 * grows every step until out-of-memory (PyTorch FAQ, "Don't accumulate history across your
 * training loop").
 *
 * ## Example
 * ```python
 * losses = []
 * for x, y in loader:
 *     loss = F.cross_entropy(model(x), y)
 *     loss.backward()
 *     optimizer.step()
 *     losses.append(loss)
 * ```
 *
 * ## Use instead
 * ```python
 *     losses.append(loss.detach())         # or loss.detach().cpu() to keep it off the GPU
 * ```
 *
 * ## Quick fix
 * Append `value.detach()`.
 */
export const sl305: Rule = {
  code: 'SL305',
  name: 'graph-kept-in-list',
  category: 'memory',
  severity: 'by-role',
  summary: 'Tensors with autograd graphs appended to a list across steps keep every graph alive.',
  check({ model, report }) {
    for (const call of callsToMethod(model, 'append')) {
      const method = methodCall(call)!;
      const args = positionalArgs(call);
      if (args.length !== 1) continue;
      const list = unwrap(method.receiver);
      if (list.type !== 'identifier') continue;
      const role = model.roleOf(call);
      if (role !== 'hot' && role !== 'logging') continue;
      const loop = hotLoopOf(model, call);
      if (!loop || !carriesGraph(model, args[0], loop)) continue;
      if (!carriedAcross({ model, name: list.text, use: call, loop, allowed: () => false })) continue;
      const value = args[0].text.length <= 40 ? args[0].text : 'the tensor';
      report({
        node: call,
        ...sl305Text({ list: list.text, value }),
        fixes: detachFix(model, args[0]),
      });
    }
  },
};

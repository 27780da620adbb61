// SL406: `dist.barrier()`, object collectives, or an all-reduce of a logged scalar on every
// training step — a blocking round trip across all ranks each step.
import type { SyntaxNode } from '../parse/syntax';
import { keywordArg, positionalArgs, unwrap } from '../analysis/syntax-helpers';
import { calleeNames } from './distributed-helpers';
import type { Rule } from './types';
import { sl406BarrierText, sl406ObjectText, sl406ScalarText } from './messages/sl4';

const BLOCKING =
  /^torch\.distributed\.(barrier|all_gather_object|broadcast_object_list|gather_object|scatter_object_list|monitored_barrier)$/;
const REDUCE = /^torch\.distributed\.(all_reduce|reduce)$/;
/** Names of tensors that hold a scalar metric (the usual all-reduce-for-logging targets). */
const SCALAR_NAME =
  /(^|_)(loss|losses|acc|accuracy|correct|total|count|metric|metrics|num_tokens|ntokens|tokens_seen|perplexity|ppl)(_|$)/i;

/**
 * ## What it does
 * Flags `dist.barrier()`, `all_gather_object`, `broadcast_object_list`, `gather_object`,
 * `scatter_object_list`, and `dist.all_reduce` / `dist.reduce` of a scalar metric (a tensor
 * named like a loss, accuracy or token count, or built with `torch.tensor(...)`) where the
 * statement runs every training step. Severity follows the role: a warning in the step, an
 * information under a logging guard, a hint in evaluation; a scalar all-reduce is reported
 * only in the step itself (reducing once per log interval is the fix).
 *
 * ## Why is this bad?
 * A barrier with NCCL is an all-reduce plus a wait: every rank stops until the slowest one
 * arrives, and the host blocks on the GPU. Object collectives pickle on the host, copy to the
 * GPU and back, and run two collectives (sizes, then data), each blocking the host. A scalar
 * all-reduce is pure latency — tens of µs within a node, more across nodes (nccl-tests'
 * small-message latency) — and is almost always followed by `.item()`, a host sync. Per step
 * these turn the slowest rank's jitter into everyone's step time.
 *
 * ## Example
 * ```python
 * loss.backward()
 * optimizer.step()
 * dist.all_reduce(loss, op=dist.ReduceOp.AVG)
 * dist.barrier()
 * ```
 *
 * ## Use instead
 * Accumulate the metric on the device and reduce it once per log interval; drop per-step
 * barriers (collectives already keep ranks in step).
 * ```python
 * running += loss.detach()
 * if step % log_every == 0:
 *     dist.all_reduce(running, op=dist.ReduceOp.AVG)
 * ```
 */
export const sl406: Rule = {
  code: 'SL406',
  name: 'collective-in-hot-loop',
  category: 'distributed',
  severity: 'by-role',
  summary: 'A barrier, object collective or scalar all-reduce on every training step stalls all ranks.',
  check({ model, report }) {
    const names = calleeNames(model);
    for (const [i, call] of model.nodes.call.entries()) {
      const qualified = names[i];
      const name = qualified.slice('torch.distributed.'.length);
      if (BLOCKING.test(qualified)) {
        const when = model.roleOf(call) === 'hot' ? 'on every training step' : 'once per log interval';
        report({
          node: call,
          ...(name === 'barrier' || name === 'monitored_barrier'
            ? sl406BarrierText({ when })
            : sl406ObjectText({ name, when })),
        });
      } else if (REDUCE.test(qualified)) {
        const tensor = positionalArgs(call)[0] ?? keywordArg(call, 'tensor');
        // Reducing an accumulated metric once per log interval is the recommended pattern: only the
        // every-step reduction is reported.
        if (!tensor || !isScalarMetric(tensor) || model.roleOf(call) !== 'hot') continue;
        report({
          node: call,
          ...sl406ScalarText({ name, tensor: tensor.text }),
        });
      }
    }
  },
};

function isScalarMetric(tensor: SyntaxNode): boolean {
  const target = unwrap(tensor);
  if (target.type === 'call') return /^torch\.tensor\(|^torch\.as_tensor\(/.test(target.text);
  const name = target.type === 'attribute' ? target.text.split('.').pop()! : target.text;
  return target.type === 'identifier' || target.type === 'attribute' ? SCALAR_NAME.test(name) : false;
}

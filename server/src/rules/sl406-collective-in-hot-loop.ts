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
 * A barrier, object collective or scalar all-reduce on every training step stalls all ranks.
 *
 * ## What it does
 * Flags `dist.barrier()`, `dist.monitored_barrier()`, `all_gather_object`,
 * `broadcast_object_list`, `gather_object`, `scatter_object_list` (resolved under
 * `torch.distributed`), and `dist.all_reduce` / `dist.reduce` of a scalar metric (a tensor named
 * like a loss, accuracy, count or token total, or built with `torch.tensor(...)`) where the
 * statement runs every training step. Severity follows the role: warning in the step, information
 * under a logging guard (`if step % log_every == 0:` or rank-0), hint in evaluation, nothing in
 * setup. A scalar all-reduce under a logging guard is the recommended pattern and is not reported.
 *
 * ## Why is this bad?
 * With NCCL, `barrier()` is an all-reduce of a one-element tensor followed by a device
 * synchronisation: the host blocks until the GPU's queue drains, and every rank waits for the
 * slowest, so each rank's per-step jitter (data loading, GC pauses, thermal throttling) becomes
 * everyone's step time — the opposite of the overlap DDP's bucketed all-reduce is built for.
 * Object collectives pickle on the host, copy the bytes to the GPU, run two collectives (sizes,
 * then payload) and copy back: two blocking round trips per call. A scalar all-reduce moves 4
 * bytes, so it is pure latency — nccl-tests shows small-message all-reduce latency of tens of µs
 * inside a node and more across nodes — and it is almost always followed by `.item()`, a host sync
 * (SL101). Per step, on a step of 100–300 ms this is small; the cost is the host sync and rank
 * lock-step it forces every step.
 *
 * ## Example
 * ```python
 * for step, (x, y) in enumerate(loader):
 *     loss = F.cross_entropy(model(x), y)
 *     loss.backward()
 *     optimizer.step()
 *     dist.all_reduce(loss, op=dist.ReduceOp.AVG)
 *     dist.barrier()
 * ```
 *
 * ## Use instead
 * ```python
 * running = torch.zeros((), device=device)
 * for step, (x, y) in enumerate(loader):
 *     loss = F.cross_entropy(model(x), y)
 *     loss.backward()
 *     optimizer.step()
 *     running += loss.detach()
 *     if step % log_every == 0:
 *         dist.all_reduce(running, op=dist.ReduceOp.AVG)
 *         if rank == 0:
 *             print(running.item() / log_every)
 *         running.zero_()
 * ```
 *
 * ## Quick fix
 * None: where the metric should be accumulated depends on the script.
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

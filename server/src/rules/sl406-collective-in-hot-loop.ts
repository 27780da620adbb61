// SL406: `dist.barrier()`, object collectives, or an all-reduce whose result the host reads,
// on every training step — a blocking round trip across all ranks each step.
import { firstPositionalArg, keywordArg, mergeInDocumentOrder, unwrap } from '../analysis/syntax-helpers';
import { calleeName, callsTo } from './distributed-helpers';
import { BLOCKING_COLLECTIVE, REDUCE_COLLECTIVE } from './callee-patterns';
import { firstHostReadAfter } from './host-reads';
import type { Rule } from './types';
import { sl406BarrierText, sl406ObjectText, sl406ScalarText } from './messages/sl4';

/**
 * A barrier, object collective or scalar all-reduce on every training step stalls all ranks.
 *
 * ## What it does
 * Flags `dist.barrier()`, `dist.monitored_barrier()`, `all_gather_object`,
 * `broadcast_object_list`, `gather_object`, `scatter_object_list` (resolved under
 * `torch.distributed`), and `dist.all_reduce` / `dist.reduce` of a tensor that the host then
 * reads (`.item()`, `float()`, a truth test, printing) where both run every training step. A
 * reduction whose result stays on the device (it scales gradients, or feeds
 * `torch._assert_async`) costs no host sync and is not reported. Severity follows the role: warning in the step, information
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
    const blocking = new Set(callsTo(model, BLOCKING_COLLECTIVE));
    for (const call of mergeInDocumentOrder([[...blocking], callsTo(model, REDUCE_COLLECTIVE)])) {
      const name = calleeName(model, call)!.slice('torch.distributed.'.length);
      if (blocking.has(call)) {
        const when = model.roleOf(call) === 'hot' ? 'on every training step' : 'once per log interval';
        report({
          node: call,
          ...(name === 'barrier' || name === 'monitored_barrier'
            ? sl406BarrierText({ when })
            : sl406ObjectText({ name, when })),
        });
      } else {
        const tensor = firstPositionalArg(call) ?? keywordArg(call, 'tensor');
        // Reducing an accumulated metric once per log interval is the recommended pattern: only the
        // every-step reduction is reported, and only where the host then reads the result (a
        // reduction that feeds device code, such as `torch._assert_async`, costs no host sync).
        if (!tensor || model.roleOf(call) !== 'hot') continue;
        const target = unwrap(tensor);
        if (target.type !== 'identifier' && target.type !== 'attribute') continue;
        const read = firstHostReadAfter({ model, after: call, name: target.text });
        if (!read || model.roleOf(read) !== 'hot') continue;
        report({
          node: call,
          ...sl406ScalarText({ name, tensor: tensor.text, readLine: read.start.line + 1 }),
        });
      }
    }
  },
};

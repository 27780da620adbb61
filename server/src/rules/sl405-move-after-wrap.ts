// SL405: a model moved to a device after it was wrapped in DDP/FSDP — the wrapper was built
// around parameters on the old device.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import { assignmentsTo } from '../analysis/assignment-index';
import { enclosingStatement, fieldOf, keywordArg, positionalArgs } from '../analysis/syntax-helpers';
import { followsInFlow, wrapsOf, type Wrap } from './distributed-helpers';
import type { Rule } from './types';
import { sl405Text } from './messages/sl4';

const MOVES = new Set(['to', 'cuda']);

/**
 * ## What it does
 * Flags `model.to(device)` / `model.cuda()` on a model (or the module inside it) after the
 * same flow wrapped it in `DistributedDataParallel` or `FullyShardedDataParallel`.
 *
 * ## Why is this bad?
 * DDP's constructor broadcasts rank 0's parameters and builds its gradient buckets and the
 * reducer on the device the parameters are on; with `device_ids=[rank]` it expects them there
 * already. Moving the module afterwards leaves the reducer pointing at the old storage: the
 * run fails with a device mismatch or silently syncs copies on the wrong device. FSDP shards
 * and flattens parameters at construction, so moving after wrapping moves the shards through
 * the host; pass `device_id=` so it initialises directly on the GPU.
 *
 * ## Example
 * ```python
 * model = DDP(model, device_ids=[local_rank])
 * model.to(local_rank)
 * ```
 *
 * ## Use instead
 * ```python
 * model = DDP(model.to(local_rank), device_ids=[local_rank])
 * model = FSDP(model, device_id=torch.cuda.current_device())
 * ```
 */
export const sl405: Rule = {
  code: 'SL405',
  name: 'move-after-wrap',
  category: 'distributed',
  severity: 'warning',
  summary: 'Moving a model to a device after wrapping it in DDP/FSDP; move first, then wrap.',
  check({ model, report }) {
    const wraps = wrapsOf(model);
    if (!wraps.length) return;
    for (const call of model.nodes.call) {
      const callee = fieldOf(call, 'function');
      if (callee?.type !== 'attribute' || !MOVES.has(fieldOf(callee, 'attribute')?.text ?? '')) continue;
      const receiver = fieldOf(callee, 'object');
      if (!receiver || (receiver.type !== 'identifier' && receiver.type !== 'attribute')) continue;
      if (!movesToAccelerator(model, call)) continue;
      const wrap = wraps.find((w) => movesWrapped(model, w, receiver.text, call));
      if (!wrap) continue;
      report({
        node: call,
        ...sl405Text({ receiver: receiver.text, kind: wrap.kind, wrapLine: wrap.call.start.line + 1 }),
      });
    }
  },
};

/** A device move, not a dtype cast or a move back to the host (`model.to("cpu")` before saving is fine). */
function movesToAccelerator(model: FileModel, call: SyntaxNode): boolean {
  const args = fieldOf(call, 'arguments');
  if (!args || /cpu|meta/.test(args.text)) return false;
  const first = positionalArgs(call)[0];
  if (!first)
    return fieldOf(fieldOf(call, 'function')!, 'attribute')?.text === 'cuda' || !!keywordArg(call, 'device');
  return !/^torch\.(float|half|bfloat|double|int|uint|bool|complex)/.test(model.imports.resolve(first) ?? '');
}

/** Whether `name` is the wrapped model or its inner module and the move follows the wrap without a rebinding. */
function movesWrapped(model: FileModel, wrap: Wrap, name: string, move: SyntaxNode): boolean {
  if (wrap.target?.text !== name && wrap.inner?.text !== name) return false;
  const wrapStatement = enclosingStatement(wrap.call);
  const moveStatement = enclosingStatement(move);
  if (wrapStatement === moveStatement || !followsInFlow(wrapStatement, moveStatement)) return false;
  // A rebinding in between (`model = model.module`, `model = build()`) ends the wrapped value's life.
  // Only assignments whose left side is `name` can rebind it: the index lists exactly those.
  return !assignmentsTo(model, name).some((assignment) => {
    if (assignment.startIndex <= wrap.call.endIndex || assignment.endIndex >= move.endIndex) return false;
    return wrap.target?.text !== name || fieldOf(assignment, 'right') !== wrap.call;
  });
}

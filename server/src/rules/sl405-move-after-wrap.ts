// SL405: a model moved to a device after it was wrapped in DDP/FSDP — the wrapper was built
// around parameters on the old device.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import { assignmentsTo } from '../analysis/assignment-index';
import { perModel } from '../analysis/per-model';
import { enclosingStatement, fieldOf, firstPositionalArg, keywordArg } from '../analysis/syntax-helpers';
import { followsInFlow, wrapsOf, type Wrap } from './distributed-helpers';
import type { Rule } from './types';
import { sl405Text } from './messages/sl4';

const MOVES = new Set(['to', 'cuda']);

/**
 * Moving a model to a device after wrapping it in DDP/FSDP; move first, then wrap.
 *
 * ## What it does
 * Flags `model.to(device)` / `model.cuda()` (a device move: not `to("cpu")`, not a dtype cast like
 * `to(torch.bfloat16)`) on a model, or on the module passed into it, after the same straight-line
 * flow wrapped it in `DistributedDataParallel` or `FullyShardedDataParallel` (resolved names).
 * Moves in a sibling branch (`if distributed: DDP(...) else: model.cuda()`) or after the name was
 * rebound stay silent.
 *
 * ## Why is this bad?
 * DDP's constructor verifies that the module's parameters are on the devices given by
 * `device_ids`, broadcasts rank 0's state from where the parameters are, and builds its `Reducer`
 * — gradient buckets and autograd hooks — for those parameters on that device. Moving the module
 * afterwards leaves the reducer's buckets on the old device: the first backward fails with a
 * device mismatch, or gradients are synchronised through the wrong copies. The DDP docs say to
 * move the module to its device *before* wrapping. FSDP flattens and shards parameters at
 * construction; moving after wrapping moves each shard through the host and, with CPU-initialised
 * models, runs the sharding on the CPU: pass `device_id=torch.cuda.current_device()` so FSDP moves
 * each unit to the GPU as it wraps it.
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
 * # FSDP: let the wrapper move each unit as it shards it
 * model = FSDP(model, device_id=torch.cuda.current_device())
 * ```
 *
 * ## Quick fix
 * None: the move has to go before the wrap, which may be several lines earlier.
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
    for (const call of model.callNames.namedAny(MOVES)) {
      const callee = fieldOf(call, 'function');
      if (callee?.type !== 'attribute' || !MOVES.has(fieldOf(callee, 'attribute')?.text ?? '')) continue;
      const receiver = fieldOf(callee, 'object');
      if (!receiver || (receiver.type !== 'identifier' && receiver.type !== 'attribute')) continue;
      if (!movesToAccelerator(model, call)) continue;
      const name = receiver.text;
      const wrap = wrapsNaming(model)
        .get(name)
        ?.find((w) => movesWrapped(model, w, name, call));
      if (!wrap) continue;
      report({
        node: call,
        ...sl405Text({ receiver: receiver.text, kind: wrap.kind, wrapLine: wrap.call.start.line + 1 }),
      });
    }
  },
};

/**
 * Per model: a name → the wraps whose target or inner module is spelled that way, in the
 * order of `wrapsOf` (each device move looks up its receiver instead of reading every wrap).
 */
const wrapsNaming = perModel((model) => {
  const byName = new Map<string, Wrap[]>();
  for (const wrap of wrapsOf(model)) {
    const names = new Set([wrap.target?.text, wrap.inner?.text]);
    for (const name of names) {
      if (name === undefined) continue;
      const list = byName.get(name);
      if (list) list.push(wrap);
      else byName.set(name, [wrap]);
    }
  }
  return byName;
});

/** A device move, not a dtype cast or a move back to the host (`model.to("cpu")` before saving is fine). */
function movesToAccelerator(model: FileModel, call: SyntaxNode): boolean {
  const args = fieldOf(call, 'arguments');
  if (!args || /cpu|meta/.test(args.text)) return false;
  const first = firstPositionalArg(call);
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

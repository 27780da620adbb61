// SL109: host→device batch copies that cannot overlap: `non_blocking=True` from a DataLoader
// without `pin_memory=True`, or a blocking `.to(device)` of a batch from a pinned loader.
import type { SyntaxNode } from '../parse/syntax';
import { keywordArg, methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { isNonBlocking, isTensor, toDeviceArgument, isCpuDevice } from './sync-helpers';
import { batchLoader, insertArgumentEdit, type LoaderFacts } from './loader-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Fix, Rule } from './types';
import { sl109BlockingText, sl109UnpinnedText } from './messages/sl1';

/**
 * ## What it does
 * Flags `batch.to(device, non_blocking=True)` / `.cuda(non_blocking=True)` when the batch comes
 * from a `DataLoader(...)` built in the file without `pin_memory=True` and no `.pin_memory()`
 * is in the chain, and `batch.to(device)` without `non_blocking=True` when that loader has
 * `pin_memory=True`. Nothing is flagged where the loader's construction is not visible (a
 * parameter, `accelerator.prepare`, `deepspeed.initialize`) or `pin_memory` is not a literal.
 *
 * ## Why is this bad?
 * From pageable memory the driver stages the copy through a pinned buffer and may wait on
 * the stream first (CUDA Runtime API, "API synchronization behavior"), so `non_blocking=True`
 * buys nothing. From pinned memory a blocking copy still waits for the queued kernels; with
 * `non_blocking=True` it overlaps them (PyTorch tutorial "A guide on good usage of
 * non_blocking and pin_memory()").
 *
 * ## Example
 * ```python
 * loader = DataLoader(ds, batch_size=64, pin_memory=True)
 * for x, y in loader:
 *     x, y = x.to(device), y.to(device)
 * ```
 *
 * ## Use instead
 * `x.to(device, non_blocking=True)` from a loader with `pin_memory=True`.
 */
export const sl109: Rule = {
  code: 'SL109',
  name: 'host-to-device-copy',
  category: 'sync',
  severity: 'by-role',
  summary:
    'A batch copy to the GPU that cannot overlap compute (unpinned `non_blocking`, or pinned but blocking).',
  check({ model, report }) {
    for (const call of model.nodes.call) {
      const copy = deviceCopy(model, call);
      if (!copy) continue;
      const loader = batchLoader(model, copy.receiver);
      if (!loader || loader.pinned === undefined) continue;
      if (copy.nonBlocking && !loader.pinned && !copy.pinnedInChain) {
        report({
          node: call,
          ...sl109UnpinnedText({ model, node: call, loader: loader.name }),
          fixes: [pinFix(loader)],
        });
      } else if (!copy.nonBlocking && loader.pinned) {
        report({
          node: call,
          ...sl109BlockingText({ model, node: call, loader: loader.name }),
          fixes: [
            { title: 'Add `non_blocking=True`', edits: [insertArgumentEdit(call, 'non_blocking=True')] },
          ],
        });
      }
    }
  },
};

/** `x.to(<not cpu>)` / `x.cuda()` on a tensor. */
function deviceCopy(
  model: FileModel,
  call: SyntaxNode,
): { receiver: SyntaxNode; nonBlocking: boolean; pinnedInChain: boolean } | undefined {
  const method = methodCall(call);
  if (!method || !isTensor(model, method.receiver)) return undefined;
  if (method.name === 'to') {
    const target = toDeviceArgument(call);
    if (
      !target ||
      isCpuDevice(model, target) ||
      /dtype|torch\.(float|half|bfloat|int|long|bool)/.test(target.text)
    )
      return undefined;
    if (positionalArgs(call).length > 1 && !keywordArg(call, 'non_blocking')) return undefined;
  } else if (method.name !== 'cuda') return undefined;
  const pinnedInChain = /\.pin_memory\(\)/.test(method.receiver.text);
  return { receiver: method.receiver, nonBlocking: isNonBlocking(call), pinnedInChain };
}

function pinFix(loader: LoaderFacts): Fix {
  const existing = keywordArg(loader.call, 'pin_memory');
  const edit = existing
    ? { range: { start: existing.start, end: existing.end }, newText: 'True' }
    : insertArgumentEdit(loader.call, 'pin_memory=True');
  return { title: `Pass \`pin_memory=True\` to \`${loader.name}\``, edits: [edit] };
}

// SL109: host→device batch copies that cannot overlap: `non_blocking=True` from a DataLoader
// without `pin_memory=True`, or a blocking `.to(device)` of a batch from a pinned loader.
import type { SyntaxNode } from '../parse/syntax';
import { keywordArg, mergeInDocumentOrder, methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { callsToMethod } from './method-calls';
import { isNonBlocking, isTensor, toDeviceArgument, isCpuDevice } from './sync-helpers';
import { batchLoader, insertArgumentEdit, type LoaderFacts } from './loader-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Fix, Rule } from './types';
import { sl109BlockingText, sl109UnpinnedText } from './messages/sl1';

/**
 * A batch copy to the GPU that cannot overlap compute (unpinned `non_blocking`, or pinned but
 * blocking).
 *
 * ## What it does
 * Flags host→device batch copies that cannot overlap compute, only where the loader is built in
 * the same file: `batch.to(device, non_blocking=True)` / `.cuda(non_blocking=True)` from a
 * `DataLoader(...)` without `pin_memory=True` (and no `.pin_memory()` in the chain), and
 * `batch.to(device)` without `non_blocking=True` from a loader with `pin_memory=True`. A loader
 * that arrives as a parameter counts when the file's own calls of that function pass it one
 * built there (`train(model, train_loader)`), all with the same pinning. Loaders passed in from
 * elsewhere, prepared by `accelerator.prepare` or `deepspeed.initialize`, or with a non-literal
 * `pin_memory` (other than an argparse option with a default) are left alone.
 *
 * ## Why is this bad?
 * From pageable memory the driver stages the copy through a pinned buffer and "may synchronize
 * with the stream" (CUDA Runtime API, *API synchronization behavior*), so `non_blocking=True` buys
 * nothing; a blocking `.to("cuda")` is a sync `set_sync_debug_mode` reports. From pinned memory
 * with `non_blocking=True` the copy overlaps the queued kernels (PyTorch tutorial *A guide on good
 * usage of non_blocking and pin_memory()*). A host–device sync makes the CPU wait until every
 * kernel already queued on the GPU has finished; then the GPU sits idle while Python runs and
 * launches the next kernels. CUDA work is asynchronous (PyTorch docs, *CUDA semantics —
 * Asynchronous execution*), so for a step whose kernels take milliseconds, the host waits that
 * whole queue every step and the launch latency of the next step (tens of microseconds per kernel,
 * hundreds of kernels) becomes GPU idle time. `torch.cuda.set_sync_debug_mode("warn")` reports
 * these syncs (PyTorch docs, *torch.cuda.set_sync_debug_mode*; the list of ops it reports was
 * measured with PyTorch 2.11 on an H100).
 *
 * ## Example
 * ```python
 * loader = DataLoader(ds, batch_size=64, pin_memory=True)
 * for x, y in loader:
 *     x, y = x.to(device), y.to(device)
 * ```
 *
 * ## Use instead
 * ```python
 * for x, y in loader:
 *     x = x.to(device, non_blocking=True)
 *     y = y.to(device, non_blocking=True)
 * ```
 *
 * ## Quick fix
 * Adds `non_blocking=True` to a blocking copy from a pinned loader (safe: the loader allocates a
 * fresh pinned buffer per batch and stream order keeps later kernels after the copy), or
 * `pin_memory=True` to the DataLoader.
 */
export const sl109: Rule = {
  code: 'SL109',
  name: 'host-to-device-copy',
  category: 'sync',
  severity: 'by-role',
  summary:
    'A batch copy to the GPU that cannot overlap compute (unpinned `non_blocking`, or pinned but blocking).',
  check({ model, report }) {
    // Only `.to(...)` and `.cuda()` calls copy to the device (`deviceCopy`): found among the
    // file's method calls, in document order.
    for (const call of mergeInDocumentOrder([callsToMethod(model, 'to'), callsToMethod(model, 'cuda')])) {
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
  if (!method || (method.name !== 'to' && method.name !== 'cuda') || !isTensor(model, method.receiver))
    return undefined;
  if (method.name === 'to') {
    const target = toDeviceArgument(call);
    if (
      !target ||
      isCpuDevice(model, target) ||
      /dtype|torch\.(float|half|bfloat|int|long|bool)/.test(target.text)
    )
      return undefined;
    if (positionalArgs(call).length > 1 && !keywordArg(call, 'non_blocking')) return undefined;
  }
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

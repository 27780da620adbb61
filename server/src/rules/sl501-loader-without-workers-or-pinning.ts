// SL501: a DataLoader feeding a CUDA device from the main process or from pageable memory.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, hasSplat, keywordArg, positionalArgs } from '../analysis/syntax-helpers';
import { callsTo, frameworkOwnsLoader } from './distributed-helpers';
import { DATA_LOADER } from './callee-patterns';
import { loopsOverLoader, movesBatchToCuda } from './pipeline-helpers';
import type { Fix, Rule } from './types';
import { sl501Text } from './messages/sl5';

/**
 * A DataLoader feeding a GPU with `num_workers=0` or without `pin_memory=True`.
 *
 * ## What it does
 * Flags a `torch.utils.data.DataLoader` assigned to a name that a training loop iterates and whose
 * batches the loop moves to CUDA (`.cuda()`, or `.to(device)` where `device` is a `"cuda…"`
 * string, a name assigned one, or a local rank in a CUDA/NCCL script) when `num_workers` is
 * missing or literally 0, or `pin_memory` is missing or literally `False`. A variable passed for
 * either counts as configured. Loaders on CPU-only scripts, loaders whose batches never reach the
 * GPU, and files using accelerate or Lightning are not flagged.
 *
 * ## Why is this bad?
 * With `num_workers=0` the training process itself reads, decodes, augments and collates every
 * batch, in series with the GPU: the GPU idles for the whole loading time of each step instead of
 * the workers preparing the next batches in parallel. Without `pin_memory=True` batches live in
 * pageable host memory: the CUDA driver copies them through a pinned staging buffer, which is
 * slower than a direct DMA from page-locked memory (CUDA C++ Best Practices Guide, "Pinned
 * Memory": pinned memory gives the highest host–device bandwidth), and `.to(device,
 * non_blocking=True)` from pageable memory is synchronous, so the copy cannot overlap with compute
 * (PyTorch tutorial "A guide on good usage of non_blocking and pin_memory()"). On an 8×H100 node
 * with a CPU-bound image pipeline, starving the GPUs is the common failure: 989 dense bf16 TFLOP/s
 * per GPU (NVIDIA H100 Tensor Core GPU data sheet, SXM) finish a ResNet-50 step long before one
 * Python process decodes 256 JPEGs.
 *
 * ## Example
 * ```python
 * loader = DataLoader(dataset, batch_size=256, shuffle=True)
 * for x, y in loader:
 *     x, y = x.to(device), y.to(device)
 * ```
 *
 * ## Use instead
 * ```python
 * loader = DataLoader(dataset, batch_size=256, shuffle=True,
 *                     num_workers=8, pin_memory=True, persistent_workers=True)
 * for x, y in loader:
 *     x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
 * ```
 *
 * ## Quick fix
 * When `pin_memory` is missing, adds `pin_memory=True` (always safe). The number of workers
 * depends on the machine's cores per GPU, so the message explains it and the fix does not guess
 * it.
 */
export const sl501: Rule = {
  code: 'SL501',
  name: 'loader-without-workers-or-pinning',
  category: 'pipeline',
  severity: 'information',
  summary: 'A DataLoader feeding a GPU with `num_workers=0` or without `pin_memory=True`.',
  check({ model, report }) {
    if (frameworkOwnsLoader(model)) return;
    const fedLoaders = new Set(
      loopsOverLoader(model)
        .filter((entry) => entry.hot && movesBatchToCuda(model, entry))
        .map((entry) => entry.loader),
    );
    if (!fedLoaders.size) return;
    for (const call of callsTo(model, DATA_LOADER)) {
      const parent = call.parent;
      const name =
        parent?.type === 'assignment' && fieldOf(parent, 'right') === call
          ? fieldOf(parent, 'left')?.text
          : undefined;
      if (!name || !fedLoaders.has(name) || hasSplat(call) || positionalArgs(call).length > 5) continue;
      const workers = keywordArg(call, 'num_workers');
      const pin = keywordArg(call, 'pin_memory');
      const noWorkers = !workers || workers.text === '0';
      const noPin = !pin || pin.text === 'False';
      if (!noWorkers && !noPin) continue;
      const fixes: Fix[] = [];
      const fix = pin ? undefined : addKeyword(call, 'pin_memory=True');
      if (fix) fixes.push(fix);
      report({
        node: call,
        ...sl501Text({ noWorkers, noPin }),
        fixes,
      });
    }
  },
};

/** Appends `keyword` after the call's last argument (a trailing comma stays valid). */
function addKeyword(call: SyntaxNode, keyword: string): Fix | undefined {
  const args = fieldOf(call, 'arguments');
  const items = args?.children.filter((c) => c.type !== 'comment') ?? [];
  const last = items[items.length - 1];
  if (!last) return undefined;
  return {
    title: `Add \`${keyword}\``,
    edits: [{ range: { start: last.end, end: last.end }, newText: `, ${keyword}` }],
  };
}

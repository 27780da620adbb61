// SL501: a DataLoader feeding a CUDA device from the main process or from pageable memory.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, hasSplat, keywordArg, positionalArgs } from '../analysis/syntax-helpers';
import { callsTo, frameworkOwnsLoop } from './distributed-helpers';
import { loopsOverLoader, movesBatchToCuda } from './pipeline-helpers';
import type { Fix, Rule } from './types';
import { sl501Text } from './messages/sl5';

const DATA_LOADER = /^torch\.utils\.data\.(dataloader\.)?DataLoader$/;

/**
 * ## What it does
 * Flags a `DataLoader` (resolved) whose batches a training loop moves to a CUDA device
 * (`.cuda()`, `.to(device)` with a CUDA device) when it leaves `num_workers` at 0 or
 * `pin_memory` off (literally: a variable passed for either counts as configured).
 *
 * ## Why is this bad?
 * With `num_workers=0` the training process itself loads, decodes and collates every batch
 * while the GPU waits: loading and compute run in series instead of overlapping. Without
 * `pin_memory=True` the host-to-device copy goes from pageable memory through a staging
 * buffer at a fraction of PCIe bandwidth, and `.to(device, non_blocking=True)` from pageable
 * memory is synchronous (CUDA C Programming Guide, "Page-Locked Host Memory"; PyTorch
 * "A guide on good usage of non_blocking and pin_memory()").
 *
 * ## Example
 * ```python
 * loader = DataLoader(dataset, batch_size=64, shuffle=True)
 * for x, y in loader:
 *     x, y = x.to(device), y.to(device)
 * ```
 *
 * ## Use instead
 * ```python
 * loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4, pin_memory=True,
 *                     persistent_workers=True)
 * for x, y in loader:
 *     x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
 * ```
 */
export const sl501: Rule = {
  code: 'SL501',
  name: 'loader-without-workers-or-pinning',
  category: 'pipeline',
  severity: 'information',
  summary: 'A DataLoader feeding a GPU with `num_workers=0` or without `pin_memory=True`.',
  check({ model, report }) {
    if (frameworkOwnsLoop(model)) return;
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

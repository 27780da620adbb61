// SL404: a DDP/FSDP script whose training DataLoader has no sampler — every rank trains on
// the whole dataset, in the same order when seeds match.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import { fieldOf, hasSplat, keywordArg, positionalArgs } from '../analysis/syntax-helpers';
import { assignmentsTo } from '../analysis/assignment-index';
import { callsTo, frameworkOwnsLoop, initsProcessGroup, wrapsOf } from './distributed-helpers';
import { DATA_LOADER } from './callee-patterns';
import { loopsOverLoader } from './pipeline-helpers';
import type { Rule } from './types';
import { sl404Text } from './messages/sl4';

/** Dataset expressions that shard by rank themselves or are iterable (no sampler applies). */
const SELF_SHARDED =
  /rank|shard|split_dataset_by_node|world_size|num_replicas|Iterable|streaming|wds\.|webdataset/i;

/**
 * A DDP training DataLoader without a DistributedSampler makes every rank train on the full
 * dataset.
 *
 * ## What it does
 * In a file that calls `torch.distributed.init_process_group` and wraps its model in DDP or FSDP
 * (resolved names), flags a `DataLoader` with neither `sampler=` nor `batch_sampler=` that trains:
 * `shuffle=True`, or iterated by a training loop. Skipped: datasets that are iterable or shard
 * themselves (an `IterableDataset` subclass in the file, an expression mentioning `rank`, `shard`,
 * `world_size`, `split_dataset_by_node`, `streaming`, webdataset), calls with `**kwargs`, and
 * files using accelerate or Lightning (whose `prepare()` / Trainer insert the distributed
 * sampler). Validation loaders without `shuffle=True` that no training loop iterates are not
 * flagged.
 *
 * ## Why is this bad?
 * Without a `DistributedSampler`, each of the N ranks iterates the full dataset. An "epoch" then
 * costs N times the compute for the same data — on 8×H100, eight GPUs spend an epoch each doing
 * what one epoch on one GPU does — and with the same seed on every rank, every rank draws the same
 * shuffled batch each step, so the all-reduced gradient equals the single-GPU gradient: N GPUs
 * deliver one GPU's progress. With different seeds the ranks overlap randomly instead and the
 * epoch count in logs is wrong by a factor of N.
 *
 * ## Example
 * ```python
 * dist.init_process_group("nccl")
 * model = DDP(model.to(local_rank), device_ids=[local_rank])
 * loader = DataLoader(train_set, batch_size=32, shuffle=True)
 * ```
 *
 * ## Use instead
 * ```python
 * sampler = DistributedSampler(train_set, shuffle=True)
 * loader = DataLoader(train_set, batch_size=32, sampler=sampler)
 * for epoch in range(epochs):
 *     sampler.set_epoch(epoch)
 *     ...
 * ```
 *
 * ## Quick fix
 * None: the sampler needs a name so that the epoch loop can call `set_epoch` on it.
 */
export const sl404: Rule = {
  code: 'SL404',
  name: 'ddp-loader-without-sampler',
  category: 'distributed',
  severity: 'warning',
  summary:
    'A DDP training DataLoader without a DistributedSampler makes every rank train on the full dataset.',
  check({ model, report }) {
    if (frameworkOwnsLoop(model) || !initsProcessGroup(model) || !wrapsOf(model).length) return;
    const trainingLoaders = loopsOverLoader(model).filter((entry) => entry.hot);
    for (const call of callsTo(model, DATA_LOADER)) {
      if (hasSplat(call) || keywordArg(call, 'sampler') || keywordArg(call, 'batch_sampler')) continue;
      const positional = positionalArgs(call);
      // DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, ...): a 4th/5th positional is a sampler.
      if (positional.length >= 4) continue;
      const dataset = positional[0] ?? keywordArg(call, 'dataset');
      if (!dataset || selfSharded(model, dataset)) continue;
      const shuffle = keywordArg(call, 'shuffle') ?? positional[2];
      const assigned = call.parent?.type === 'assignment' ? fieldOf(call.parent, 'left')?.text : undefined;
      const trains =
        shuffle?.text === 'True' ||
        (!!assigned && trainingLoaders.some((entry) => entry.loader === assigned));
      if (!trains) continue;
      report({
        node: call,
        ...sl404Text(),
      });
    }
  },
};

/** Whether the dataset expression (or what its name was assigned) shards by rank or is iterable. */
function selfSharded(model: FileModel, dataset: SyntaxNode): boolean {
  if (SELF_SHARDED.test(dataset.text)) return true;
  if (dataset.type !== 'identifier') return false;
  for (const assignment of assignmentsTo(model, dataset.text)) {
    const right = fieldOf(assignment, 'right');
    if (!right) continue;
    if (SELF_SHARDED.test(right.text) || iterableClass(model, right)) return true;
  }
  return false;
}

/** Whether `value` constructs a same-file class deriving from IterableDataset. */
function iterableClass(model: FileModel, value: SyntaxNode): boolean {
  if (value.type !== 'call') return false;
  const name = fieldOf(value, 'function')?.text;
  return model.nodes.class_definition.some(
    (cls) =>
      fieldOf(cls, 'name')?.text === name && /IterableDataset/.test(fieldOf(cls, 'superclasses')?.text ?? ''),
  );
}

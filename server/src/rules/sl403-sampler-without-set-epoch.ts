// SL403: a shuffling `DistributedSampler` whose epoch loop never calls `set_epoch(epoch)` —
// every epoch replays the same permutation.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import {
  fieldOf,
  keywordArg,
  lastName,
  mergeInDocumentOrder,
  nodesWithin,
  rangeWithin,
} from '../analysis/syntax-helpers';
import { callsTo, frameworkOwnsLoader, mentionsAttribute } from './distributed-helpers';
import { DISTRIBUTED_SAMPLER } from './callee-patterns';
import type { Fix, Rule } from './types';
import { sl403Text } from './messages/sl4';

/**
 * `DistributedSampler` without `set_epoch(epoch)` in the epoch loop repeats one shuffle order
 * every epoch.
 *
 * ## What it does
 * In a file that creates a shuffling `torch.utils.data.DistributedSampler` (resolved;
 * `shuffle=False` samplers are ignored) and never calls `set_epoch` on anything, flags each epoch
 * loop: an outermost `for` loop that contains a training loop, directly or through a same-file
 * function (`for epoch in range(E): train_one_epoch(...)`). Files using accelerate, Lightning or
 * the Hugging Face Trainer (which set the epoch themselves) are skipped.
 *
 * ## Why is this bad?
 * `DistributedSampler.__iter__` seeds its permutation with `seed + self.epoch`, and `epoch`
 * changes only through `set_epoch`. Without it, every epoch iterates the data in exactly the same
 * order on every rank: the same batches, with the same composition, in the same sequence — the
 * shuffling the run asked for never happens after epoch 0. PyTorch's `DistributedSampler` docs:
 * "calling the `set_epoch()` method at the beginning of each epoch **before** creating the
 * DataLoader iterator is necessary to make shuffling work properly across multiple epochs.
 * Otherwise, the same ordering will be always used." This silently changes the optimisation
 * (correlated epochs) rather than costing time.
 *
 * ## Example
 * ```python
 * sampler = DistributedSampler(train_set)
 * loader = DataLoader(train_set, batch_size=32, sampler=sampler)
 * for epoch in range(epochs):
 *     for x, y in loader:
 *         ...
 * ```
 *
 * ## Use instead
 * ```python
 * for epoch in range(epochs):
 *     sampler.set_epoch(epoch)
 *     for x, y in loader:
 *         ...
 * ```
 *
 * ## Quick fix
 * When the loop variable and the sampler are plain names (one sampler, assigned to a variable),
 * inserts `sampler.set_epoch(epoch)` as the first statement of the epoch loop.
 */
export const sl403: Rule = {
  code: 'SL403',
  name: 'sampler-without-set-epoch',
  category: 'distributed',
  severity: 'warning',
  summary:
    '`DistributedSampler` without `set_epoch(epoch)` in the epoch loop repeats one shuffle order every epoch.',
  check({ model, report }) {
    // NOTE: the samplers first: most files have none, and the attribute names are a whole-file scan.
    const samplers = callsTo(model, DISTRIBUTED_SAMPLER).filter(
      (call) => keywordArg(call, 'shuffle')?.text !== 'False',
    );
    if (!samplers.length || frameworkOwnsLoader(model) || mentionsAttribute(model, ['set_epoch'])) return;
    const reported = new Set<SyntaxNode>();
    for (const loop of epochLoops(model)) {
      if (reported.has(loop)) continue;
      reported.add(loop);
      const variable = fieldOf(loop, 'left');
      const samplerName = plainSamplerName(samplers);
      const fixes: Fix[] = [];
      const body = fieldOf(loop, 'body');
      const first = body?.children.find((c) => c.type !== 'comment');
      if (variable?.type === 'identifier' && variable.text !== '_' && samplerName && first) {
        const indent = ' '.repeat(first.start.column);
        fixes.push({
          title: `Call \`${samplerName}.set_epoch(${variable.text})\` at the start of each epoch`,
          edits: [
            {
              range: {
                start: { line: first.start.line, column: 0 },
                end: { line: first.start.line, column: 0 },
              },
              newText: `${indent}${samplerName}.set_epoch(${variable.text})\n`,
            },
          ],
        });
      }
      const call = variable?.type === 'identifier' && variable.text !== '_' ? variable.text : 'epoch';
      report({
        node: fieldOf(loop, 'left') ?? loop,
        range: { start: loop.start, end: (fieldOf(loop, 'right') ?? loop).end },
        ...sl403Text({ sampler: samplerName, epoch: call }),
        fixes,
      });
    }
  },
};

/** The sampler's variable when there is exactly one plain-name sampler, e.g. `train_sampler`. */
function plainSamplerName(samplers: SyntaxNode[]): string | undefined {
  const names = new Set<string>();
  for (const call of samplers) {
    const parent = call.parent;
    const left =
      parent?.type === 'assignment' && fieldOf(parent, 'right') === call
        ? fieldOf(parent, 'left')
        : undefined;
    if (left?.type !== 'identifier') return undefined;
    names.add(left.text);
  }
  return names.size === 1 ? [...names][0] : undefined;
}

/** `for` loops that run epochs: they contain a hot loop (directly or in a called same-file function) without being one. */
function epochLoops(model: FileModel): SyntaxNode[] {
  // Every loop of the file in document order: a subtree's loops are an index range of it,
  // asked in the order a walk of the subtree would meet them (the first hot one ends it).
  const loops = mergeInDocumentOrder([model.nodes.for_statement, model.nodes.while_statement]);
  const containsHotLoop = (node: SyntaxNode): boolean => {
    const [from, to] = rangeWithin(loops, node);
    for (let i = from; i < to; i++) if (model.roles.isHotLoop(loops[i])) return true;
    return false;
  };
  const hotFunctions = new Set<string>();
  for (const fn of model.nodes.function_definition)
    if (containsHotLoop(fn)) hotFunctions.add(fieldOf(fn, 'name')?.text ?? '');
  const found: SyntaxNode[] = [];
  for (const loop of model.nodes.for_statement) {
    if (model.roles.isHotLoop(loop) || model.roles.enclosingLoop(loop)) continue;
    const body = fieldOf(loop, 'body');
    if (!body) continue;
    const callsHotFunction = () =>
      nodesWithin(model.nodes.call, body).some((call) => {
        const callee = fieldOf(call, 'function');
        const name = callee && lastName(callee);
        return !!name && hotFunctions.has(name);
      });
    if (containsHotLoop(body) || callsHotFunction()) found.push(loop);
  }
  return found;
}

// SL407: a training entry point whose long loop never saves a checkpoint — any failure
// loses the whole run.
import { matchesAtLiteral } from '../analysis/text-search';
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import { fieldOf, methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { enclosingFunction } from '../analysis/syntax-helpers';
import { calleeName, frameworkOwnsLoop } from './distributed-helpers';
import type { Rule } from './types';
import { sl407Text } from './messages/sl4';

/** Any call named like these saves state (torch.save, dcp.save, save_checkpoint, save_pretrained, ...). */
const SAVE_CALL = /save|checkpoint|dump|export|push_to_hub|upload/i;
const ENTRY_FUNCTIONS = /^(main|train|run|fit|run_training|train_model|training_loop|train_loop)$/;
const SHORT_LOOP_ITERATIONS = 1000;

/**
 * A training script whose long loop never saves a checkpoint loses the whole run on any failure.
 *
 * ## What it does
 * Flags the outermost training loop of a training script — a loop that runs backward/optimizer
 * steps (or contains one that does) at module level, or in `main`/`train`/`run`/`fit` of a file
 * with an `if __name__ == "__main__":` entry — when nothing in the file saves state: no
 * `torch.save`, `torch.distributed.checkpoint` (`dcp.save`), no call named
 * `save…`/`…checkpoint…`/`dump…` (`save_checkpoint`, `accelerator.save_state`,
 * `model.save_pretrained`, `engine.save_checkpoint`), no `ModelCheckpoint`. Skipped: Lightning,
 * accelerate, DeepSpeed and Hugging Face Trainer files (their trainers checkpoint), test files
 * (`test_*.py`, `*_test.py`, `tests/`), library modules without an entry point, and step loops
 * over a literal `range` below 1,000 iterations. One finding per file.
 *
 * ## Why is this bad?
 * Failures during long runs are certain at scale. Meta reports 466 job interruptions in a 54-day
 * snapshot of Llama 3 405B pre-training on 16,384 H100 GPUs, 419 of them unexpected (78%
 * attributed to hardware: GPUs, HBM3, network) — roughly one unexpected interruption every 3 hours
 * ("The Llama 3 Herd of Models", arXiv:2407.21783, §3.3.4). A synchronous data-parallel job dies
 * with any one of its ranks. Without checkpoints each failure restarts the run from step 0: at
 * that failure rate a run longer than a few hours on such a cluster would almost never finish, and
 * even a single-node job loses all its GPU hours to one preemption or out-of-memory error.
 *
 * ## Example
 * ```python
 * for it in range(max_iters):
 *     x, y = get_batch("train")
 *     loss = model(x, y)
 *     loss.backward()
 *     optimizer.step()
 *     optimizer.zero_grad(set_to_none=True)
 * ```
 *
 * ## Use instead
 * ```python
 * start = load_latest(ckpt_dir, model, optimizer)  # resume if a checkpoint exists
 * for it in range(start, max_iters):
 *     ...
 *     if it % ckpt_every == 0 and rank == 0:
 *         torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "iter": it},
 *                    os.path.join(ckpt_dir, "ckpt.pt"))
 * ```
 *
 * ## Quick fix
 * None: where and how often to save is the script's choice.
 */
export const sl407: Rule = {
  code: 'SL407',
  name: 'no-checkpoint',
  category: 'distributed',
  severity: 'information',
  summary: 'A training script whose long loop never saves a checkpoint loses the whole run on any failure.',
  check({ model, report }) {
    if (!model.nodes.for_statement.length && !model.nodes.while_statement.length) return;
    if (frameworkOwnsLoop(model) || isTestFile(model.filePath)) return;
    if (savesAnyState(model)) return;
    if (mentionsCheckpointer(model.source.text)) return;
    const hasMainGuard = model.nodes.if_statement.some((s) =>
      /__name__\s*==\s*['"]__main__['"]/.test(fieldOf(s, 'condition')?.text ?? ''),
    );
    for (const loop of [...model.nodes.for_statement, ...model.nodes.while_statement]) {
      if (!trainsInside(model, loop)) continue;
      if (outerLoop(model, loop)) continue;
      const fn = enclosingFunction(loop);
      const entry =
        !fn ||
        (hasMainGuard && ENTRY_FUNCTIONS.test(fieldOf(fn, 'name')?.text ?? '') && !enclosingFunction(fn));
      if (!entry || (model.roles.isHotLoop(loop) && isShort(loop))) continue;
      report({
        node: fieldOf(loop, 'left') ?? fieldOf(loop, 'condition') ?? loop,
        range: { start: loop.start, end: (fieldOf(loop, 'right') ?? fieldOf(loop, 'condition') ?? loop).end },
        ...sl407Text(),
      });
      return;
    }
  },
};

/** Whether a framework's checkpointer is named (`ModelCheckpoint`, `Checkpointer`, `CheckpointManager`). */
function mentionsCheckpointer(text: string): boolean {
  // One search for the part all three share: `Checkpointer`, `CheckpointManager`, `ModelCheckpoint`.
  return matchesAtLiteral(text, 'Checkpoint', /\bCheckpoint(?:er|Manager)\b|(?<=\bModel)Checkpoint\b/y);
}

/**
 * Whether a call of the file saves state. A `torch.distributed.checkpoint` call may end in any
 * name, but only a text that spells `checkpoint` can make one; every other saving call is
 * under a name `SAVE_CALL` matches in the file's call index.
 */
function savesAnyState(model: FileModel): boolean {
  const calls = model.source.text.includes('checkpoint')
    ? model.nodes.call
    : model.callNames.namedWhere((name) => SAVE_CALL.test(name));
  return calls.some((call) => savesState(model, call));
}

function savesState(model: FileModel, call: SyntaxNode): boolean {
  const qualified = calleeName(model, call);
  if (qualified && /^torch\.(save$|distributed\.checkpoint\.)/.test(qualified)) return true;
  // Activation checkpointing recomputes; it saves nothing.
  if (qualified && /^torch\.utils\.checkpoint\./.test(qualified)) return false;
  const callee = fieldOf(call, 'function');
  const name = methodCall(call)?.name ?? (callee?.type === 'identifier' ? callee.text : '');
  return SAVE_CALL.test(name);
}

function isTestFile(path: string | null): boolean {
  return !!path && /(^|[\\/])(tests[\\/]|test_[^\\/]*\.py$|[^\\/]*_test\.py$|conftest\.py$)/.test(path);
}

/** Whether the loop trains: it is hot itself, or contains a hot loop. */
function trainsInside(model: FileModel, loop: SyntaxNode): boolean {
  if (model.roles.isHotLoop(loop)) return true;
  const body = fieldOf(loop, 'body');
  return (
    !!body &&
    [...model.nodes.for_statement, ...model.nodes.while_statement].some(
      (inner) =>
        inner !== loop &&
        inner.startIndex >= body.startIndex &&
        inner.endIndex <= body.endIndex &&
        model.roles.isHotLoop(inner) &&
        enclosingFunction(inner) === enclosingFunction(loop),
    )
  );
}

function outerLoop(model: FileModel, loop: SyntaxNode): boolean {
  for (let n = loop.parent; n && n.type !== 'function_definition'; n = n.parent)
    if (n.type === 'for_statement' || n.type === 'while_statement') return true;
  return false;
}

/** `for _ in range(200)`: a literal bound under 1,000 iterations (a demo or a smoke test). */
function isShort(loop: SyntaxNode): boolean {
  const right = fieldOf(loop, 'right');
  if (right?.type !== 'call' || fieldOf(right, 'function')?.text !== 'range') return false;
  const args = positionalArgs(right);
  const bound = args[args.length === 1 ? 0 : 1];
  return !!bound && /^\d+$/.test(bound.text) && Number(bound.text) < SHORT_LOOP_ITERATIONS;
}

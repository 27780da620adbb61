// SL110: reading the result of `.to("cpu", non_blocking=True)` before any synchronisation —
// the copy may not have landed, so the values read can be garbage.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, mergeInDocumentOrder, methodCall, walk } from '../analysis/syntax-helpers';
import { callsToMethod } from './method-calls';
import { builtinCall, hostCopy } from './sync-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Rule } from './types';
import { sl110Text } from './messages/sl1';

const READERS = new Set(['print', 'float', 'int', 'bool', 'str', 'repr', 'format']);
/** Calls after which the copy has landed (the host waited on the stream or device). */
const SYNCS = /^(synchronize|item|tolist)$/;

/**
 * A non-blocking device→host copy is read before any synchronisation: the values may be garbage.
 *
 * ## What it does
 * Flags a read of a non-blocking device→host copy (`y = x.to("cpu", non_blocking=True)`,
 * `x.cpu(non_blocking=True)`) before anything waits for it: `.numpy()`, `.item()`, `.tolist()`,
 * indexing, arithmetic, comparisons, `print`, `float()`, f-strings. A `torch.cuda.synchronize()`,
 * `event.synchronize()`, `stream.synchronize()` or `.item()` in between clears it. Fixed severity
 * **warning** in every role, setup included: the result is wrong data, not a cost, so how often it
 * runs does not matter.
 * When only a loader's name suggests the value is a tensor (`for x, y in train_loader` with
 * nothing showing what `train_loader` is, and no element passed to a module, a loss or
 * `.backward()`), the finding is information at most, and its hover says why.
 *
 * ## Why is this bad?
 * A non-blocking copy to the host returns at once into pinned memory while the GPU may still be
 * writing it; the host then reads stale or garbage values (PyTorch tutorial *A guide on good usage
 * of non_blocking and pin_memory()*). `set_sync_debug_mode` does not report it because nothing
 * synchronised.
 *
 * ## Example
 * ```python
 * preds = logits.argmax(-1).to("cpu", non_blocking=True)
 * print(preds.numpy())
 * ```
 *
 * ## Use instead
 * ```python
 * preds = logits.argmax(-1).to("cpu", non_blocking=True)
 * done = torch.cuda.Event(); done.record()
 * ...  # other host work overlaps the copy
 * done.synchronize()
 * print(preds.numpy())
 * ```
 *
 * ## Quick fix
 * None: the safe change depends on what the value is used for.
 */
export const sl110: Rule = {
  code: 'SL110',
  name: 'unsynced-async-host-copy',
  category: 'sync',
  severity: 'warning',
  summary: 'A non-blocking device→host copy is read before any synchronisation: the values may be garbage.',
  check({ model, report }) {
    // Only `.cpu()` and `.to(...)` calls copy to the host (`hostCopy`): found among the file's
    // method calls, in document order.
    for (const call of mergeInDocumentOrder([callsToMethod(model, 'cpu'), callsToMethod(model, 'to')])) {
      const copy = hostCopy(model, call);
      if (!copy?.nonBlocking) continue;
      for (const read of unsyncedReads(model, call)) {
        report({
          node: read,
          tensors: [copy.receiver],
          ...sl110Text({ read, copyLine: call.start.line + 1 }),
        });
      }
    }
  },
};

/** Reads of the copy's result with no sync in between: the copy expression itself, or the name it is assigned to. */
function unsyncedReads(model: FileModel, copy: SyntaxNode): SyntaxNode[] {
  if (isRead(model, copy)) return [copy];
  const assignment = copy.parent;
  const target =
    assignment?.type === 'assignment' && fieldOf(assignment, 'right') === copy && fieldOf(assignment, 'left');
  if (!target || target.type !== 'identifier') return [];
  const statements = blockFrom(assignment);
  const reads: SyntaxNode[] = [];
  for (const statement of statements) {
    let stop = false;
    walk(statement, (node) => {
      if (stop || node.type === 'function_definition' || node.type === 'class_definition') return false;
      if (node.type === 'identifier' && node.text === target.text && isRead(model, node)) reads.push(node);
      const method = node.type === 'call' ? methodCall(node) : undefined;
      if (method && SYNCS.test(method.name) && method.receiver.text !== target.text) stop = true;
      if (node.type === 'assignment' && fieldOf(node, 'left')?.text === target.text) stop = true;
    });
    if (stop || reads.length) break;
  }
  return reads;
}

/** The statements after `node`'s statement in its block, in order. */
function blockFrom(node: SyntaxNode): SyntaxNode[] {
  let statement = node;
  while (statement.parent && statement.parent.type !== 'block' && statement.parent.type !== 'module')
    statement = statement.parent;
  const siblings = statement.parent?.children ?? [];
  return siblings.slice(siblings.indexOf(statement) + 1);
}

/** Whether the value of `node` is read on the host where it stands. */
function isRead(model: FileModel, node: SyntaxNode): boolean {
  let value = node;
  while (value.parent?.type === 'parenthesized_expression') value = value.parent;
  const parent = value.parent;
  if (!parent) return false;
  if (parent.type === 'attribute' && fieldOf(parent, 'object') === value) {
    const call = parent.parent;
    return call?.type === 'call' && methodCall(call)?.name !== 'record_stream';
  }
  if (parent.type === 'subscript' && fieldOf(parent, 'value') === value) return true;
  if (
    /^(binary_operator|comparison_operator|unary_operator|interpolation|boolean_operator|not_operator)$/.test(
      parent.type,
    )
  )
    return true;
  if (parent.type === 'argument_list' && parent.parent?.type === 'call')
    return !!builtinCall(model, parent.parent, READERS);
  return false;
}

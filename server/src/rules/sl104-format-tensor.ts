// SL104: printing or formatting a tensor (`print(t)`, `f"{t}"`, `str(t)`, `"%f" % t`) in a hot step.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, methodCall, positionalArgs, unwrap, walk } from '../analysis/syntax-helpers';
import { reachingBinding, scopeOf } from '../analysis/reaching-definitions';
import { stringInterpolations } from '../analysis/value-vocabulary';
import { builtinCall, isDeviceTensor } from './sync-helpers';
import { callsToMethod } from './method-calls';
import type { FileModel } from '../analysis/file-model';
import type { Rule } from './types';
import { sl104HolderText, sl104Text } from './messages/sl1';

const PRINTERS = new Set(['print', 'str', 'repr', 'format']);

/**
 * Printing or formatting a tensor reads it on the host: a sync.
 *
 * ## What it does
 * Flags a tensor given to `print`, `str`, `repr`, `format`, `"...".format(...)`, `%`-formatting,
 * or an f-string field (`f"{loss}"`, `f"{loss:.4f}"`). `print(f"step {step}")` and `str(path)` are
 * not tensors and are never flagged; Lightning's `self.log("loss", loss)` does not format on the
 * host and is not flagged. Tensors inside a printed dict, list or tuple literal
 * (`print({"loss": loss})`) are flagged too: the container's repr formats each one. So is a
 * name bound to such a literal and printed later (`stats = {"loss": loss}` ... `print(stats)`),
 * unless something between the two names the container (an item assignment, an update, a
 * call it is passed to), which could have replaced the tensors.
 * When only a loader's name suggests the value is a tensor (`for x, y in train_loader` with
 * nothing showing what `train_loader` is, and no element passed to a module, a loss or
 * `.backward()`), the finding is information at most, and its hover says why.
 *
 * ## Why is this bad?
 * Printing a CUDA tensor copies its values to the host (`str(t)` and `print(t)` are in the list
 * `set_sync_debug_mode` reports). A host–device sync makes the CPU wait until every kernel already
 * queued on the GPU has finished; then the GPU sits idle while Python runs and launches the next
 * kernels. CUDA work is asynchronous (PyTorch docs, *CUDA semantics — Asynchronous execution*), so
 * for a step whose kernels take milliseconds, the host waits that whole queue every step and the
 * launch latency of the next step (tens of microseconds per kernel, hundreds of kernels) becomes
 * GPU idle time. `torch.cuda.set_sync_debug_mode("warn")` reports these syncs (PyTorch docs,
 * *torch.cuda.set_sync_debug_mode*; the list of ops it reports was measured with PyTorch 2.11 on
 * an H100).
 *
 * ## Example
 * ```python
 * print(f"step {step} loss {loss:.4f}")
 * ```
 *
 * ## Use instead
 * ```python
 * if step % log_interval == 0:
 *     print(f"step {step} loss {loss.item():.4f}")
 * ```
 *
 * ## Quick fix
 * None: the safe change depends on what the value is used for.
 */
export const sl104: Rule = {
  code: 'SL104',
  name: 'format-tensor',
  category: 'sync',
  severity: 'by-role',
  summary: 'Printing or formatting a tensor reads it on the host: a sync.',
  check({ model, report }) {
    const flag = (value: SyntaxNode, how: string) =>
      report({
        node: value,
        tensors: [value],
        ...sl104Text({ model, node: value, how }),
      });
    // `"...".format(...)`: found among the file's method calls, not by reading every call.
    const stringFormats = new Set(
      callsToMethod(model, 'format').filter((call) => unwrap(methodCall(call)!.receiver).type === 'string'),
    );
    // `"...".format(...)` is under `format` too.
    for (const call of model.callNames.namedAny(PRINTERS)) {
      const builtin = builtinCall(model, call, PRINTERS);
      const formatsString = stringFormats.has(call);
      if (!builtin && !formatsString) continue;
      const all = positionalArgs(call);
      const args = builtin === 'print' || formatsString ? all : all.slice(0, 1);
      for (const arg of args) {
        if (isDeviceTensor(model, arg)) flag(arg, builtin === 'print' ? 'Printing' : 'Formatting');
        // `print({"loss": loss})`, `print([a, b])`: the container's repr formats each tensor.
        for (const element of containerElements(arg))
          if (isDeviceTensor(model, element)) flag(element, builtin === 'print' ? 'Printing' : 'Formatting');
        // `metrics = {"loss": loss}` ... `print(metrics)`: the same, through the name.
        const held = heldTensors(model, arg);
        if (held.length)
          report({
            node: arg,
            tensors: held,
            ...sl104HolderText({ model, node: arg, held: held[0], builtin }),
          });
      }
    }
    for (const string of model.nodes.string) {
      for (const value of stringInterpolations(string)) {
        if (isDeviceTensor(model, value)) flag(value, 'The f-string field');
      }
    }
    for (const operand of percentOperands(model)) flag(operand, '`%`-formatting');
  },
};

/** Tensor operands of `"..." % x` and `"..." % (x, y)`. */
function percentOperands(model: FileModel): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (const string of model.nodes.string) {
    const parent = string.parent;
    if (parent?.type !== 'binary_operator' || parent.operator !== '%' || parent.children[0] !== string)
      continue;
    const right = unwrap(parent.children[1]);
    const values = right.type === 'tuple' ? right.children : [right];
    for (const value of values) if (isDeviceTensor(model, value)) found.push(value);
  }
  return found;
}

/**
 * The tensors in the dict, list, tuple or set literal a printed name was last bound to,
 * when that binding certainly reaches the print and nothing between them names the
 * container (an update, an item assignment, a call it is passed to could replace them).
 */
function heldTensors(model: FileModel, arg: SyntaxNode): SyntaxNode[] {
  const name = unwrap(arg);
  if (name.type !== 'identifier') return [];
  const binding = reachingBinding(name, name.text);
  if (binding?.kind !== 'value') return [];
  const elements = containerElements(binding.value);
  if (!elements.length) return [];
  let touched = false;
  walk(scopeOf(name), (node) => {
    if (
      node.type === 'identifier' &&
      node !== name &&
      node.text === name.text &&
      node.startIndex >= binding.statement.endIndex &&
      node.endIndex <= name.startIndex
    )
      touched = true;
  });
  return touched ? [] : elements.filter((element) => isDeviceTensor(model, element));
}

/** The values of a dict, list, tuple or set literal (none for other expressions). */
function containerElements(node: SyntaxNode): SyntaxNode[] {
  const target = unwrap(node);
  if (target.type === 'dictionary')
    return target.children.filter((c) => c.type === 'pair').map((pair) => fieldOf(pair, 'value') ?? pair);
  if (target.type === 'list' || target.type === 'tuple' || target.type === 'set') return target.children;
  return [];
}

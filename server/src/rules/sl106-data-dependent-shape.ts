// SL106: ops whose output shape depends on tensor values (`nonzero`, `x[mask]`, `unique`,
// `masked_select`, one-argument `torch.where`, `repeat_interleave` with tensor repeats).
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, keywordArg, methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { displayName, isBoolTensor, isDeviceTensor, isTensor } from './sync-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Rule } from './types';
import { sl106Text } from './messages/sl1';

const SHAPE_FROM_VALUES = /^(nonzero|argwhere|masked_select|unique|unique_consecutive)$/;
/** The names `dataDependentCall` can accept: the calls looked at. */
const DATA_DEPENDENT_NAMES = [
  'nonzero',
  'argwhere',
  'masked_select',
  'unique',
  'unique_consecutive',
  'where',
  'repeat_interleave',
];

/**
 * Ops whose output size depends on tensor values (`nonzero`, `x[mask]`, `unique`) sync the GPU.
 *
 * ## What it does
 * Flags ops whose output size depends on tensor values: `torch.nonzero` / `t.nonzero()`,
 * `argwhere`, `masked_select`, `unique`, `unique_consecutive`, one-argument `torch.where(cond)`,
 * `repeat_interleave` with tensor repeats and no `output_size=`, and boolean-mask reads `x[mask]`
 * where `mask` is visibly a boolean tensor (a comparison, `.bool()`, `torch.isnan`, `logical_*`).
 * Mask writes (`x[mask] = 0.`), integer indexing (`x[idx]`), `torch.where(c, a, b)`,
 * `multinomial`, `randperm`, `topk` and `clip_grad_norm_` do not sync and are not flagged.
 * When only a loader's name suggests the value is a tensor (`for x, y in train_loader` with
 * nothing showing what `train_loader` is, and no element passed to a module, a loss or
 * `.backward()`), the finding is information at most, and its hover says why.
 *
 * ## Why is this bad?
 * The host must learn how many elements match before it can allocate the output, so it waits for
 * the GPU to count them (every op listed is reported by `set_sync_debug_mode`). A host–device sync
 * makes the CPU wait until every kernel already queued on the GPU has finished; then the GPU sits
 * idle while Python runs and launches the next kernels. CUDA work is asynchronous (PyTorch docs,
 * *CUDA semantics — Asynchronous execution*), so for a step whose kernels take milliseconds, the
 * host waits that whole queue every step and the launch latency of the next step (tens of
 * microseconds per kernel, hundreds of kernels) becomes GPU idle time.
 * `torch.cuda.set_sync_debug_mode("warn")` reports these syncs (PyTorch docs,
 * *torch.cuda.set_sync_debug_mode*; the list of ops it reports was measured with PyTorch 2.11 on
 * an H100).
 *
 * ## Example
 * ```python
 * loss = F.cross_entropy(logits[mask], labels[mask])
 * ```
 *
 * ## Use instead
 * ```python
 * labels = labels.masked_fill(~mask, -100)
 * loss = F.cross_entropy(logits, labels, ignore_index=-100)
 * ```
 *
 * ## Quick fix
 * None: the safe change depends on what the value is used for.
 */
export const sl106: Rule = {
  code: 'SL106',
  name: 'data-dependent-shape',
  category: 'sync',
  severity: 'by-role',
  summary: 'Ops whose output size depends on tensor values (`nonzero`, `x[mask]`, `unique`) sync the GPU.',
  check({ model, report }) {
    const flag = (node: SyntaxNode, what: string, tensors: SyntaxNode[]) =>
      report({
        node,
        tensors,
        ...sl106Text({ model, node, what }),
      });
    for (const call of model.callNames.namedAny(DATA_DEPENDENT_NAMES)) {
      const what = dataDependentCall(model, call);
      if (!what) continue;
      const receiver = methodCall(call)?.receiver;
      flag(call, what, receiver ? [receiver] : []);
    }
    for (const subscript of model.nodes.subscript) {
      if (isStoreTarget(subscript)) continue;
      const value = fieldOf(subscript, 'value')!;
      const indices = subscript.children.filter((c) => c.field === 'subscript');
      if (indices.length !== 1 || !isDeviceTensor(model, value) || !isBoolTensor(model, indices[0])) continue;
      flag(
        subscript,
        `Boolean-mask indexing \`${displayName(value).replace(/`/g, '')}[${indices[0].text.length <= 30 ? indices[0].text : 'mask'}]\``,
        [value, indices[0]],
      );
    }
  },
};

/** A description of the data-dependent call, or undefined. */
function dataDependentCall(model: FileModel, call: SyntaxNode): string | undefined {
  const qualified = model.imports.resolve(fieldOf(call, 'function')!);
  const method = qualified ? undefined : methodCall(call);
  const name = qualified ? /^torch\.(\w+)$/.exec(qualified)?.[1] : method?.name;
  if (!name || !(SHAPE_FROM_VALUES.test(name) || name === 'where' || name === 'repeat_interleave'))
    return undefined;
  if (method && !isDeviceTensor(model, method.receiver)) return undefined;
  const args = positionalArgs(call);
  if (SHAPE_FROM_VALUES.test(name)) return `\`${name}\``;
  if (name === 'where' && qualified && args.length === 1 && !keywordArg(call, 'input'))
    return 'One-argument `torch.where`';
  if (name === 'repeat_interleave' && !keywordArg(call, 'output_size')) {
    const repeats =
      keywordArg(call, 'repeats') ?? (qualified && args.length === 1 ? args[0] : args[qualified ? 1 : 0]);
    if (repeats && isTensor(model, repeats))
      return '`repeat_interleave` with tensor repeats and no `output_size`';
  }
  return undefined;
}

/** Whether a subscript is written to (`x[m] = v`, `del x[m]`), not read. */
function isStoreTarget(subscript: SyntaxNode): boolean {
  const parent = subscript.parent;
  if (!parent) return false;
  if (parent.type === 'assignment' && fieldOf(parent, 'left') === subscript) return true;
  if (
    (parent.type === 'pattern_list' || parent.type === 'tuple_pattern') &&
    parent.parent?.type === 'assignment'
  )
    return fieldOf(parent.parent, 'left') === parent;
  return parent.type === 'delete_statement';
}

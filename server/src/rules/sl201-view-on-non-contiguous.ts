// SL201: `.view()` that merges dims whose strides do not chain (after transpose, permute,
// `.T`, strided slicing, expand, ...): PyTorch raises at run time.
import { fieldOf, methodCall } from '../analysis/syntax-helpers';
import { LayoutEvaluator } from '../analysis/layout-eval';
import { strideGroups, tryView } from '../analysis/strides';
import { formatSize, isConcrete } from '../analysis/symbolic-size';
import { callsToMethod } from './method-calls';
import type { Fix, Rule } from './types';

/**
 * `.view()` merges dims whose strides are not contiguous: it raises at run time.
 *
 * ## What it does
 * Flags `x.view(shape)` where the analysis knows the shape of `x` (literal factory shapes such as
 * `torch.randn(2, 3, 4)`, sizes unpacked with `B, T, C = x.size()`, the arguments of an earlier
 * `view`, matmul results) and its strides make the view impossible. It follows `x` through local
 * assignments and chained calls (`transpose`, `permute`, `.T`, `.mT`, `t()`, `movedim`,
 * `swapaxes`, `narrow`, `select`, slicing with steps or `[..., :k]`, integer and `None` indexing,
 * `expand`, `unsqueeze`, `squeeze`, `flatten`, `reshape`, `contiguous`) and decides the view
 * exactly as ATen's `computeStride` does: the source dims form groups that are contiguous with
 * each other (stride[k] = stride[k+1]·size[k+1]; size-1 dims never break a group), and the target
 * shape must tile each group. Splitting a dim always works; merging dims from different groups
 * fails.
 *
 * With symbolic sizes the rule reports only what holds for every size > 1 (for example merging `T`
 * and `n_head` after `transpose(1, 2)`) and says that the sizes are unknown. When a stride
 * comparison depends on the sizes (a prefix slice `[..., :k]` of a dim of size `C` merges fine
 * only if `k == C`) the finding is information-level and says the verdict is conditional. Shapes
 * it cannot follow (function parameters, module outputs other than matmuls and element-wise
 * modules, branches that disagree, `scaled_dot_product_attention`, whose output strides depend on
 * the backend) keep it silent.
 *
 * `test/view-truth/view-cases.json` holds 54 cases run with real PyTorch
 * (`generate_view_truth.py`); CI checks the rule against every one.
 *
 * ## Why is this bad?
 * The view raises `RuntimeError: view size is not compatible with input tensor's size and stride
 * (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.` the
 * first time the line runs, typically at step 1 after the job has waited for its GPUs. Source:
 * `torch.Tensor.view` docs; ATen `computeStride` (`aten/src/ATen/TensorUtils.cpp`).
 *
 * `.reshape` returns a view when one exists and copies otherwise; `.contiguous()` on a tensor that
 * is already contiguous returns the tensor itself, so neither costs anything when no copy is
 * needed. When a copy is needed it moves the tensor once through memory (for a bf16 activation of
 * 8×2048×4096 that is 134 MB read and written, about 90 µs at 3 TB/s on an H100).
 *
 * ## Example
 * ```python
 * y = att @ v                                   # (B, n_head, T, head_size)
 * y = y.transpose(1, 2).view(B, T, C)           # merges n_head and head_size: their strides are T·hs and 1
 * ```
 *
 * ## Use instead
 * ```python
 * y = y.transpose(1, 2).contiguous().view(B, T, C)
 * # or
 * y = y.transpose(1, 2).reshape(B, T, C)
 * ```
 *
 * ## Quick fix
 * `.reshape(...)`, `.contiguous().view(...)`.
 */
export const sl201: Rule = {
  code: 'SL201',
  name: 'view-on-non-contiguous',
  category: 'layout',
  severity: 'warning',
  summary: '`.view()` merges dims whose strides are not contiguous: it raises at run time.',
  check({ model, report }) {
    const evaluator = new LayoutEvaluator(model);
    for (const call of callsToMethod(model, 'view')) {
      const method = methodCall(call)!;
      const layout = evaluator.layoutOf(method.receiver);
      if (!layout || !layout.strides) continue;
      const shape = evaluator.shapeArgs(call);
      if (!shape) continue;
      const verdict = tryView(layout, shape);
      if (verdict.kind !== 'fails') continue;
      const symbolic = layout.sizes.some((s) => !isConcrete(s));
      const cause = layout.cause ? `after \`${layout.cause}\`, ` : '';
      const shapeText = `(${layout.sizes.map(formatSize).join(', ')})`;
      let what: string;
      if (verdict.targetDim < 0) {
        const groups = strideGroups(layout) ?? [];
        what =
          `${cause}the tensor's dims fall into ${groups.length} groups that are not contiguous with each other ` +
          `(${groups.map((g) => `[${g.join(', ')}]`).join(' ')}), and a view needs at least one target dim per group`;
      } else {
        const [a, b] = verdict.dims;
        const strides = layout.strides;
        what =
          `${cause}it would merge dims ${a} and ${b} (sizes ${formatSize(layout.sizes[a])}, ${formatSize(layout.sizes[b])}; ` +
          `strides ${formatSize(strides[a])}, ${formatSize(strides[b])}), which are not contiguous with each other`;
      }
      const certainty = !verdict.definite
        ? 'It may raise, depending on the sizes (the verdict is conditional): '
        : symbolic
          ? 'It raises for every size > 1 (the sizes are not known statically): '
          : 'It raises at run time: ';
      report({
        node: call,
        severity: verdict.definite ? undefined : 'information',
        message:
          `\`.view()\` on a tensor of shape ${shapeText} that is not contiguous. ${certainty}${what}. ` +
          `Use \`.reshape(...)\` (copies only when needed) or \`.contiguous().view(...)\`.`,
        fixes: fixesFor(call, method.receiver),
      });
    }
  },
};

function fixesFor(
  call: Parameters<typeof methodCall>[0],
  receiver: NonNullable<ReturnType<typeof methodCall>>['receiver'],
): Fix[] {
  const callee = fieldOf(call, 'function');
  const name = callee && fieldOf(callee, 'attribute');
  if (!name) return [];
  return [
    {
      title: 'Use `.reshape(...)`',
      edits: [{ range: { start: name.start, end: name.end }, newText: 'reshape' }],
    },
    {
      title: 'Insert `.contiguous()` before `.view(...)`',
      edits: [{ range: { start: receiver.end, end: receiver.end }, newText: '.contiguous()' }],
    },
  ];
}

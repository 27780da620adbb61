// SL201: `.view()` that merges dims whose strides do not chain (after transpose, permute,
// `.T`, strided slicing, expand, ...): PyTorch raises at run time.
import { fieldOf, methodCall } from '../analysis/syntax-helpers';
import { LayoutEvaluator } from '../analysis/layout-eval';
import { strideGroups, tryView } from '../analysis/strides';
import { formatSize, isConcrete } from '../analysis/symbolic-size';
import { callsToMethod } from './method-calls';
import type { Fix, Rule } from './types';
import { sl201Text } from './messages/sl2-sl3';

/**
 * ## What it does
 * Flags `x.view(shape)` where the shape of `x` is known (literal shapes, `B, T, C = x.size()`,
 * earlier views) and its strides make the view impossible: the view would have to merge
 * dims that are not contiguous with each other, e.g. after `transpose(1, 2)`, `permute`,
 * `.T`, `.mT`, `movedim`, a strided slice or `expand`. The check follows ATen's own rule
 * (`computeStride`): a view may merge dims i..j only if stride[k] = stride[k+1]·size[k+1]
 * for each k; splitting always works and size-1 dims never block a merge.
 *
 * ## Why is this bad?
 * The view raises `RuntimeError: view size is not compatible with input tensor's size and
 * stride` the first time the line runs: at step 1, after the job waited in the queue.
 *
 * ## Example
 * ```python
 * y = y.transpose(1, 2).view(B, T, C)
 * ```
 *
 * ## Use instead
 * ```python
 * y = y.transpose(1, 2).reshape(B, T, C)       # copies only when it must
 * y = y.transpose(1, 2).contiguous().view(B, T, C)
 * ```
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
        ...sl201Text({
          definite: verdict.definite,
          cause: layout.cause,
          detail:
            `\`.view()\` on a tensor of shape ${shapeText} that is not contiguous. ${certainty}${what}. ` +
            `Use \`.reshape(...)\` (copies only when needed) or \`.contiguous().view(...)\`.`,
        }),
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

// SL201: `.view()` that merges dims whose strides do not chain (after transpose, permute,
// `.T`, strided slicing, expand, ...): PyTorch raises at run time.
import { fieldOf, methodCall } from '../analysis/syntax-helpers';
import { LayoutEvaluator } from '../analysis/layout-eval';
import { formatShape, strideGroups, tryView, type Layout, type ViewVerdict } from '../analysis/strides';
import { formatSize, isConcrete } from '../analysis/symbolic-size';
import {
  MAX_PARAMETER_RANK,
  judgeParameterView,
  type ParameterViewJudgement,
  type RankOutcome,
} from '../analysis/layout-parameters';
import { callsToMethod } from './method-calls';
import type { Fix, Rule } from './types';
import { sl201ParameterText, sl201Text } from './messages/sl2-sl3';
import type { RuleText } from './messages/common';

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
 * it cannot follow (module outputs other than matmuls and element-wise modules, branches that
 * disagree, `scaled_dot_product_attention`, whose output strides depend on the backend) keep it
 * silent.
 *
 * A tensor that arrives as an untyped function parameter (`def merge(y, B, T, C)`) is assumed to
 * arrive contiguous, with unknown sizes, at every rank from 0-D to 6-D that the code allows: a
 * `transpose(1, 2)` needs 3 dims, `B, nh, T, hs = y.shape` or `assert y.dim() == 4` pins 4,
 * `.T` and `.mT` mean a matrix.
 * The view is judged at each rank (pieces of `chunk`/`split`/`unbind` and the return of a
 * same-file helper are followed too). It is a warning when the view raises at every such rank
 * for every size > 1, and information when it raises at some ranks only (a 3-D `y` passes
 * `y.transpose(1, 2).view(B, T, C)` when the view keeps its shape; a 4-D one never does). Where
 * a caller in the same file passes a tensor not known to be contiguous (attention helpers often
 * receive `q.transpose(1, 2)` and transpose it back), or the function is passed around by name,
 * the rule stays silent; a module's `forward` is called through its instances in the file
 * (`self.core = CoreAttention()`, then `self.core(q)`). `test/view-truth/function-cases.json` holds such functions run with
 * real PyTorch (`generate_function_truth.py`): a warning is checked to raise on every run, an
 * information finding to raise on some runs and pass on others, and silence to pass on some.
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
      const shape = layout?.strides ? evaluator.shapeArgs(call) : undefined;
      if (!layout?.strides || !shape) {
        const judgement = judgeParameterView(model, call);
        if (judgement)
          report({ node: call, ...parameterFinding(judgement), fixes: fixesFor(call, method.receiver) });
        continue;
      }
      const verdict = tryView(layout, shape);
      if (verdict.kind !== 'fails') continue;
      const symbolic = layout.sizes.some((s) => !isConcrete(s));
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
            `\`.view()\` on a tensor of shape ${formatShape(layout.sizes)} that is not contiguous. ` +
            `${certainty}${whyItFails(layout, verdict)}. ${USE_INSTEAD}`,
        }),
        fixes: fixesFor(call, method.receiver),
      });
    }
  },
};

const USE_INSTEAD = 'Use `.reshape(...)` (copies only when needed) or `.contiguous().view(...)`.';

/** Which dims the view would have to merge, and why they do not chain. */
function whyItFails(layout: Layout, verdict: ViewVerdict & { kind: 'fails' }): string {
  const cause = layout.cause ? `after \`${layout.cause}\`, ` : '';
  if (verdict.targetDim < 0) {
    const groups = strideGroups(layout) ?? [];
    return (
      `${cause}the tensor's dims fall into ${groups.length} groups that are not contiguous with each other ` +
      `(${groups.map((g) => `[${g.join(', ')}]`).join(' ')}), and a view needs at least one target dim per group`
    );
  }
  const [a, b] = verdict.dims;
  const strides = layout.strides!;
  return (
    `${cause}it would merge dims ${a} and ${b} (sizes ${formatSize(layout.sizes[a])}, ${formatSize(layout.sizes[b])}; ` +
    `strides ${formatSize(strides[a])}, ${formatSize(strides[b])}), which are not contiguous with each other`
  );
}

/** The message for a view on a tensor built from untyped parameters, judged at every rank the code allows. */
function parameterFinding(judgement: ParameterViewJudgement): RuleText & { severity?: 'information' } {
  const names = judgement.parameters.map((p) => `\`${p}\``).join(' and ');
  const example = judgement.failing[0];
  const at = [...example.ranks].map(([name, rank]) => `\`${name}\` ${rank}-D`).join(', ');
  const detail = `with ${at}, ${whyItFails(example.layout, example.verdict as ViewVerdict & { kind: 'fails' })}`;
  const assumption =
    `${names} ${judgement.parameters.length > 1 ? 'are parameters' : 'is a parameter'} used as a tensor; ` +
    `assuming it arrives contiguous, with unknown sizes`;
  if (judgement.kind === 'fails') {
    return sl201ParameterText({
      definite: true,
      parameters: judgement.parameters,
      detail:
        `\`.view()\` on a tensor that is not contiguous. ${assumption} and any rank the code allows, ` +
        `it raises for every size > 1 (${detail}). ${USE_INSTEAD}`,
    });
  }
  return {
    severity: 'information',
    ...sl201ParameterText({
      definite: false,
      parameters: judgement.parameters,
      detail:
        `\`.view()\` may raise, depending on the ranks or sizes of ${names}. ${assumption}, it raises ` +
        `${rankText(judgement.failing)} (${detail}), and can succeed ${rankText(judgement.passing)}. ${USE_INSTEAD}`,
    }),
  };
}

/** "when `y` has 4, 5 or 6 dims" for the rank assignments of some outcomes. */
function rankText(outcomes: readonly RankOutcome[]): string {
  if (outcomes.length === 0) return 'for some sizes';
  const byName = new Map<string, Set<number>>();
  for (const outcome of outcomes)
    for (const [name, rank] of outcome.ranks) byName.set(name, (byName.get(name) ?? new Set()).add(rank));
  const parts = [...byName].map(([name, ranks]) => {
    const sorted = [...ranks].sort((a, b) => a - b);
    const first = sorted[0];
    const upward =
      sorted.length > 1 &&
      sorted.at(-1) === MAX_PARAMETER_RANK &&
      sorted.at(-1)! - first === sorted.length - 1;
    if (upward) return `\`${name}\` has ${first} dims or more (tried up to ${MAX_PARAMETER_RANK})`;
    const list = sorted.length > 1 ? `${sorted.slice(0, -1).join(', ')} or ${sorted.at(-1)}` : `${first}`;
    return `\`${name}\` has ${list} dim${sorted.length === 1 && first === 1 ? '' : 's'}`;
  });
  return `when ${parts.join(' and ')}`;
}

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

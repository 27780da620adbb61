// Tensor methods applied to symbolic layouts (view, reshape, transpose, permute, movedim,
// flatten, narrow, expand, unsqueeze, squeeze, contiguous, element-wise ops) and Python
// slice lengths, for the layout evaluator in layout-helpers.ts.
import type { SyntaxNode } from '../parse/syntax';
import { positionalArgs, unwrap } from './syntax-helpers';
import { atom, formatSize, isConcrete, isOne, num, product, type Size } from './symbolic-size';
import {
  contiguous,
  dropDim,
  expand,
  inferShape,
  insertDim,
  normDim,
  permute,
  reshape,
  sliceDim,
  transpose,
  tryView,
  type Layout,
} from './strides';
import { literalInt, sameShapeResult, type LayoutEvaluator } from './layout-eval';

const SAME_LAYOUT = new Set(['detach', 'requires_grad_', 'detach_']);
const ELEMENTWISE = new Set(
  (
    'clone float half bfloat16 double to cuda cpu type_as masked_fill softmax log_softmax relu gelu sigmoid tanh ' +
    'exp log neg abs sqrt rsqrt clamp masked_fill_ mul_ div_ add_ sub_'
  ).split(' '),
);

/** The layout after `layout.<name>(args)`; `skip` positional args belong to a function form (`torch.transpose(x, ...)`). */
export function applyMethod(
  evaluator: LayoutEvaluator,
  input: { layout: Layout; name: string; call: SyntaxNode; skip: number },
): Layout | undefined {
  const { layout, name, call, skip } = input;
  const args = positionalArgs(call).slice(skip);
  const ints = args.map(literalInt);
  const rank = layout.sizes.length;
  const cause = `${name}(${args.map((a) => a.text).join(', ')})`;
  if (SAME_LAYOUT.has(name)) return layout;
  if (ELEMENTWISE.has(name)) return sameShapeResult(layout);
  switch (name) {
    case 'view':
    case 'reshape': {
      const shape = evaluator.shapeArgs(call, skip);
      if (!shape) return undefined;
      if (name === 'reshape') return reshape(layout, shape) ?? unknownStrides(layout, shape);
      const verdict = tryView(layout, shape);
      // NOTE: code after a failing view never runs, so later uses see the requested shape.
      return verdict.kind === 'succeeds' ? verdict.layout : unknownStrides(layout, shape);
    }
    case 'contiguous':
      return contiguous(layout.sizes);
    case 'transpose':
    case 'swapaxes':
    case 'swapdims':
      if (ints.length !== 2 || ints.some((i) => i === undefined)) return undefined;
      return transpose(layout, ints[0]!, ints[1]!, cause);
    case 't':
      return rank < 2 ? layout : rank === 2 ? transpose(layout, 0, 1, '.t()') : undefined;
    case 'permute': {
      const order =
        args.length === 1 && ['tuple', 'list'].includes(unwrap(args[0]).type)
          ? unwrap(args[0]).children.map(literalInt)
          : ints;
      if (order.some((i) => i === undefined)) return undefined;
      return permute(layout, order as number[], cause);
    }
    case 'movedim':
    case 'moveaxis': {
      const source = ints[0] === undefined ? undefined : normDim(ints[0], rank);
      const destination = ints[1] === undefined ? undefined : normDim(ints[1], rank);
      if (source === undefined || destination === undefined) return undefined;
      const order = layout.sizes.map((_, i) => i).filter((i) => i !== source);
      order.splice(destination, 0, source);
      return permute(layout, order, cause);
    }
    case 'unsqueeze': {
      const dim = ints[0] === undefined ? undefined : normDim(ints[0], rank + 1);
      return dim === undefined ? undefined : insertDim(layout, dim);
    }
    case 'squeeze':
      return squeeze(layout, args.length === 0 ? undefined : ints[0]);
    case 'flatten': {
      const start = normDim(ints[0] ?? (args.length > 0 ? NaN : 0), rank);
      const end = normDim(ints[1] ?? (args.length > 1 ? NaN : -1), rank);
      if (start === undefined || end === undefined || end < start) return undefined;
      const shape = [
        ...layout.sizes.slice(0, start),
        product(layout.sizes.slice(start, end + 1)),
        ...layout.sizes.slice(end + 1),
      ];
      return reshape(layout, shape) ?? unknownStrides(layout, shape);
    }
    case 'narrow': {
      const dim = ints[0] === undefined ? undefined : normDim(ints[0], rank);
      const length = args[2] && evaluator.sizeOf(args[2]);
      if (dim === undefined || !length || length === -1) return undefined;
      return sliceDim(layout, { dim, size: length, step: 1, cause });
    }
    case 'select': {
      const dim = ints[0] === undefined ? undefined : normDim(ints[0], rank);
      return dim === undefined ? undefined : dropDim(layout, dim);
    }
    case 'expand': {
      const shape = evaluator.shapeArgs(call, skip);
      if (!shape) return undefined;
      return expand(
        layout,
        shape.map((s) => (s === -1 ? 'keep' : s)),
      );
    }
    default:
      return undefined;
  }
}

function unknownStrides(layout: Layout, shape: readonly (Size | -1)[]): Layout | undefined {
  const sizes = inferShape(layout, shape);
  return sizes ? { sizes, strides: null } : undefined;
}

function squeeze(layout: Layout, dim: number | undefined): Layout | undefined {
  if (dim === undefined) {
    if (layout.sizes.some((s) => !isConcrete(s))) return undefined; // NOTE: a symbol may be 1.
    let result = layout;
    for (let d = layout.sizes.length - 1; d >= 0; d--)
      if (isOne(layout.sizes[d])) result = dropDim(result, d);
    return result;
  }
  const d = normDim(dim, layout.sizes.length);
  if (d === undefined) return undefined;
  const size = layout.sizes[d];
  if (isOne(size)) return dropDim(layout, d);
  return isConcrete(size) ? layout : undefined;
}

/** The length and step of `size[slice]`; undefined for negative or unknown steps. */
export function sliceLength(
  evaluator: LayoutEvaluator,
  input: { slice: SyntaxNode; size: Size },
): { size: Size; step: number } | undefined {
  const parts = splitSlice(input.slice.text);
  if (!parts) return undefined;
  const children = [...input.slice.children];
  const node = (part: string) => (part === '' ? undefined : children.shift());
  const [startNode, stopNode, stepNode] = parts.map(node);
  if (children.length) return undefined;
  const step = stepNode ? literalInt(stepNode) : 1;
  if (step === undefined || step <= 0) return undefined;
  const n = input.size;
  const start = startNode ? literalInt(startNode) : 0;
  const stop = stopNode ? literalInt(stopNode) : undefined;
  if (isConcrete(n) && start !== undefined && (stop !== undefined || !stopNode)) {
    return { size: num(pythonSliceLength(n.coef, start, stop, step)), step };
  }
  const opaque = atom(`len(${formatSize(n)}[${input.slice.text.replace(/\s+/g, '')}])`);
  if (start !== 0 || step !== 1) return { size: opaque, step };
  if (!stopNode) return { size: n, step };
  if (stop !== undefined && stop < 0) return { size: opaque, step };
  const stopSize = evaluator.sizeOf(stopNode);
  // NOTE: `x[:k]` is assumed not to clamp (k ≤ size), as code slicing a prefix intends.
  return stopSize && stopSize !== -1 ? { size: stopSize, step } : { size: opaque, step };
}

function pythonSliceLength(n: number, start: number, stop: number | undefined, step: number): number {
  const clamp = (i: number) => Math.min(Math.max(i < 0 ? i + n : i, 0), n);
  const from = clamp(start);
  const to = stop === undefined ? n : clamp(stop);
  return to <= from ? 0 : Math.ceil((to - from) / step);
}

/** `a:b:c` → ['a', 'b', 'c'] at bracket depth 0; undefined for more than two colons. */
function splitSlice(text: string): string[] | undefined {
  const parts = [''];
  let depth = 0;
  for (const ch of text) {
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    if (ch === ':' && depth === 0) parts.push('');
    else parts[parts.length - 1] += ch;
  }
  if (parts.length > 3) return undefined;
  while (parts.length < 3) parts.push('');
  return parts.map((p) => p.trim());
}

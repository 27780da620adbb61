// Symbolic strided layouts and PyTorch's `.view()` rule: a layout is a list of sizes and
// strides (monomials over shape symbols); the view check follows ATen's `computeStride`
// (aten/src/ATen/TensorUtils.cpp): the source dims split into chunks that are contiguous
// with each other (size-1 dims never break a chunk) and the new shape must tile each chunk.
import {
  compareSizes,
  div,
  formatSize,
  isConcrete,
  isOne,
  mul,
  num,
  product,
  sameSize,
  type Size,
} from './symbolic-size';

/** Sizes and strides of a tensor; `strides` is null when the layout is unknown. */
export interface Layout {
  readonly sizes: readonly Size[];
  readonly strides: readonly Size[] | null;
  /** The operation that last made the layout non-contiguous (`transpose(1, 2)`), for messages. */
  readonly cause?: string;
}

/** What PyTorch does with a `.view(shape)`. */
export type ViewVerdict =
  | { kind: 'succeeds'; layout: Layout }
  | {
      kind: 'fails';
      /** True when it fails for every size > 1 of the symbols; false when it depends on them. */
      definite: boolean;
      /** The source dims (first, last) the failing target dim would have to merge. */
      dims: [number, number];
      /** The target dim that cannot be formed. */
      targetDim: number;
    }
  | { kind: 'unknown'; reason: string };

/** Row-major strides of `sizes`. */
export function contiguousStrides(sizes: readonly Size[]): Size[] {
  const strides: Size[] = new Array(sizes.length);
  let running = num(1);
  for (let d = sizes.length - 1; d >= 0; d--) {
    strides[d] = running;
    running = mul(running, sizes[d]);
  }
  return strides;
}

/** A fresh contiguous tensor of these sizes. */
export function contiguous(sizes: readonly Size[]): Layout {
  return { sizes, strides: contiguousStrides(sizes) };
}

/** Whether the layout is known to be contiguous (size-1 dims ignored, as PyTorch does). */
export function isContiguous(layout: Layout): boolean | undefined {
  if (!layout.strides) return undefined;
  const expected = contiguousStrides(layout.sizes);
  return layout.sizes.every((size, d) => isOne(size) || sameSize(layout.strides![d], expected[d]));
}

/** Normalises a possibly negative dim index; undefined when out of range. */
export function normDim(dim: number, rank: number): number | undefined {
  const d = dim < 0 ? dim + rank : dim;
  return Number.isInteger(d) && d >= 0 && d < rank ? d : undefined;
}

/** Reorders dims: `order[i]` is the source dim that becomes dim i. */
export function permute(layout: Layout, order: readonly number[], cause: string): Layout | undefined {
  const rank = layout.sizes.length;
  const dims = order.map((d) => normDim(d, rank));
  if (dims.length !== rank || dims.some((d) => d === undefined) || new Set(dims).size !== rank)
    return undefined;
  const moved = dims as number[];
  const strides = layout.strides;
  const changed = moved.some((d, i) => d !== i);
  return {
    sizes: moved.map((d) => layout.sizes[d]),
    strides: strides ? moved.map((d) => strides[d]) : null,
    cause: changed ? cause : layout.cause,
  };
}

/** Swaps two dims. */
export function transpose(layout: Layout, a: number, b: number, cause: string): Layout | undefined {
  const rank = layout.sizes.length;
  const da = normDim(a, rank);
  const db = normDim(b, rank);
  if (da === undefined || db === undefined) return undefined;
  const order = layout.sizes.map((_, i) => (i === da ? db : i === db ? da : i));
  return permute(layout, order, cause);
}

/** Keeps `size` elements of `dim`, every `step`-th, starting at an offset (offset does not change strides). */
export function sliceDim(
  layout: Layout,
  input: { dim: number; size: Size; step: number; cause: string },
): Layout {
  const sizes = [...layout.sizes];
  sizes[input.dim] = input.size;
  const strides = layout.strides ? [...layout.strides] : null;
  if (strides && input.step !== 1) strides[input.dim] = mul(strides[input.dim], num(input.step));
  const narrowed = !sameSize(input.size, layout.sizes[input.dim]) || input.step !== 1;
  return { sizes, strides, cause: narrowed && input.dim > 0 ? input.cause : layout.cause };
}

/** Removes `dim` (integer indexing or `select`). */
export function dropDim(layout: Layout, dim: number): Layout {
  return {
    sizes: layout.sizes.filter((_, d) => d !== dim),
    strides: layout.strides ? layout.strides.filter((_, d) => d !== dim) : null,
    cause: layout.cause,
  };
}

/** Inserts a size-1 dim before position `dim` (0..rank). */
export function insertDim(layout: Layout, dim: number): Layout {
  const sizes = [...layout.sizes];
  sizes.splice(dim, 0, num(1));
  let strides: Size[] | null = null;
  if (layout.strides) {
    strides = [...layout.strides];
    const stride = dim < layout.sizes.length ? mul(strides[dim], layout.sizes[dim]) : num(1);
    strides.splice(dim, 0, stride);
  }
  return { sizes, strides, cause: layout.cause };
}

/** `expand(*shape)`: size-1 dims (and new leading dims) get stride 0. */
export function expand(layout: Layout, shape: readonly (Size | 'keep')[]): Layout | undefined {
  const extra = shape.length - layout.sizes.length;
  if (extra < 0) return undefined;
  const sizes: Size[] = [];
  const strides: Size[] = [];
  let broadcast = false;
  for (let i = 0; i < shape.length; i++) {
    const source = i - extra;
    const target = shape[i];
    if (source < 0) {
      if (target === 'keep') return undefined;
      sizes.push(target);
      strides.push(num(0));
      broadcast ||= !isOne(target);
      continue;
    }
    const old = layout.sizes[source];
    if (target === 'keep' || sameSize(target, old)) {
      sizes.push(old);
      strides.push(layout.strides ? layout.strides[source] : num(0));
    } else if (isOne(old)) {
      sizes.push(target);
      strides.push(num(0));
      broadcast = true;
    } else if (!isConcrete(old)) {
      // NOTE: a symbolic size is taken to be > 1, so the code only runs when it equals the
      // target; the dim keeps its own spelling, which its neighbours' strides are written in.
      sizes.push(old);
      strides.push(layout.strides ? layout.strides[source] : num(0));
    } else return undefined;
  }
  return { sizes, strides: layout.strides ? strides : null, cause: broadcast ? 'expand' : layout.cause };
}

/** Replaces one `-1` in a target shape by the inferred size; undefined when it cannot be inferred. */
export function inferShape(layout: Layout, shape: readonly (Size | -1)[]): Size[] | undefined {
  const holes = shape.filter((s) => s === -1).length;
  if (holes > 1) return undefined;
  const known = shape.filter((s): s is Size => s !== -1);
  if (holes === 0) return known;
  const rest = product(known);
  if (rest.coef === 0) return undefined;
  const inferred = div(product(layout.sizes), rest);
  return shape.map((s) => (s === -1 ? inferred : s));
}

/** Decides `layout.view(shape)` the way ATen's computeStride does, symbolically. */
export function tryView(layout: Layout, shape: readonly (Size | -1)[]): ViewVerdict {
  // A contiguous tensor takes any view with its element count (computeStride's fast path);
  // a count that does not match raises a different error, not the stride one.
  if (isContiguous(layout)) {
    const target = inferShape(layout, shape);
    if (target) return { kind: 'succeeds', layout: contiguous(target) };
  }
  const exact = exactView(layout, shape);
  if (exact.kind !== 'unknown') return exact;
  return structuralView(layout, shape) ?? exact;
}

function exactView(layout: Layout, shape: readonly (Size | -1)[]): ViewVerdict {
  const target = inferShape(layout, shape);
  if (!target) return { kind: 'unknown', reason: 'the target shape cannot be inferred' };
  const numel = product(layout.sizes);
  if (!sameSize(numel, product(target))) return { kind: 'unknown', reason: 'element counts do not match' };
  if (isConcrete(numel) && numel.coef === 0) return { kind: 'succeeds', layout: contiguous(target) };
  const strides = layout.strides;
  if (!strides) return { kind: 'unknown', reason: 'the strides are unknown' };
  const sizes = layout.sizes;
  const newStrides: Size[] = new Array(target.length);
  if (sizes.length === 0) return { kind: 'succeeds', layout: contiguous(target) };
  let definite = true;
  let viewDim = target.length - 1;
  let chunkBase = strides[sizes.length - 1];
  let tensorNumel = num(1);
  let viewNumel = num(1);
  for (let d = sizes.length - 1; d >= 0; d--) {
    tensorNumel = mul(tensorNumel, sizes[d]);
    let boundary = d === 0;
    if (!boundary && !isOne(sizes[d - 1])) {
      const order = compareSizes(strides[d - 1], mul(tensorNumel, chunkBase));
      if (order !== 'eq') boundary = true;
      if (order === 'unknown') definite = false;
    }
    if (!boundary) continue;
    while (viewDim >= 0) {
      const order = compareSizes(viewNumel, tensorNumel);
      if (order === 'unknown') return { kind: 'unknown', reason: 'the sizes cannot be ordered' };
      if (order !== 'lt' && !isOne(target[viewDim])) break;
      newStrides[viewDim] = mul(viewNumel, chunkBase);
      viewNumel = mul(viewNumel, target[viewDim]);
      viewDim--;
    }
    if (!sameSize(viewNumel, tensorNumel)) {
      if (compareSizes(viewNumel, tensorNumel) === 'unknown') definite = false;
      return { kind: 'fails', definite, dims: [Math.max(0, d - 1), d], targetDim: viewDim + 1 };
    }
    if (d > 0) {
      chunkBase = strides[d - 1];
      tensorNumel = num(1);
      viewNumel = num(1);
    }
  }
  if (viewDim !== -1) return { kind: 'fails', definite, dims: [0, 0], targetDim: viewDim };
  return { kind: 'succeeds', layout: { sizes: target, strides: newStrides, cause: layout.cause } };
}

/**
 * The groups of source dims that are contiguous with each other (ATen's chunks), assuming
 * every symbolic size is > 1; undefined when a boundary depends on the sizes.
 */
export function strideGroups(layout: Layout): number[][] | undefined {
  const { sizes, strides } = layout;
  if (!strides || sizes.length === 0) return undefined;
  const groups: number[][] = [];
  let current: number[] = [];
  let chunkBase = strides[sizes.length - 1];
  let tensorNumel = num(1);
  for (let d = sizes.length - 1; d >= 0; d--) {
    tensorNumel = mul(tensorNumel, sizes[d]);
    current.unshift(d);
    let boundary = d === 0;
    if (!boundary && !isOne(sizes[d - 1])) {
      const order = compareSizes(strides[d - 1], mul(tensorNumel, chunkBase));
      if (order === 'unknown') return undefined;
      boundary = order !== 'eq';
    }
    if (!boundary) continue;
    groups.unshift(current);
    current = [];
    if (d > 0) {
      chunkBase = strides[d - 1];
      tensorNumel = num(1);
    }
  }
  return groups;
}

/**
 * When sizes cannot be matched: a view needs at least one target dim of size > 1 per group
 * of contiguous source dims, so fewer target dims than groups fails for every size > 1.
 */
function structuralView(layout: Layout, shape: readonly (Size | -1)[]): ViewVerdict | undefined {
  const groups = strideGroups(layout);
  if (!groups) return undefined;
  const bigGroups = groups.filter((group) => !isOne(product(group.map((d) => layout.sizes[d]))));
  const targetDims = shape.filter((s) => s === -1 || !isOne(s)).length;
  if (bigGroups.length < 2 || targetDims >= bigGroups.length) return undefined;
  const [first, second] = bigGroups.slice(-2);
  return { kind: 'fails', definite: true, dims: [first[first.length - 1], second[0]], targetDim: -1 };
}

/** `reshape`: a view when possible, else a contiguous copy; unknown strides stay unknown. */
export function reshape(layout: Layout, shape: readonly (Size | -1)[]): Layout | undefined {
  const verdict = tryView(layout, shape);
  if (verdict.kind === 'succeeds') return verdict.layout;
  const target = inferShape(layout, shape);
  if (!target) return undefined;
  if (verdict.kind === 'fails' && verdict.definite) return contiguous(target);
  return { sizes: target, strides: null };
}

/** `a × b × c` for messages. */
export function formatShape(sizes: readonly Size[]): string {
  return `(${sizes.map(formatSize).join(', ')})`;
}

// Symbolic tensors for the forward walker: a shape, a dtype, the storage they view (so that
// saved tensors are counted once per storage, as autograd holds storages), the order of their
// dims in that storage (to know when a reshape or a batched matmul must copy), and whether
// they require grad.

/** Element types the walker tracks. */
export type Dtype = 'f32' | 'bf16' | 'f16' | 'i64' | 'bool';

export const DTYPE_BYTES: Record<Dtype, number> = { f32: 4, bf16: 2, f16: 2, i64: 8, bool: 1 };

/** One allocation; views share it. */
export interface Storage {
  id: number;
  bytes: number;
  /** Parameters and buffers are model state, never activations. */
  modelState: boolean;
}

/** A tensor during the walk. */
export interface FTensor {
  kind: 'ftensor';
  shape: number[];
  dtype: Dtype;
  storage: Storage;
  /** perm[i] = the storage dim of view dim i; identity when contiguous. */
  perm: number[];
  requiresGrad: boolean;
}

let nextStorage = 1;

/** The number of elements of a shape. */
export function numel(shape: readonly number[]): number {
  return shape.reduce((a, d) => a * d, 1);
}

/** A fresh contiguous tensor with its own storage. */
export function fresh(input: {
  shape: number[];
  dtype: Dtype;
  requiresGrad: boolean;
  modelState?: boolean;
}): FTensor {
  const { shape, dtype } = input;
  return {
    kind: 'ftensor',
    shape: [...shape],
    dtype,
    storage: {
      id: nextStorage++,
      bytes: numel(shape) * DTYPE_BYTES[dtype],
      modelState: input.modelState ?? false,
    },
    perm: shape.map((_, i) => i),
    requiresGrad: input.requiresGrad,
  };
}

/** A view of `t` with another shape and layout (same storage). */
export function view(t: FTensor, shape: number[], perm?: number[]): FTensor {
  return { ...t, shape: [...shape], perm: perm ?? shape.map((_, i) => i) };
}

/** Whether the dims are in storage order (a reshape can then be a view). */
export function isContiguous(t: FTensor): boolean {
  return t.perm.every((p, i) => p === i);
}

/** Normalises a possibly negative dim. */
export function dimIndex(dim: number, rank: number): number {
  return dim < 0 ? dim + rank : dim;
}

/** The transpose of two dims (a view). */
export function transpose(t: FTensor, a: number, b: number): FTensor {
  const i = dimIndex(a, t.shape.length);
  const j = dimIndex(b, t.shape.length);
  const shape = [...t.shape];
  const perm = [...t.perm];
  [shape[i], shape[j]] = [shape[j], shape[i]];
  [perm[i], perm[j]] = [perm[j], perm[i]];
  return { ...t, shape, perm };
}

/** Reshape: a view when contiguous (or only size-1 dims move), else a copy into a new storage. */
export function reshape(t: FTensor, shape: number[]): FTensor {
  const moved = t.perm.some((p, i) => p !== i && t.shape[i] !== 1);
  if (!moved) return view(t, shape);
  return fresh({ shape, dtype: t.dtype, requiresGrad: t.requiresGrad });
}

/** Resolves a `-1` in a target shape against the element count. */
export function resolveShape(target: number[], total: number): number[] | undefined {
  const known = target.filter((d) => d !== -1);
  const product = numel(known);
  if (target.filter((d) => d === -1).length > 1 || product === 0) return undefined;
  if (known.length === target.length) return product === total ? target : undefined;
  if (total % product !== 0) return undefined;
  return target.map((d) => (d === -1 ? total / product : d));
}

/** Broadcast shape of two shapes (numpy rules), or undefined when they do not broadcast. */
export function broadcast(a: readonly number[], b: readonly number[]): number[] | undefined {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) return undefined;
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** Whether a batched matmul can fold this operand's batch dims without a copy. */
export function foldsWithoutCopy(t: FTensor): boolean {
  const rank = t.shape.length;
  // NOTE: up to 3-D, matmul calls bmm on the tensors as they are; 4-D and up folds the batch dims.
  if (rank <= 3) return true;
  const batch = t.perm.slice(0, rank - 2);
  const last = t.perm.slice(rank - 2).sort((x, y) => x - y);
  return batch.every((p, i) => p === i || t.shape[i] === 1) && last[0] === rank - 2 && last[1] === rank - 1;
}

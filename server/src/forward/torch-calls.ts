// torch functions, torch.nn.functional, Tensor methods, operators and indexing on symbolic
// tensors: shapes per the PyTorch docs of each op, saved tensors via ops.ts. An op that is not
// listed returns undefined and the walker names it as a cause (never guessed).
import type { ModuleInstance } from '../modules/module-instance';
import { asNumber, bool, num, seq, type Value } from '../modules/values';
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf } from '../analysis/syntax-helpers';
import { flatten, type FValue } from './layer-ops';
import * as op from './ops';
import {
  dimIndex,
  fresh,
  numel,
  reshape,
  resolveShape,
  transpose,
  view,
  type Dtype,
  type FTensor,
} from './tensor';
import type { Trace } from './trace';

const isTensor = (v: FValue | undefined): v is FTensor => v?.kind === 'ftensor';
const T = (v: FValue): Value => v as Value;

/** Ints from `f(2, 3)` or `f((2, 3))`. */
function intList(args: FValue[]): number[] | undefined {
  const flat = args.length === 1 && args[0].kind === 'seq' ? args[0].items : args;
  const out = flat.map((a) => asNumber(a as Value));
  return out.every((n) => n !== undefined) ? (out as number[]) : undefined;
}

const numberOf = (v: FValue | undefined): number | undefined => (v && !isTensor(v) ? asNumber(v) : undefined);

function arg(args: FValue[], keywords: Map<string, FValue>, name: string, index: number): FValue | undefined {
  return keywords.get(name) ?? args[index];
}

function dtypeNamed(v: FValue | undefined): Dtype | undefined {
  const name = v?.kind === 'qualified' ? v.name : v?.kind === 'str' ? v.value : undefined;
  if (!name) return undefined;
  if (/bfloat16$/.test(name)) return 'bf16';
  if (/(float16|half)$/.test(name)) return 'f16';
  if (/(float32|float)$/.test(name)) return 'f32';
  if (/(int64|long)$/.test(name)) return 'i64';
  if (/bool$/.test(name)) return 'bool';
  return undefined;
}

/** Tensor attributes: shape, T/mT, ndim, dtype/device (opaque). */
export function tensorAttribute(trace: Trace, t: FTensor, name: string): FValue | undefined {
  if (name === 'shape') return seq(t.shape.map(num), true);
  if (name === 'ndim') return num(t.shape.length);
  if (name === 'T' || name === 'mT') return t.shape.length >= 2 ? transpose(t, -2, -1) : t;
  if (name === 'dtype' || name === 'device') return { kind: 'qualified', name: `tensor.${name}` };
  if (name === 'is_cuda') return bool(true);
  if (name === 'requires_grad') return bool(t.requiresGrad);
  void trace;
  return undefined;
}

/** `a op b` with at least one tensor. */
export function binaryTensor(trace: Trace, operator: string, a: FValue, b: FValue): FTensor | undefined {
  const operand = (v: FValue): FTensor | number | undefined => (isTensor(v) ? v : numberOf(v));
  const x = operand(a);
  const y = operand(b);
  if (x === undefined || y === undefined) return undefined;
  switch (operator) {
    case '+':
      return op.binary(trace, 'add', x, y);
    case '-':
      return op.binary(trace, 'sub', x, y);
    case '*':
      return op.binary(trace, 'mul', x, y);
    case '/':
      return op.binary(trace, 'div', x, y);
    case '@':
      return isTensor(a) && isTensor(b) ? op.matmul(trace, a, b) : undefined;
    case '**':
      return isTensor(a) ? op.unary(trace, { name: 'square', x: a }) : undefined;
    case '==':
    case '!=':
    case '<':
    case '>':
    case '<=':
    case '>=': {
      const shape = isTensor(a) ? a.shape : isTensor(b) ? b.shape : [];
      const other = isTensor(a) && isTensor(b) ? op.binary(trace, 'add', a, b)?.shape : shape;
      return other ? fresh({ shape: other, dtype: 'bool', requiresGrad: false }) : undefined;
    }
    default:
      return undefined;
  }
}

/** Basic and advanced indexing: ints drop dims, slices keep them, None adds one, lists copy. */
export function subscriptTensor(
  trace: Trace,
  input: { t: FTensor; node: SyntaxNode; evalIndex: (n: SyntaxNode) => FValue },
): FTensor | undefined {
  const { t, node } = input;
  const index = fieldOf(node, 'subscript');
  if (!index) return undefined;
  const parts =
    index.type === 'tuple' || index.type === 'expression_list'
      ? index.children.filter((c) => c.type !== 'comment')
      : node.children.filter((c) => c.field === 'subscript');
  const shape: number[] = [];
  let dim = 0;
  let copy = false;
  const explicit = parts.filter((p) => p.type !== 'ellipsis' && p.type !== 'none').length;
  for (const part of parts) {
    if (part.type === 'ellipsis') {
      const skip = t.shape.length - explicit;
      for (let i = 0; i < skip; i++) shape.push(t.shape[dim++]);
    } else if (part.type === 'none') shape.push(1);
    else if (part.type === 'slice') {
      const size = t.shape[dim++];
      if (size === undefined) return undefined;
      const bounds: (number | undefined)[] = [undefined, undefined, undefined];
      let slot = 0;
      for (const child of part.children) {
        slot = part.text.slice(0, child.startIndex - part.startIndex).split(':').length - 1;
        const n = numberOf(input.evalIndex(child));
        if (n === undefined) return undefined;
        bounds[slot] = n;
      }
      const step = bounds[2] ?? 1;
      const clamp = (v: number) => Math.min(size, Math.max(0, v < 0 ? v + size : v));
      const start = bounds[0] === undefined ? 0 : clamp(bounds[0]);
      const end = bounds[1] === undefined ? size : clamp(bounds[1]);
      shape.push(Math.max(0, Math.ceil((end - start) / step)));
    } else {
      const value = input.evalIndex(part);
      if (numberOf(value) !== undefined) dim++;
      else if (value.kind === 'seq') {
        shape.push(value.items.length);
        dim++;
        copy = true;
      } else if (isTensor(value)) {
        shape.push(...value.shape);
        dim++;
        copy = true;
      } else return undefined;
    }
  }
  while (dim < t.shape.length) shape.push(t.shape[dim++]);
  if (copy) return op.output(trace, shape, t.dtype, t);
  return { ...view(t, shape), perm: shape.length === t.perm.length ? t.perm : shape.map((_, i) => i) };
}

/** Calls of `torch.*`, `torch.nn.functional.*` and a few others; undefined when not modelled. */
export function callTorch(
  trace: Trace,
  input: {
    name: string;
    args: FValue[];
    keywords: Map<string, FValue>;
    callModule: (m: ModuleInstance, args: FValue[]) => FValue;
  },
): FValue | undefined {
  const { args, keywords } = input;
  const name = input.name.replace(/^torch\.nn\.functional\./, 'F.').replace(/^torch\./, 'torch.');
  const short = name.split('.').pop() ?? '';
  const x = args[0];
  if (name === 'torch._assert' || /^torch\.jit\./.test(name) || name === 'torch._C._log_api_usage_once')
    return { kind: 'none' };
  if (/^torch\.(arange)$/.test(name)) {
    const ints = args.map((a) => numberOf(a));
    if (ints.some((n) => n === undefined)) return undefined;
    const [a0, a1, step] = ints as number[];
    const n = a1 === undefined ? a0 : Math.ceil((a1 - a0) / (step ?? 1));
    return fresh({ shape: [n], dtype: 'i64', requiresGrad: false });
  }
  if (/^torch\.(zeros|ones|empty|randn|rand|full)$/.test(name)) {
    const dims = intList(short === 'full' ? [args[0]] : args);
    if (!dims) return undefined;
    return fresh({
      shape: dims,
      dtype: dtypeNamed(keywords.get('dtype')) ?? trace.paramDtype,
      requiresGrad: false,
    });
  }
  if (!isTensor(x) && !(short === 'cat' || short === 'stack')) return undefined;
  if (short === 'cat' || short === 'stack') {
    const items = x?.kind === 'seq' ? x.items.map((i) => i as FValue) : undefined;
    if (!items || !items.every(isTensor) || !items.length) return undefined;
    const d = numberOf(arg(args, keywords, 'dim', 1)) ?? 0;
    const first = items[0] as FTensor;
    const shape = [...first.shape];
    if (short === 'cat')
      shape[dimIndex(d, shape.length)] = (items as FTensor[]).reduce(
        (s, t) => s + t.shape[dimIndex(d, t.shape.length)],
        0,
      );
    else shape.splice(dimIndex(d, shape.length + 1), 0, items.length);
    return op.output(trace, shape, trace.promote(...(items as FTensor[])), ...(items as FTensor[]));
  }
  const t = x as FTensor;
  if (name === 'F.linear') {
    const w = args[1];
    if (!isTensor(w)) return undefined;
    return op.linear(trace, {
      x: t,
      inFeatures: w.shape[1],
      outFeatures: w.shape[0],
      weightParams: numel(w.shape),
    });
  }
  if (name === 'F.embedding') {
    const w = args[1];
    return isTensor(w) ? op.embedding(trace, { ids: t, dim: w.shape[1] }) : undefined;
  }
  if (name === 'F.scaled_dot_product_attention') {
    const [q, k, v] = args;
    return isTensor(q) && isTensor(k) && isTensor(v) ? op.sdpa(trace, { q, k, v }) : undefined;
  }
  if (name === 'F.cross_entropy' || name === 'F.nll_loss') {
    const target = args[1];
    return op.crossEntropy(trace, { logits: t, target: isTensor(target) ? target : undefined });
  }
  if (/^F\.(mse_loss|l1_loss|smooth_l1_loss|huber_loss|binary_cross_entropy_with_logits)$/.test(name)) {
    const target = args[1];
    return op.pointLoss(trace, { x: t, target: isTensor(target) ? target : undefined });
  }
  if (name === 'F.dropout') {
    const p = numberOf(arg(args, keywords, 'p', 1)) ?? 0.5;
    const training = arg(args, keywords, 'training', 2);
    return op.dropout(trace, { x: t, p, training: training?.kind === 'bool' ? training.value : true });
  }
  if (name === 'F.layer_norm' || name === 'F.group_norm' || name === 'F.rms_norm') {
    const rows = numel(t.shape.slice(0, -1));
    return op.norm(trace, { x: t, rows, withMean: name !== 'F.rms_norm' });
  }
  if (/^(F|torch)\.(softmax|log_softmax)$/.test(name)) return op.softmax(trace, t);
  if (/^(torch)\.(matmul|bmm|mm)$/.test(name))
    return isTensor(args[1]) ? op.matmul(trace, t, args[1]) : undefined;
  if (name === 'torch.flatten')
    return flatten(
      t,
      numberOf(arg(args, keywords, 'start_dim', 1)) ?? 0,
      numberOf(arg(args, keywords, 'end_dim', 2)) ?? -1,
    );
  if (/^F\.adaptive_(avg|max)_pool[123]d$/.test(name)) {
    const dims = Number(name.slice(-2, -1));
    const size = intList([args[1]]) ?? [];
    const out = size.length === 1 ? Array(dims).fill(size[0]) : size;
    return op.pool(trace, { x: t, outSpatial: out, max: name.includes('max') });
  }
  if (/^F\.(pad|interpolate)$/.test(name)) return undefined;
  if (/^(F|torch)\.\w+$/.test(name) && short in op.UNARY) {
    const inplace = keywords.get('inplace');
    return op.unary(trace, { name: short, x: t, inplace: inplace?.kind === 'bool' && inplace.value });
  }
  if (/^torch\.(tril|triu|clone)$/.test(name)) return op.output(trace, t.shape, t.dtype, t);
  if (
    /^torch\.(mean|sum)$/.test(name) ||
    /^torch\.(transpose|permute|reshape|split|chunk|unsqueeze|squeeze)$/.test(name)
  )
    return tensorMethod(trace, { t, name: short, args: args.slice(1), keywords });
  if (name === 'torch.where') {
    const [a, b] = [args[1], args[2]].map((v) => (isTensor(v) ? v : undefined));
    if (trace.tracks(a, b)) trace.save(t);
    return op.output(trace, t.shape, trace.promote(a, b), a, b);
  }
  void input.callModule;
  return undefined;
}

/** Tensor methods: views, reshapes, reductions, casts, pointwise ops. */
export function tensorMethod(
  trace: Trace,
  input: { t: FTensor; name: string; args: FValue[]; keywords: Map<string, FValue> },
): FValue | undefined {
  const { t, name, args, keywords } = input;
  const rank = t.shape.length;
  const dimArg = (index: number, fallback?: number) =>
    numberOf(arg(args, keywords, 'dim', index)) ?? fallback;
  switch (name) {
    case 'size': {
      const d = dimArg(0);
      return d === undefined ? seq(t.shape.map(num), true) : num(t.shape[dimIndex(d, rank)]);
    }
    case 'dim':
    case 'ndimension':
      return num(rank);
    case 'numel':
      return num(numel(t.shape));
    case 'view':
    case 'reshape':
    case 'view_as':
    case 'reshape_as': {
      const target = name.endsWith('_as') ? (isTensor(args[0]) ? args[0].shape : undefined) : intList(args);
      const shape = target && resolveShape(target, numel(t.shape));
      if (!shape) return undefined;
      return name.startsWith('view') ? view(t, shape) : reshape(t, shape);
    }
    case 'flatten':
      return flatten(t, dimArg(0, 0) ?? 0, numberOf(arg(args, keywords, 'end_dim', 1)) ?? -1);
    case 'unflatten': {
      const d = dimIndex(dimArg(0) ?? 0, rank);
      const sizes = intList([args[1]]);
      if (!sizes) return undefined;
      const inner = resolveShape(sizes, t.shape[d]);
      return (
        inner &&
        view(
          t,
          [...t.shape.slice(0, d), ...inner, ...t.shape.slice(d + 1)],
          [
            ...t.perm.slice(0, d),
            ...inner.map((_, i) => t.perm[d] + i / inner.length),
            ...t.perm.slice(d + 1),
          ],
        )
      );
    }
    case 'transpose':
    case 'swapaxes': {
      const a = numberOf(args[0]);
      const b = numberOf(args[1]);
      return a === undefined || b === undefined ? undefined : transpose(t, a, b);
    }
    case 't':
      return rank === 2 ? transpose(t, 0, 1) : t;
    case 'permute': {
      const dims = intList(args)?.map((d) => dimIndex(d, rank));
      if (!dims || dims.length !== rank) return undefined;
      return { ...t, shape: dims.map((d) => t.shape[d]), perm: dims.map((d) => t.perm[d]) };
    }
    case 'contiguous':
      return t.perm.every((p, i) => p === i)
        ? t
        : { ...fresh({ shape: t.shape, dtype: t.dtype, requiresGrad: t.requiresGrad }) };
    case 'unsqueeze': {
      const d = dimIndex(dimArg(0) ?? 0, rank + 1);
      const shape = [...t.shape];
      shape.splice(d, 0, 1);
      const perm = [...t.perm];
      perm.splice(d, 0, d === 0 ? -0.5 : t.perm[d - 1] + 0.5);
      return { ...t, shape, perm: normalisePerm(perm) };
    }
    case 'squeeze': {
      const d = dimArg(0);
      const keep = t.shape.map((s, i) => (d === undefined ? s !== 1 : i !== dimIndex(d, rank) || s !== 1));
      return {
        ...t,
        shape: t.shape.filter((_, i) => keep[i]),
        perm: normalisePerm(t.perm.filter((_, i) => keep[i])),
      };
    }
    case 'expand': {
      const sizes = intList(args);
      if (!sizes) return undefined;
      const shape = sizes.map((s, i) => (s === -1 ? t.shape[i - (sizes.length - rank)] : s));
      return {
        ...t,
        shape,
        perm: shape.map((_, i) => (i < shape.length - rank ? -1 : t.perm[i - (shape.length - rank)])),
      };
    }
    case 'expand_as':
      return isTensor(args[0])
        ? { ...t, shape: [...args[0].shape], perm: args[0].shape.map(() => -1) }
        : undefined;
    case 'split':
    case 'chunk':
    case 'tensor_split':
    case 'unbind': {
      const d = dimIndex(name === 'unbind' ? (dimArg(0) ?? 0) : (dimArg(1) ?? 0), rank);
      const first = args[0];
      const sizes =
        name === 'unbind'
          ? Array(t.shape[d]).fill(1)
          : op.splitSizes(
              t.shape[d],
              name === 'chunk'
                ? { parts: numberOf(first) }
                : first?.kind === 'seq'
                  ? { sizes: intList([first]) }
                  : { size: numberOf(first) },
            );
      return seq(
        sizes.map((s) =>
          T(
            view(
              t,
              name === 'unbind' ? op.dropDim(t.shape, d) : t.shape.map((v, i) => (i === d ? s : v)),
              name === 'unbind' ? normalisePerm(t.perm.filter((_, i) => i !== d)) : t.perm,
            ),
          ),
        ),
        true,
      );
    }
    case 'detach':
      return { ...t, requiresGrad: false };
    case 'float':
    case 'half':
    case 'bfloat16':
    case 'to':
    case 'type_as':
    case 'type': {
      const target: Dtype | undefined =
        name === 'float'
          ? 'f32'
          : name === 'half'
            ? 'f16'
            : name === 'bfloat16'
              ? 'bf16'
              : name === 'type_as' && isTensor(args[0])
                ? args[0].dtype
                : dtypeNamed(keywords.get('dtype') ?? args[0]);
      if (!target || target === t.dtype) return t;
      return op.output(trace, t.shape, target, t);
    }
    case 'masked_fill':
    case 'masked_fill_': {
      const mask = args[0];
      if (trace.tracks(t) && isTensor(mask)) trace.save(mask);
      return name.endsWith('_') ? t : op.output(trace, t.shape, t.dtype, t);
    }
    case 'softmax':
    case 'log_softmax':
      return op.softmax(trace, t);
    case 'sum':
    case 'mean':
    case 'amax':
    case 'var':
    case 'std':
    case 'norm': {
      const dimValue = arg(args, keywords, 'dim', name === 'norm' ? 1 : 0);
      const keep = arg(args, keywords, 'keepdim', name === 'norm' ? 2 : 1);
      const dims =
        dimValue === undefined || dimValue.kind === 'none'
          ? t.shape.map((_, i) => i)
          : intList([dimValue])?.map((d) => dimIndex(d, rank));
      if (!dims) return undefined;
      const keepdim = keep?.kind === 'bool' && keep.value;
      const shape = keepdim
        ? t.shape.map((s, i) => (dims.includes(i) ? 1 : s))
        : t.shape.filter((_, i) => !dims.includes(i));
      if (trace.tracks(t) && name !== 'sum' && name !== 'mean') trace.save(t);
      return op.output(
        trace,
        shape,
        name === 'mean' || name === 'sum' ? t.dtype : trace.castFor(t, 'fp32').dtype,
        t,
      );
    }
    case 'pow': {
      const e = numberOf(args[0]);
      if (e === undefined) return undefined;
      return op.unary(trace, { name: 'square', x: t });
    }
    case 'clone':
    case 'repeat':
    case 'tril':
    case 'triu': {
      const reps = name === 'repeat' ? intList(args) : undefined;
      const shape = reps ? reps.map((r, i) => r * (t.shape[i - (reps.length - rank)] ?? 1)) : t.shape;
      return op.output(trace, shape, t.dtype, t);
    }
    case 'matmul':
      return isTensor(args[0]) ? op.matmul(trace, t, args[0]) : undefined;
    case 'add':
    case 'sub':
    case 'mul':
    case 'div':
    case 'add_':
    case 'mul_':
      return binaryTensor(
        trace,
        { add: '+', sub: '-', mul: '*', div: '/' }[name.replace('_', '')]!,
        t,
        args[0],
      );
    case 'zero_':
    case 'fill_':
    case 'bernoulli_':
    case 'uniform_':
    case 'normal_':
      return t;
    case 'div_':
    case 'sub_':
      return binaryTensor(trace, name === 'div_' ? '/' : '-', t, args[0]);
    default:
      if (name in op.UNARY || name.replace(/_$/, '') in op.UNARY)
        return op.unary(trace, { name: name.replace(/_$/, ''), x: t, inplace: name.endsWith('_') });
      return undefined;
  }
}

/** Ranks of a permutation with gaps or fractional entries, as 0..n-1 (keeps the order). */
function normalisePerm(perm: number[]): number[] {
  const sorted = [...perm].map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const out = Array<number>(perm.length);
  sorted.forEach(([, i], rank) => (out[i] = rank));
  return out;
}

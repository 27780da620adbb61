// Small 1-D tensors whose values matter for sizes: architectures that compute their widths
// with torch (RegNet: `torch.arange(depth) * w_a + w_0`, `torch.round(torch.log(...))`,
// `.int().tolist()`) or numpy (`np.linspace(0, p, n).tolist()`). Float tensors follow torch's
// default dtype, float32 (every result is rounded to float32, as torch stores it); integer
// tensors stay exact. Anything else keeps only its shape.
import { num, seq, type TensorValue, type Value } from './values';

/** Longest tensor whose values are tracked. */
const MAX_VALUES = 10_000;

/** A tensor with known values (`integral` for int64 tensors). */
export function valuedTensor(input: {
  data: number[];
  integral: boolean;
  text: string;
  float64?: boolean;
}): TensorValue {
  const data = input.integral || input.float64 ? input.data : input.data.map(Math.fround);
  return {
    kind: 'tensor',
    shape: [data.length],
    text: input.text,
    data,
    integral: input.integral,
    float64: input.float64,
  };
}

/** `torch.arange(a[, b[, step]])` with known numbers: int64 when all are integers, else float32. */
export function arangeValues(values: (number | undefined)[], text: string): TensorValue | undefined {
  const [a, b, step = 1] = values;
  if (a === undefined || step === 0) return undefined;
  const [start, end] = b === undefined ? [0, a] : [a, b];
  const count = Math.ceil((end - start) / step);
  if (!(count >= 0) || count > MAX_VALUES) return undefined;
  const integral = [start, end, step].every(Number.isInteger);
  return valuedTensor({ data: Array.from({ length: count }, (_, i) => start + i * step), integral, text });
}

/** `np.linspace(start, stop, num)` (float64, endpoint included); `torch.linspace` passes `float64: false` (float32, torch's default dtype). */
export function linspaceValues(
  values: (number | undefined)[],
  text: string,
  float64 = true,
): TensorValue | undefined {
  const [start, stop, count] = values;
  if (start === undefined || stop === undefined || count === undefined || count > MAX_VALUES || count < 0)
    return undefined;
  const step = count > 1 ? (stop - start) / (count - 1) : 0;
  return valuedTensor({
    data: Array.from({ length: count }, (_, i) => (i === count - 1 && count > 1 ? stop : start + i * step)),
    integral: false,
    float64,
    text,
  });
}

/** The elements of a valued 1-D tensor as 0-d tensors (iterating a tensor walks its first dimension). */
export function tensorElements(tensor: TensorValue): TensorValue[] | undefined {
  if (!tensor.data || tensor.shape?.length !== 1) return undefined;
  return tensor.data.map((x) => ({ ...tensor, shape: [], data: [x] }));
}

/** Elementwise `left op right` where at least one side is a valued tensor and the other a number or valued tensor. */
export function tensorArithmetic(
  op: string,
  left: Value,
  right: Value,
  text: string,
): TensorValue | undefined {
  const side = (v: Value) =>
    v.kind === 'tensor' && v.data
      ? { data: v.data, integral: !!v.integral, float64: !!v.float64 }
      : v.kind === 'num'
        ? { scalar: v.value, integral: Number.isInteger(v.value) }
        : undefined;
  const a = side(left);
  const b = side(right);
  if (!a || !b) return undefined;
  const length = 'data' in a ? a.data!.length : (b as { data: number[] }).data.length;
  if ('data' in a && 'data' in b && a.data!.length !== b.data!.length) return undefined;
  const at = (s: typeof a, i: number) => ('data' in s ? s.data![i] : (s as { scalar: number }).scalar);
  // Python scalars do not promote a tensor's dtype (torch's type promotion), except int tensor ⊕ float scalar → float.
  const integral = a.integral && b.integral && op !== '/';
  const float64 = ('float64' in a && !!a.float64) || ('float64' in b && !!b.float64);
  const data: number[] = [];
  for (let i = 0; i < length; i++) {
    const x = at(a, i);
    const y = at(b, i);
    const value = arithmetic(op, x, y);
    if (value === undefined) return undefined;
    data.push(value);
  }
  return valuedTensor({ data, integral, float64, text });
}

function arithmetic(op: string, x: number, y: number): number | undefined {
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '//':
      return Math.floor(x / y);
    case '**':
      return x ** y;
    default:
      return undefined;
  }
}

/** Python's round(): halves go to the even neighbour (torch.round does the same). */
export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (diff !== 0.5) return Math.round(value);
  return floor % 2 === 0 ? floor : floor + 1;
}

const UNARY: Record<string, (x: number) => number> = {
  round: roundHalfEven,
  log: Math.log,
  exp: Math.exp,
  abs: Math.abs,
  sqrt: Math.sqrt,
  neg: (x) => -x,
  floor: Math.floor,
  ceil: Math.ceil,
};

/** `torch.round(t)`, `torch.log(t)`, ... on a valued tensor; undefined when not one of them. */
export function tensorUnary(name: string, tensor: TensorValue, text: string): TensorValue | undefined {
  const fn = UNARY[name];
  if (!fn || !tensor.data) return undefined;
  const integral = !!tensor.integral && ['round', 'abs', 'neg', 'floor', 'ceil'].includes(name);
  return valuedTensor({ data: tensor.data.map(fn), integral, float64: tensor.float64, text });
}

/** Methods of a valued tensor: `.int()`, `.long()`, `.float()`, `.tolist()`, `.diff()`; undefined for others. */
export function tensorMethod(name: string, tensor: TensorValue, text: string): Value | undefined {
  if (!tensor.data) return undefined;
  switch (name) {
    case 'int':
    case 'long':
      return valuedTensor({ data: tensor.data.map(Math.trunc), integral: true, text });
    case 'float':
      return valuedTensor({ data: tensor.data, integral: false, text });
    case 'tolist':
      return tensor.shape?.length === 0 ? num(tensor.data[0]) : seq(tensor.data.map(num));
    case 'item':
      // Tensor.item(): the value of a one-element tensor as a Python number.
      return tensor.data.length === 1 ? num(tensor.data[0]) : undefined;
    case 'diff':
      return valuedTensor({
        data: tensor.data.slice(1).map((x, i) => x - tensor.data![i]),
        integral: !!tensor.integral,
        float64: tensor.float64,
        text,
      });
    default:
      return tensorUnary(name, tensor, text);
  }
}

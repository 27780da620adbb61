// SL108: `torch.tensor(python_value, device=cuda)` in a training step — a blocking copy from
// pageable host memory every step.
import type { SyntaxNode } from '../parse/syntax';
import {
  fieldOf,
  firstPositionalArg,
  hasSplat,
  keywordArg,
  methodCall,
  positionalArgs,
  unwrap,
} from '../analysis/syntax-helpers';
import { isCpuDevice, isTensor, toDeviceArgument } from './sync-helpers';
import type { FileModel } from '../analysis/file-model';
import type { Fix, Rule } from './types';
import { sl108Text } from './messages/sl1';

const FACTORIES = /^torch\.(tensor|as_tensor)$/;
const FULL_KEYWORDS = new Set(['dtype', 'device', 'requires_grad']);

/**
 * `torch.tensor(value, device="cuda")` in a training step: a blocking host→device copy each step.
 *
 * ## What it does
 * Flags `torch.tensor(value, device=d)` / `torch.as_tensor(value, device=d)` where `value` is not
 * a tensor and `d` is not visibly the CPU, and `torch.tensor(value).cuda()` / `.to(d)`, in a
 * training step.
 *
 * ## Why is this bad?
 * The Python value is copied from pageable host memory, a blocking copy (`torch.tensor(value,
 * device="cuda")` is reported by `set_sync_debug_mode`). A host–device sync makes the CPU wait
 * until every kernel already queued on the GPU has finished; then the GPU sits idle while Python
 * runs and launches the next kernels. CUDA work is asynchronous (PyTorch docs, *CUDA semantics —
 * Asynchronous execution*), so for a step whose kernels take milliseconds, the host waits that
 * whole queue every step and the launch latency of the next step (tens of microseconds per kernel,
 * hundreds of kernels) becomes GPU idle time. `torch.cuda.set_sync_debug_mode("warn")` reports
 * these syncs (PyTorch docs, *torch.cuda.set_sync_debug_mode*; the list of ops it reports was
 * measured with PyTorch 2.11 on an H100).
 *
 * ## Example
 * ```python
 * loss = loss + torch.tensor(0.0, device=device)
 * ```
 *
 * ## Use instead
 * ```python
 * loss = loss + torch.full((), 0.0, device=device)   # a fill kernel, no copy
 * # or build the tensor once before the loop
 * ```
 *
 * ## Quick fix
 * For a numeric literal, `torch.tensor(0.0, device=d)` → `torch.full((), 0.0, device=d)` (same
 * value, dtype — `full` infers float32/int64 like `tensor` — and device; `dtype=` and
 * `requires_grad=` are kept). No fix for lists or variables.
 */
export const sl108: Rule = {
  code: 'SL108',
  name: 'tensor-from-python-on-device',
  category: 'sync',
  severity: 'by-role',
  summary: '`torch.tensor(value, device="cuda")` in a training step: a blocking host→device copy each step.',
  check({ model, report }) {
    // `torch.tensor(...)` / `torch.as_tensor(...)`, or `.cuda()` / `.to(...)` of one.
    for (const call of model.callNames.namedAny(['tensor', 'as_tensor', 'cuda', 'to'])) {
      const factory = deviceFactory(model, call);
      if (!factory) continue;
      const fix = factory === call ? fullFix(model, call) : undefined;
      report({
        node: call,
        ...sl108Text({ model, node: call }),
        fixes: fix ? [fix] : [],
      });
    }
  },
};

/** The `torch.tensor(...)` call when `call` builds a device tensor from a Python value. */
function deviceFactory(model: FileModel, call: SyntaxNode): SyntaxNode | undefined {
  if (isFactory(model, call)) {
    const device = keywordArg(call, 'device');
    return device && !isCpuDevice(model, device) ? call : undefined;
  }
  const method = methodCall(call);
  if (!method || (method.name !== 'cuda' && method.name !== 'to')) return undefined;
  const inner = unwrap(method.receiver);
  if (inner.type !== 'call' || !isFactory(model, inner) || keywordArg(inner, 'device')) return undefined;
  if (method.name === 'to') {
    const target = toDeviceArgument(call);
    if (!target || isCpuDevice(model, target) || isDtype(model, target)) return undefined;
  }
  return call;
}

function isFactory(model: FileModel, call: SyntaxNode): boolean {
  const qualified = model.imports.resolve(fieldOf(call, 'function')!);
  if (!qualified || !FACTORIES.test(qualified) || hasSplat(call)) return false;
  const data = firstPositionalArg(call) ?? keywordArg(call, 'data');
  return !!data && !isTensor(model, data) && model.kindOf(unwrap(data)) !== 'numpy';
}

function isDtype(model: FileModel, node: SyntaxNode): boolean {
  return /^torch\.(float|half|bfloat|int|long|bool|double|uint|complex)\w*$/.test(
    model.imports.resolve(node) ?? '',
  );
}

/** `torch.tensor(0.0, device=d)` → `torch.full((), 0.0, device=d)`: same value, dtype and device, no copy. */
function fullFix(model: FileModel, call: SyntaxNode): Fix | undefined {
  const args = positionalArgs(call);
  const value = args[0] && unwrap(args[0]);
  if (args.length !== 1 || !value || !/^-?\s*\d[\d_]*(\.\d*)?([eE][-+]?\d+)?$/.test(value.text))
    return undefined;
  const callee = fieldOf(call, 'function')!;
  if (!/^torch\.tensor$/.test(model.imports.resolve(callee) ?? '')) return undefined;
  const keywords = fieldOf(call, 'arguments')!.children.filter((c) => c.type === 'keyword_argument');
  if (keywords.some((k) => !FULL_KEYWORDS.has(fieldOf(k, 'name')?.text ?? ''))) return undefined;
  const prefix = callee.type === 'attribute' ? fieldOf(callee, 'object')!.text + '.' : '';
  const rest = keywords.map((k) => k.text).join(', ');
  return {
    title: `Use \`${prefix}full((), ${value.text}, ...)\`: a fill kernel, no host→device copy`,
    edits: [
      { range: { start: call.start, end: call.end }, newText: `${prefix}full((), ${value.text}, ${rest})` },
    ],
  };
}

// Shared pieces of the SL1xx (host–device synchronisation) rules: the cost sentence each
// message carries (worded by role), tests for device-to-host copies, builtin calls, CPU
// device arguments and boolean-mask tensors.
import type { FileModel } from '../analysis/file-model';
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, firstPositionalArg, keywordArg, methodCall, unwrap } from '../analysis/syntax-helpers';
import { lastAssignedValue } from '../analysis/assignment-index';
import { perModel } from '../analysis/per-model';
import { matchesAtLiteral } from '../analysis/text-search';

export { lastAssignedValue } from '../analysis/assignment-index';

/** Whether the analysis shows `node` is a tensor. */
export function isTensor(model: FileModel, node: SyntaxNode): boolean {
  return model.kindOf(unwrap(node)) === 'tensor';
}

const HOST_FACTORIES =
  /^torch\.(zeros|ones|empty|full|arange|linspace|logspace|tensor|as_tensor|from_numpy|rand|randn|randint|randperm|eye)$/;

/**
 * Whether a tensor visibly lives on the host: a device→host copy (`x.cpu()`, `x.to("cpu")`),
 * a torch factory without `device=` (unless the file sets a default device), indexing of
 * one, or a name last assigned one of those in the same function. Reading such a tensor
 * does not synchronise.
 */
export function isHostResident(model: FileModel, node: SyntaxNode, depth = 0): boolean {
  const target = unwrap(node);
  if (depth > 6) return false;
  if (target.type === 'subscript') return isHostResident(model, fieldOf(target, 'value')!, depth + 1);
  if (target.type === 'identifier') {
    const value = lastAssignedValue(model, target);
    if (value) return isHostResident(model, value, depth + 1);
    // A name bound by a loop or comprehension over a host tensor (`for i in ix`) is a host element.
    const iterable = bindingIterable(target);
    return !!iterable && isHostResident(model, iterable, depth + 1);
  }
  if (target.type !== 'call') return false;
  if (chainHasHostCopy(model, target)) return true;
  const qualified = model.imports.resolve(fieldOf(target, 'function')!);
  if (!qualified || !HOST_FACTORIES.test(qualified) || keywordArg(target, 'device')) return false;
  return !setsDefaultDevice(model);
}

/** The iterable of the nearest `for` loop or comprehension clause binding `name`, if any. */
function bindingIterable(name: SyntaxNode): SyntaxNode | undefined {
  for (let current = name.parent; current; current = current.parent) {
    if (current.type === 'function_definition') return undefined;
    const clauses =
      current.type === 'for_statement'
        ? [current]
        : /comprehension|generator_expression/.test(current.type)
          ? current.children.filter((c) => c.type === 'for_in_clause')
          : [];
    for (const clause of clauses) {
      const left = fieldOf(clause, 'left');
      if (left && (left.text === name.text || left.children.some((c) => c.text === name.text)))
        return fieldOf(clause, 'right');
    }
  }
  return undefined;
}

/** Per model: whether the file sets a default device (`set_default_device(...)`, `with torch.device(...):`). */
const setsDefaultDevice = perModel((model) => {
  const text = model.source.text;
  return (
    matchesAtLiteral(text, 'set_default_device', /\bset_default_device\s*\(/y) ||
    matchesAtLiteral(text, 'torch.device(', /torch\.device\([^)]*\)\s*:/y)
  );
});

/** Whether `node` is a tensor that may live on the GPU: a tensor not shown to be on the host. */
export function isDeviceTensor(model: FileModel, node: SyntaxNode): boolean {
  return isTensor(model, node) && !isHostResident(model, node);
}

/** `` `loss` `` for short expressions, `the tensor` for long ones. */
export function displayName(node: SyntaxNode): string {
  return node.text.length <= 40 && !node.text.includes('\n') ? `\`${node.text}\`` : 'the tensor';
}

/**
 * The cost of one host–device sync, worded for where it runs. Sources: PyTorch "CUDA
 * semantics — Asynchronous execution"; `torch.cuda.set_sync_debug_mode` (the ops it reports,
 * measured with PyTorch 2.11 on an H100, are listed in test/sync-ops/sync-ops.json).
 */
export function syncCost(model: FileModel, node: SyntaxNode): string {
  const guard = model.guardOf(node);
  if (guard?.kind === 'opt-in')
    return guard.defaultShown
      ? `It runs only when \`${guard.flag}\` is set, which is off by default; when on, it stalls every step.`
      : `It runs only when \`${guard.flag}\` is set, an option whose default this file does not show; when on, it stalls every step.`;
  if (guard?.kind === 'after-sync')
    return (
      'It comes right after an explicit synchronize, so no kernel is queued and it adds almost nothing; ' +
      'the synchronize before it is the stall.'
    );
  switch (model.roleOf(node)) {
    case 'logging':
      return 'This runs once per log interval, so the stall is amortised and usually fine.';
    case 'eval':
      return 'In an evaluation loop the stall costs little next to training.';
    default:
      if (guard?.kind === 'rank0')
        return (
          'It runs every training step on rank 0: rank 0 stalls while its queue drains, and the other ' +
          'ranks wait for it at the next collective.'
        );
      return (
        'It runs every training step: the host waits for the whole queue of kernels to drain, ' +
        'then the GPU idles while Python launches the next step.'
      );
  }
}

/** Whether `node` is a Python builtin call `name(...)` with `name` in `names`, not rebound in the file. */
export function builtinCall(
  model: FileModel,
  call: SyntaxNode,
  names: ReadonlySet<string>,
): string | undefined {
  const callee = fieldOf(call, 'function');
  if (!callee || callee.type !== 'identifier' || !names.has(callee.text)) return undefined;
  if (model.imports.lookup(callee.text)) return undefined;
  if (definedFunctionNames(model).has(callee.text)) return undefined;
  return callee.text;
}

/** Per model: the names of the functions defined in the file (asked once per builtin call). */
const definedFunctionNames = perModel(
  (model) => new Set(model.nodes.function_definition.map((fn) => fieldOf(fn, 'name')?.text)),
);

/** The text of a plain string literal (`'cpu'`), or undefined. */
export function stringLiteral(node: SyntaxNode | undefined): string | undefined {
  const target = node && unwrap(node);
  if (!target || target.type !== 'string' || target.children.some((c) => c.type === 'interpolation'))
    return undefined;
  const match = /^[rRbBuU]?(['"])(.*)\1$/s.exec(target.text);
  return match ? match[2] : undefined;
}

/** Whether a device argument is visibly the CPU: `'cpu'`, `"cpu:0"`, `torch.device('cpu')`. */
export function isCpuDevice(model: FileModel, node: SyntaxNode | undefined): boolean {
  const target = node && unwrap(node);
  if (!target) return false;
  const literal = stringLiteral(target);
  if (literal !== undefined) return /^cpu(:\d+)?$/.test(literal);
  if (target.type === 'call' && model.imports.resolve(fieldOf(target, 'function')!) === 'torch.device')
    return isCpuDevice(model, firstPositionalArg(target) ?? keywordArg(target, 'type'));
  return false;
}

/** Whether a call passes `non_blocking=True`. */
export function isNonBlocking(call: SyntaxNode): boolean {
  return keywordArg(call, 'non_blocking')?.text === 'True';
}

/** The device argument of `x.to(...)`: first positional or `device=`. */
export function toDeviceArgument(call: SyntaxNode): SyntaxNode | undefined {
  return keywordArg(call, 'device') ?? firstPositionalArg(call);
}

/**
 * For `t.cpu()` / `t.to('cpu')` / `t.to(torch.device('cpu'))` on a tensor: the receiver and
 * whether the copy is non-blocking; undefined for other calls (and for modules).
 */
export function hostCopy(
  model: FileModel,
  call: SyntaxNode,
): { receiver: SyntaxNode; nonBlocking: boolean } | undefined {
  const method = methodCall(call);
  if (!method || (method.name !== 'cpu' && method.name !== 'to') || !isTensor(model, method.receiver))
    return undefined;
  const isCopy =
    method.name === 'cpu' || (method.name === 'to' && isCpuDevice(model, toDeviceArgument(call)));
  return isCopy ? { receiver: method.receiver, nonBlocking: isNonBlocking(call) } : undefined;
}

/** Whether a method chain below `node` already copies to the host (`x.cpu().numpy()`): report that copy instead. */
export function chainHasHostCopy(model: FileModel, node: SyntaxNode): boolean {
  for (let current: SyntaxNode | undefined = unwrap(node); current?.type === 'call';) {
    if (hostCopy(model, current)) return true;
    current = methodCall(current)?.receiver;
    current = current && unwrap(current);
  }
  return false;
}

const BOOL_FUNCTIONS =
  /^torch\.(isnan|isinf|isfinite|isneginf|isposinf|logical_(and|or|not|xor)|eq|ne|lt|le|gt|ge|isin|bernoulli)$/;
const BOOL_METHODS = /^(bool|isnan|isinf|isfinite|logical_(and|or|not|xor)|eq|ne|lt|le|gt|ge)$/;

/**
 * Whether `node` is visibly a boolean tensor: a comparison of tensors, `.bool()`,
 * `torch.isnan(...)`, `logical_*`, `~`/`&`/`|` of those, or a name last assigned one of them
 * in the same function.
 */
export function isBoolTensor(model: FileModel, node: SyntaxNode, depth = 0): boolean {
  const target = unwrap(node);
  if (depth > 8 || !isTensor(model, target)) return false;
  switch (target.type) {
    case 'comparison_operator':
      return !/\b(is|in)\b/.test(target.operator ?? '');
    case 'unary_operator':
      return target.operator === '~' && isBoolTensor(model, target.children[0], depth + 1);
    case 'binary_operator':
      return (
        /^[&|^]$/.test(target.operator ?? '') &&
        target.children.every((c) => isBoolTensor(model, c, depth + 1))
      );
    case 'call': {
      const method = methodCall(target);
      const qualified = model.imports.resolve(fieldOf(target, 'function')!);
      if (qualified) return BOOL_FUNCTIONS.test(qualified);
      return !!method && BOOL_METHODS.test(method.name);
    }
    case 'identifier': {
      const value = lastAssignedValue(model, target);
      return !!value && isBoolTensor(model, value, depth + 1);
    }
    default:
      return false;
  }
}

// SL103: `float(t)`, `int(t)`, `bool(t)`, `torch.allclose`/`torch.equal` — a tensor turned into a Python scalar.
import { fieldOf, methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { builtinCall, isDeviceTensor, isTensor } from './sync-helpers';
import type { Rule } from './types';
import type { FileModel } from '../analysis/file-model';
import type { SyntaxNode } from '../parse/syntax';
import { sl103BoolText, sl103BuiltinText } from './messages/sl1';

const CONVERSIONS = new Set(['float', 'int', 'bool', 'complex', 'all', 'any']);
/** `math` functions convert their argument with `float()` (or `operator.index`). */
const MATH_FUNCTION = /^math\.\w+$/;
const BOOL_RESULT = /^(allclose|equal|is_nonzero)$/;
/** The last names of `torch.allclose`, `torch.equal` and the {@link BOOL_RESULT} methods. */
const BOOL_RESULT_NAMES = ['allclose', 'equal', 'is_nonzero'];

/**
 * `float()`/`int()`/`bool()` of a tensor (or `allclose`/`equal`) syncs the GPU.
 *
 * ## What it does
 * Flags `float(t)`, `int(t)`, `bool(t)` of a tensor, and `torch.allclose`, `torch.equal`,
 * `t.is_nonzero()`, which return a Python bool. Plain numbers (`float(args.lr)`,
 * `int(os.environ["RANK"])`, `float(lr)` where `lr` is computed from numbers) are never flagged.
 * Also flags `all(t)` / `any(t)` (a `bool()` per element), `math` functions of a tensor
 * (`math.exp(loss)` calls `float()`), and a tensor used as a slice bound (`x[:n]` calls
 * `operator.index`).
 * When only a loader's name suggests the value is a tensor (`for x, y in train_loader` with
 * nothing showing what `train_loader` is, and no element passed to a module, a loss or
 * `.backward()`), the finding is information at most, and its hover says why.
 *
 * ## Why is this bad?
 * A Python number can only be made from the value on the host. `float(t)`, `bool(t)` and
 * `allclose` are in the list `set_sync_debug_mode` reports. A host–device sync makes the CPU wait
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
 * running_loss += float(loss)
 * ```
 *
 * ## Use instead
 * ```python
 * running_loss += loss.detach()   # convert once per log interval
 * ```
 *
 * ## Quick fix
 * None: the safe change depends on what the value is used for.
 */
export const sl103: Rule = {
  code: 'SL103',
  name: 'python-scalar-of-tensor',
  category: 'sync',
  severity: 'by-role',
  summary: '`float()`/`int()`/`bool()` of a tensor (or `allclose`/`equal`) syncs the GPU.',
  check({ model, report }) {
    // Three kinds of call, each found apart: a builtin is a name no import binds, a `math`
    // function's callee resolves through an import, a bool result is `torch.X` or a method.
    for (const call of model.callNames.namedAny(CONVERSIONS)) {
      const builtin = builtinCall(model, call, CONVERSIONS);
      const args = builtin ? positionalArgs(call) : undefined;
      if (builtin && args && args.length === 1 && isDeviceTensor(model, args[0]))
        report({
          node: call,
          tensors: [args[0]],
          ...sl103BuiltinText({ model, node: call, builtin, argument: args[0] }),
        });
    }
    // A callee resolves to `math.X` only through an import of `math` (no last name to look up).
    for (const call of model.imports.importsFrom('math') ? model.nodes.call : []) {
      const qualified = model.imports.resolve(fieldOf(call, 'function')!);
      const mathArgs = qualified && MATH_FUNCTION.test(qualified) ? positionalArgs(call) : undefined;
      if (qualified && mathArgs && mathArgs.length >= 1 && isDeviceTensor(model, mathArgs[0]))
        report({
          node: call,
          tensors: [mathArgs[0]],
          ...sl103BuiltinText({ model, node: call, builtin: qualified, argument: mathArgs[0] }),
        });
    }
    for (const call of model.callNames.namedAny(BOOL_RESULT_NAMES)) {
      const qualified = model.imports.resolve(fieldOf(call, 'function')!);
      const method = methodCall(call);
      const torchBool = qualified && /^torch\.(allclose|equal)$/.test(qualified);
      const methodBool =
        !qualified && method && BOOL_RESULT.test(method.name) && isTensor(model, method.receiver);
      if (!torchBool && !methodBool) continue;
      report({
        node: call,
        tensors: methodBool ? [method!.receiver] : [],
        ...sl103BoolText({ model, node: call, callee: torchBool ? qualified : `.${method!.name}()` }),
      });
    }
    // `x[:n]` with a tensor `n`: Python converts the bound with `operator.index`, a host read.
    for (const slice of sliceBounds(model)) {
      report({
        node: slice,
        tensors: [slice],
        ...sl103BuiltinText({ model, node: slice, builtin: 'operator.index', argument: slice }),
      });
    }
  },
};

/** Device tensors used as the bounds of a slice (`x[:n]`, `x[a:b]`). */
function sliceBounds(model: FileModel): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (const subscript of model.nodes.subscript) {
    for (const index of subscript.children) {
      if (index.field !== 'subscript' || index.type !== 'slice') continue;
      for (const bound of index.children)
        if ((bound.type === 'identifier' || bound.type === 'call') && isDeviceTensor(model, bound))
          found.push(bound);
    }
  }
  return found;
}

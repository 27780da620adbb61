// Message texts of the SL1xx (host–device synchronisation) rules: a short sentence naming
// the sync and how often it runs; the detail keeps the cost and the fix for the hover.
import type { FileModel } from '../../analysis/file-model';
import type { SyntaxNode } from '../../parse/syntax';
import { displayName, syncCost } from '../sync-helpers';
import { code, firstFitting, howOften, type RuleText } from './common';

interface At {
  model: FileModel;
  node: SyntaxNode;
}

/** SL101: `.item()` on a device tensor. */
export function sl101Text({ model, node, receiver }: At & { receiver: SyntaxNode }): RuleText {
  return {
    message: firstFitting(
      `\`.item()\` on ${code(receiver.text, 'a tensor')} makes the host wait for the GPU ${howOften(model, node)}.`,
      `\`.item()\` makes the host wait for the GPU ${howOften(model, node)}.`,
    ),
    detail:
      `\`.item()\` on ${displayName(receiver)} waits for the GPU: every queued kernel must finish before the ` +
      `value reaches the host. ${syncCost(model, node)} Keep a running sum on the device ` +
      `(\`total += loss.detach()\`) and call \`.item()\` once per log interval.`,
  };
}

/** SL102: a device-to-host copy (`spelled` is the copy call as written, e.g. `` `.cpu()` ``). */
export function sl102Text(input: At & { spelled: string; receiver: SyntaxNode }): RuleText {
  const { model, node, spelled, receiver } = input;
  const copy = spelled.length <= 20 ? spelled : 'This copy';
  return {
    message: firstFitting(
      `${copy} moves ${code(receiver.text, 'a tensor')} to the host, a GPU sync ${howOften(model, node)}.`,
      `${copy} copies to the host, a GPU sync ${howOften(model, node)}.`,
      `A copy to the host, a GPU sync ${howOften(model, node)}.`,
    ),
    detail:
      `${spelled} copies ${displayName(receiver)} to the host and blocks until every queued kernel has ` +
      `finished. ${syncCost(model, node)} Keep the values on the device (accumulate there) and copy ` +
      `once per log interval or after the loop.`,
  };
}

/** SL103: `float(t)`, `int(t)`, ... of a device tensor. */
export function sl103BuiltinText(input: At & { builtin: string; argument: SyntaxNode }): RuleText {
  const { model, node, builtin, argument } = input;
  return {
    message: firstFitting(
      `\`${builtin}()\` of ${code(argument.text, 'a tensor')} reads it on the host, a GPU sync ${howOften(model, node)}.`,
      `\`${builtin}()\` of a tensor is a GPU sync ${howOften(model, node)}.`,
    ),
    detail:
      `\`${builtin}()\` of ${displayName(argument)} reads the value on the host, so the CPU waits for ` +
      `every queued kernel. ${syncCost(model, node)} Keep it a tensor (\`.detach()\`) and convert once ` +
      `per log interval.`,
  };
}

/** SL103: a call returning a Python bool from tensors (`torch.allclose`, `.equal()`, ...). */
export function sl103BoolText({ model, node, callee }: At & { callee: string }): RuleText {
  return {
    message: firstFitting(
      `${code(callee, 'This call', 24)} returns a Python bool, a GPU sync ${howOften(model, node)}.`,
      `A Python bool from tensors is a GPU sync ${howOften(model, node)}.`,
    ),
    detail:
      `${callee} returns a Python bool, so the CPU waits for every queued kernel to produce it. ` +
      `${syncCost(model, node)} Compare on the device (\`torch.isclose(a, b).all()\`) and read the flag ` +
      `once per log interval.`,
  };
}

/** SL104: printing or formatting a device tensor (`how`: `Printing`, `The f-string field`, ...). */
export function sl104Text({ model, node, how }: At & { how: string }): RuleText {
  return {
    message: firstFitting(
      `${how} ${code(node.text, 'a tensor')} copies it to the host, a GPU sync ${howOften(model, node)}.`,
      `${how} a tensor is a GPU sync ${howOften(model, node)}.`,
    ),
    detail:
      `${how} ${displayName(node)} converts it to text on the host, so the CPU waits for every queued ` +
      `kernel. ${syncCost(model, node)} Format it inside a log-interval branch, or log a device-side ` +
      `running value once per interval.`,
  };
}

/** SL104 through a name: `print(metrics)` where `metrics` holds the tensor `held`. */
export function sl104HolderText({
  model,
  node,
  held,
  builtin,
}: At & { held: SyntaxNode; builtin: string | undefined }): RuleText {
  const how = builtin === 'print' ? 'Printing' : 'Formatting';
  return {
    message: firstFitting(
      `${how} ${code(node.text, 'a container')} copies its tensor ${code(held.text, 'values')} to the host, a GPU sync ${howOften(model, node)}.`,
      `${how} a container of tensors is a GPU sync ${howOften(model, node)}.`,
    ),
    detail:
      `${displayName(node)} holds ${displayName(held)}, a tensor; its repr converts each tensor to text on ` +
      `the host, so the CPU waits for every queued kernel. ${syncCost(model, node)} Call \`.item()\` on ` +
      `the values inside a log-interval branch, or log a device-side running value once per interval.`,
  };
}

/** SL105: a branch condition that is a tensor (`where`: `This \`if\``, ...). */
export function sl105Text({ model, node, where }: At & { where: string }): RuleText {
  return {
    message: firstFitting(
      `Branching on tensor ${code(node.text, 'values')} calls \`bool()\`, a GPU sync ${howOften(model, node)}.`,
      `Branching on a tensor is a GPU sync ${howOften(model, node)}.`,
    ),
    detail:
      `${where} tests ${displayName(node)}, a tensor: Python calls \`bool()\` on it and the CPU waits ` +
      `for every queued kernel. ${syncCost(model, node)} Keep the decision on the device ` +
      `(\`torch.where\`, masking) or check it once per log interval.`,
  };
}

/** SL106: an operation whose output size depends on tensor values. */
export function sl106Text({ model, node, what }: At & { what: string }): RuleText {
  const subject = what.length <= 26 ? what : 'This operation';
  return {
    message: firstFitting(
      `${subject} has a value-dependent output size, a GPU sync ${howOften(model, node)}.`,
      `A value-dependent output size is a GPU sync ${howOften(model, node)}.`,
    ),
    detail:
      `${what} has an output size that depends on the tensor's values, so the host waits for the GPU to ` +
      `count them. ${syncCost(model, node)} Keep shapes static: \`torch.where(mask, x, 0)\`, multiply ` +
      `by the mask, \`ignore_index\` in the loss, or pass \`output_size=\`.`,
  };
}

/** SL107: an explicit synchronize call (`what` as written, e.g. `` `torch.cuda.synchronize()` ``). */
export function sl107Text({ model, node, what }: At & { what: string }): RuleText {
  const subject = what.length <= 28 ? what : '`synchronize()`';
  return {
    message: firstFitting(
      `${subject} blocks the host until queued kernels finish, ${howOften(model, node)}.`,
      `${subject} blocks the host ${howOften(model, node)}.`,
    ),
    detail:
      `${what} blocks the host until the queued kernels finish. ${syncCost(model, node)} Remove it from ` +
      `the step, or time with CUDA events and read them once per log interval.`,
  };
}

/** SL108: a CUDA tensor built from a Python value. */
export function sl108Text({ model, node }: At): RuleText {
  return {
    message: firstFitting(
      `A CUDA tensor from a Python value is a blocking host copy, ${howOften(model, node)}.`,
      `A CUDA tensor from a Python value blocks ${howOften(model, node)}.`,
    ),
    detail:
      `Creating a CUDA tensor from a Python value copies it from pageable host memory, a blocking copy ` +
      `that waits for the queued kernels. ${syncCost(model, node)} Use \`torch.full((), value, ` +
      `device=...)\` / \`torch.zeros(..., device=...)\`, or create it once before the loop.`,
  };
}

/** SL109: `non_blocking=True` from a loader without pinned memory. */
export function sl109UnpinnedText({ model, node, loader }: At & { loader: string }): RuleText {
  return {
    message: `\`non_blocking=True\` has no effect: ${code(loader, 'the DataLoader', 24)} does not pin memory.`,
    detail:
      `\`non_blocking=True\` has no effect here: the batch comes from \`${loader}\`, a DataLoader ` +
      `without \`pin_memory=True\`, so the copy is staged from pageable memory and the host may wait on ` +
      `the stream. ${syncCost(model, node)} Pass \`pin_memory=True\` to the DataLoader.`,
  };
}

/** SL109: a blocking copy from a loader that pins memory. */
export function sl109BlockingText({ model, node, loader }: At & { loader: string }): RuleText {
  return {
    message: `${code(loader, 'The DataLoader', 24)} pins memory, but this copy blocks; add \`non_blocking=True\`.`,
    detail:
      `\`${loader}\` pins its batches, but this copy blocks: the host waits for the queued kernels ` +
      `before copying, so the transfer cannot overlap compute. ${syncCost(model, node)} Add ` +
      `\`non_blocking=True\`.`,
  };
}

/** SL110: a read of a non-blocking device-to-host copy before any sync. */
export function sl110Text({ read, copyLine }: { read: SyntaxNode; copyLine: number }): RuleText {
  return {
    message: `${code(read.text, 'This value', 24)} reads a non-blocking host copy (line ${copyLine}) before any sync.`,
    detail:
      `\`${read.text.length <= 40 ? read.text : 'This value'}\` reads a non-blocking copy to the host ` +
      `(line ${copyLine}) before anything waits for it: the GPU may still be writing it, so ` +
      `the values can be stale or garbage. Record a \`torch.cuda.Event\` after the copy and call ` +
      `\`event.synchronize()\` before reading, or drop \`non_blocking=True\`.`,
  };
}

/** A call from the hot step into a workspace function that syncs (`where` is `file.py:12`). */
export function crossFileSyncText(input: {
  callee: string;
  where: string;
  inner: { message: string; detail?: string };
}): RuleText {
  const { callee, where, inner } = input;
  return {
    message: firstFitting(
      `${code(callee, 'This call', 24)} syncs with the GPU at ${where}, every training step.`,
      `This call syncs with the GPU at ${where}, every training step.`,
      `This call syncs with the GPU in another file, every training step.`,
    ),
    detail:
      `This call runs every training step, and ${code(callee, 'the function it calls', 40)} (${where}) ` +
      `does this there: ${inner.message}${inner.detail ? ` ${inner.detail}` : ''}`,
  };
}

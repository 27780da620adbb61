// SL102: device→host copies of a tensor (`.cpu()`, `.to("cpu")`, `.tolist()`) in a hot step.
import { fieldOf, mergeInDocumentOrder, methodCall, positionalArgs } from '../analysis/syntax-helpers';
import { callsToMethod } from './method-calls';
import { chainHasHostCopy, hostCopy, isDeviceTensor, isHostResident, isTensor } from './sync-helpers';
import type { Rule } from './types';
import { sl102Text } from './messages/sl1';

/**
 * A blocking device→host copy (`.cpu()`, `.to("cpu")`, `.tolist()`) syncs the GPU every step.
 *
 * ## What it does
 * Flags blocking device→host copies of a tensor: `t.cpu()`, `t.to("cpu")`,
 * `t.to(torch.device("cpu"))`, `t.tolist()`. Never flags modules (`model.cpu()`,
 * `model.to("cpu")`), tensors shown to live on the host, or non-blocking copies (see SL110). A
 * bare `t.numpy()` is not flagged: on a CUDA tensor it raises, on a CPU tensor it is free;
 * `t.cpu().numpy()` is reported once, at `.cpu()`. Also flags storing a device tensor into a
 * tensor shown to live on the host (`history[step] = loss.detach()`), which copies it back.
 * When only a loader's name suggests the value is a tensor (`for x, y in train_loader` with
 * nothing showing what `train_loader` is, and no element passed to a module, a loss or
 * `.backward()`), the finding is information at most, and its hover says why.
 *
 * ## Why is this bad?
 * A blocking copy to pageable host memory returns only once the copy is complete (CUDA Runtime
 * API, *API synchronization behavior*), so it waits for everything queued before it. A host–device
 * sync makes the CPU wait until every kernel already queued on the GPU has finished; then the GPU
 * sits idle while Python runs and launches the next kernels. CUDA work is asynchronous (PyTorch
 * docs, *CUDA semantics — Asynchronous execution*), so for a step whose kernels take milliseconds,
 * the host waits that whole queue every step and the launch latency of the next step (tens of
 * microseconds per kernel, hundreds of kernels) becomes GPU idle time.
 * `torch.cuda.set_sync_debug_mode("warn")` reports these syncs (PyTorch docs,
 * *torch.cuda.set_sync_debug_mode*; the list of ops it reports was measured with PyTorch 2.11 on
 * an H100).
 *
 * ## Example
 * ```python
 * for x, y in loader:
 *     logits = model(x)
 *     ...
 *     all_preds.append(logits.argmax(-1).cpu())
 * ```
 *
 * ## Use instead
 * ```python
 * preds = []
 * for x, y in loader:
 *     logits = model(x)
 *     ...
 *     preds.append(logits.argmax(-1))  # stays on the GPU
 * all_preds = torch.cat(preds).cpu()    # one copy after the loop
 * ```
 *
 * ## Quick fix
 * None: the safe change depends on what the value is used for.
 */
export const sl102: Rule = {
  code: 'SL102',
  name: 'device-to-host-copy',
  category: 'sync',
  severity: 'by-role',
  summary: 'A blocking device→host copy (`.cpu()`, `.to("cpu")`, `.tolist()`) syncs the GPU every step.',
  check({ model, report }) {
    // Only `.cpu()`, `.to(...)` and `.tolist()` calls can copy to the host (`hostCopy`): found
    // among the file's method calls, in document order.
    const candidates = mergeInDocumentOrder(
      ['cpu', 'to', 'tolist'].map((name) => callsToMethod(model, name)),
    );
    for (const call of candidates) {
      const copy = hostCopy(model, call);
      const method = methodCall(call);
      const isToList =
        method?.name === 'tolist' && positionalArgs(call).length === 0 && isTensor(model, method.receiver);
      if (copy?.nonBlocking || (!copy && !isToList)) continue;
      const receiver = copy?.receiver ?? method!.receiver;
      if (chainHasHostCopy(model, receiver) || isHostResident(model, receiver)) continue;
      const tail = call.text.slice(receiver.text.length);
      const spelled = tail.length <= 40 ? `\`${tail}\`` : `\`.${method!.name}()\``;
      report({
        node: call,
        tensors: [receiver],
        ...sl102Text({ model, node: call, spelled, receiver }),
      });
    }
    // `host_buffer[i] = loss`: storing a device tensor into a CPU tensor copies it to the host.
    for (const assignment of model.nodes.assignment) {
      const left = fieldOf(assignment, 'left');
      const right = fieldOf(assignment, 'right');
      if (left?.type !== 'subscript' || !right) continue;
      const buffer = fieldOf(left, 'value')!;
      if (!isTensor(model, buffer) || !isHostResident(model, buffer) || !isDeviceTensor(model, right))
        continue;
      report({
        node: right,
        tensors: [right],
        ...sl102Text({ model, node: right, spelled: 'This store', receiver: right }),
      });
    }
  },
};

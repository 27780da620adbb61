// Shared questions of the SL5xx (input pipeline, precision) rules and SL404: which loops
// iterate which DataLoader, whether they move batches to a CUDA device, and what precision
// an autocast region runs in.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import {
  fieldOf,
  firstPositionalArg,
  keywordArg,
  methodCall,
  nodesWithin,
  positionalArgs,
  unwrap,
} from '../analysis/syntax-helpers';
import { assignmentsTo } from '../analysis/assignment-index';
import { calleeName, callsTo, rootIdentifier, targetNames } from './distributed-helpers';
import { AUTOCAST } from './callee-patterns';
import { perModel } from '../analysis/per-model';

/** A `for` loop over a loader-like iterable. */
export interface LoaderLoop {
  loop: SyntaxNode;
  /** The iterated expression's text with wrappers removed: `loader`, `self.train_loader`. */
  loader: string;
  /** Names bound by the loop target and names unpacked from them in the body. */
  batchNames: Set<string>;
  hot: boolean;
}

const WRAPPERS = /^(enumerate|tqdm|iter|zip|tqdm\.tqdm|tqdm\.auto\.tqdm|rich\.progress\.track|track)$/;

/** Every `for` loop, with the iterated loader expression (through `enumerate`/`tqdm` wrappers). */
export function loopsOverLoader(model: FileModel): LoaderLoop[] {
  const loops: LoaderLoop[] = [];
  for (const loop of model.nodes.for_statement) {
    let iterated = fieldOf(loop, 'right');
    while (iterated && iterated.type === 'call') {
      const callee = fieldOf(iterated, 'function');
      const name = callee ? (model.imports.resolve(callee) ?? callee.text) : '';
      if (!WRAPPERS.test(name)) break;
      iterated = firstPositionalArg(iterated);
    }
    if (!iterated || (iterated.type !== 'identifier' && iterated.type !== 'attribute')) continue;
    const batchNames = new Set(targetNames(fieldOf(loop, 'left')));
    const body = fieldOf(loop, 'body');
    if (body) {
      for (const statement of body.children) {
        if (statement.type !== 'expression_statement') continue;
        const assignment = statement.children[0];
        if (assignment?.type !== 'assignment') continue;
        const root = rootIdentifier(fieldOf(assignment, 'right') ?? assignment);
        if (root && batchNames.has(root))
          for (const name of targetNames(fieldOf(assignment, 'left'))) batchNames.add(name);
      }
    }
    loops.push({ loop, loader: iterated.text, batchNames, hot: model.roles.isHotLoop(loop) });
  }
  return loops;
}

/** Whether the loop body moves one of its batch values to a CUDA device (`.cuda()`, `.to(device)` with a CUDA device). */
export function movesBatchToCuda(model: FileModel, entry: LoaderLoop): boolean {
  const body = fieldOf(entry.loop, 'body');
  if (!body) return false;
  for (const call of nodesWithin(model.nodes.call, body)) {
    const method = methodCall(call);
    if (!method || (method.name !== 'to' && method.name !== 'cuda')) continue;
    if (!isBatchValue(method.receiver, entry.batchNames)) continue;
    if (method.name === 'cuda') return true;
    const device = firstPositionalArg(call) ?? keywordArg(call, 'device');
    if (device && isCudaDevice(model, device)) return true;
  }
  return false;
}

function isBatchValue(receiver: SyntaxNode, batchNames: Set<string>): boolean {
  const root = rootIdentifier(receiver);
  if (!root) return false;
  if (batchNames.has(root)) return true;
  // `{k: v.to(device) for k, v in batch.items()}`, `tuple(t.cuda() for t in batch)`
  for (let n = receiver.parent; n; n = n.parent) {
    if (!/comprehension|generator_expression/.test(n.type)) continue;
    for (const clause of n.children.filter((c) => c.type === 'for_in_clause')) {
      const names = targetNames(fieldOf(clause, 'left'));
      const source = rootIdentifier(fieldOf(clause, 'right') ?? clause);
      if (names.includes(root) && source && batchNames.has(source)) return true;
    }
  }
  return false;
}

/** Whether a device expression names CUDA: a `"cuda..."` string, or a name assigned one (or a local rank). */
export function isCudaDevice(model: FileModel, device: SyntaxNode): boolean {
  const target = unwrap(device);
  if (/cuda/.test(target.text)) return true;
  if (target.type !== 'identifier' && target.type !== 'attribute') return false;
  if (
    /^(local_rank|ddp_local_rank|gpu|gpu_id|device_id)$/.test(
      fieldOf(target, 'attribute')?.text ?? target.text,
    )
  )
    return mentionsCudaOrNccl(model) || model.imports.importsFrom('deepspeed');
  return assignmentsTo(model, target.text).some((assignment) =>
    /cuda|LOCAL_RANK/.test(fieldOf(assignment, 'right')?.text ?? ''),
  );
}

/** Per model: whether the text mentions `cuda` or `nccl` (a scan of the whole file, so run once). */
const mentionsCudaOrNccl = perModel((model) => /cuda|nccl/.test(model.source.text));

/** The precision an autocast call selects. */
export type AutocastPrecision = 'fp16' | 'bf16' | 'other' | 'unknown' | 'disabled';

/** Every autocast call (resolved): `torch.autocast`, `torch.amp.autocast`, `torch.cuda.amp.autocast`. */
export function autocastCalls(model: FileModel): readonly SyntaxNode[] {
  return callsTo(model, AUTOCAST);
}

/** The precision of an autocast call, from its device type, `dtype=` and `enabled=`. */
export function autocastPrecision(model: FileModel, call: SyntaxNode): AutocastPrecision {
  const enabled = keywordArg(call, 'enabled');
  if (enabled?.text === 'False') return 'disabled';
  const qualified = calleeName(model, call) ?? '';
  const legacyCuda = qualified.startsWith('torch.cuda.amp.');
  const positional = positionalArgs(call);
  const deviceType = legacyCuda ? '"cuda"' : (positional[0] ?? keywordArg(call, 'device_type'))?.text;
  const dtype = keywordArg(call, 'dtype') ?? (legacyCuda ? positional[1] : positional[1]);
  if (!dtype) {
    if (!deviceType) return 'unknown';
    if (/^['"]cuda['"]$/.test(deviceType)) return enabled && enabled.text !== 'True' ? 'unknown' : 'fp16';
    return /^['"](cpu|xpu|hpu|mps)['"]$/.test(deviceType) ? 'other' : 'unknown';
  }
  const dtypeName = model.imports.resolve(unwrap(dtype)) ?? '';
  if (/^torch\.(float16|half)$/.test(dtypeName))
    return enabled && enabled.text !== 'True' ? 'unknown' : 'fp16';
  if (dtypeName === 'torch.bfloat16') return enabled && enabled.text !== 'True' ? 'unknown' : 'bf16';
  return 'unknown';
}

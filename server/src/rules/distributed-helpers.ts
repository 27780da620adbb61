// Shared questions of the SL4xx (distributed) and SL5xx (pipeline, precision) rules: which
// calls resolve to which PyTorch API, where a model is wrapped in DDP/FSDP, whether a
// framework (accelerate, Lightning, DeepSpeed) owns the loop, and control-flow order.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import { isTrainingCall } from '../analysis/loop-roles';
import {
  fieldOf,
  firstPositionalArg,
  mergeInDocumentOrder,
  methodCall,
  unwrap,
  walk,
} from '../analysis/syntax-helpers';
import { perModel } from '../analysis/per-model';
import { attributesNamed } from '../analysis/name-indexes';
import { callsToMethod } from './method-calls';
import { DDP_CLASS, FSDP_CLASS, INIT_PROCESS_GROUP, type CalleePattern } from './callee-patterns';

const NO_OPTIMIZER_NAMES: ReadonlySet<string> = new Set();

/** The qualified name a call's callee resolves to through the imports, if any. */
export function calleeName(model: FileModel, call: SyntaxNode): string | undefined {
  const callee = fieldOf(call, 'function');
  return callee ? model.imports.resolve(unwrap(callee)) : undefined;
}

/** Model → pattern → the calls `callsTo` found (rules and helpers ask with the same module-level patterns). */
const callsToByPattern = perModel(() => new Map<CalleePattern, readonly SyntaxNode[]>());

/**
 * Every call whose callee resolves to a qualified name matching `pattern`, in document order:
 * only the calls under one of its last names (the file's call index) are resolved.
 */
export function callsTo(model: FileModel, pattern: CalleePattern): readonly SyntaxNode[] {
  const byPattern = callsToByPattern(model);
  let calls = byPattern.get(pattern);
  if (!calls) {
    calls = model.callNames
      .namedWhere((name) => pattern.lastName.test(name))
      .filter((call) => pattern.qualified.test(calleeName(model, call) ?? ''));
    byPattern.set(pattern, calls);
  }
  return calls;
}

/** A `DDP(model, ...)` / `FSDP(model, ...)` call and the names involved. */
export interface Wrap {
  call: SyntaxNode;
  kind: 'ddp' | 'fsdp';
  /** The expression assigned the wrapped model (`model` in `model = DDP(...)`), if any. */
  target?: SyntaxNode;
  /** The module passed in (`model` in `DDP(model)`), if any. */
  inner?: SyntaxNode;
}

/** Every DDP / FSDP wrapping call of the file (computed once per model: three rules ask). */
export const wrapsOf = perModel((model): readonly Wrap[] => findWraps(model));

function findWraps(model: FileModel): Wrap[] {
  const wraps: Wrap[] = [];
  const ddp = new Set(callsTo(model, DDP_CLASS));
  for (const call of mergeInDocumentOrder([[...ddp], callsTo(model, FSDP_CLASS)])) {
    const kind = ddp.has(call) ? 'ddp' : 'fsdp';
    const parent = call.parent;
    const target =
      parent?.type === 'assignment' && fieldOf(parent, 'right') === call
        ? fieldOf(parent, 'left')
        : undefined;
    wraps.push({ call, kind, target, inner: firstPositionalArg(call) ?? fieldOfKeyword(call, 'module') });
  }
  return wraps;
}

function fieldOfKeyword(call: SyntaxNode, name: string): SyntaxNode | undefined {
  const args = fieldOf(call, 'arguments');
  for (const arg of args?.children ?? [])
    if (arg.type === 'keyword_argument' && fieldOf(arg, 'name')?.text === name) return fieldOf(arg, 'value');
  return undefined;
}

/**
 * Whether a framework that owns the training loop's distributed and precision details is
 * in use: accelerate, Lightning, DeepSpeed, Hugging Face's Trainer, Composer, Fabric.
 */
export const frameworkOwnsLoop = perModel(
  (model: FileModel): boolean => frameworkOwnsLoader(model) || model.imports.importsFrom('deepspeed'),
);

/**
 * Whether a framework builds and feeds the data loaders: as {@link frameworkOwnsLoop}, except
 * DeepSpeed, which leaves a `DataLoader` the script builds itself (and its sampler's epochs)
 * to the script.
 */
export const frameworkOwnsLoader = perModel((model: FileModel): boolean => {
  const imports = model.imports;
  if (
    ['accelerate', 'lightning', 'pytorch_lightning', 'composer', 'colossalai'].some((m) =>
      imports.importsFrom(m),
    )
  )
    return true;
  return ['transformers.Trainer', 'transformers.Seq2SeqTrainer', 'trl'].some((m) => imports.importsFrom(m));
});

/** Whether the file calls `torch.distributed.init_process_group` (or a known wrapper of it). */
export function initsProcessGroup(model: FileModel): boolean {
  if (callsTo(model, INIT_PROCESS_GROUP).length) return true;
  return callsToMethod(model, 'init_process_group').length > 0;
}

/** Whether the file mentions one of `names` as a method or attribute anywhere (`no_sync`, `set_epoch`). */
export function mentionsAttribute(model: FileModel, names: readonly string[]): boolean {
  return names.some((name) => attributesNamed(model, name).length > 0);
}

/** Whether a subtree contains a training call (backward or an optimizer step), outside nested functions. */
export function containsTrainingCall(
  node: SyntaxNode,
  predicate: (call: SyntaxNode) => boolean = isBackwardOrStep,
): boolean {
  let found = false;
  walk(node, (current) => {
    if (found) return false;
    if (current !== node && (current.type === 'function_definition' || current.type === 'lambda'))
      return false;
    if (current.type === 'call' && predicate(current)) found = true;
  });
  return found;
}

/** `loss.backward()`, `scaler.scale(loss).backward()`, `accelerator.backward(loss)`, `engine.backward(loss)`. */
export function isBackwardCall(call: SyntaxNode): boolean {
  return methodCall(call)?.name === 'backward';
}

/** A backward or optimizer-step call, in the spellings loop-roles.ts recognises. */
export function isBackwardOrStep(call: SyntaxNode): boolean {
  return isTrainingCall(call, NO_OPTIMIZER_NAMES);
}

/** Whether `call` is an optimizer step (not a backward), as loop-roles.ts recognises it. */
export function isOptimizerStep(call: SyntaxNode): boolean {
  return !isBackwardCall(call) && isTrainingCall(call, NO_OPTIMIZER_NAMES);
}

/**
 * Whether statement `later` runs after statement `earlier` on some path of one straight-line
 * flow: both in one function, `later` after `earlier`, and not in sibling branches of an `if`
 * or `try` (where only one of them runs).
 */
export function followsInFlow(earlier: SyntaxNode, later: SyntaxNode): boolean {
  if (later.startIndex < earlier.endIndex) return false;
  const ancestors = new Set<SyntaxNode>();
  for (let n: SyntaxNode | null = earlier; n; n = n.parent) ancestors.add(n);
  let common: SyntaxNode | null = later;
  let below: SyntaxNode = later;
  while (common && !ancestors.has(common)) {
    below = common;
    common = common.parent;
  }
  if (!common) return false;
  for (let n: SyntaxNode | null = earlier; n && n !== common; n = n.parent)
    if (n.type === 'function_definition' || n.type === 'class_definition') return false;
  for (let n: SyntaxNode | null = later; n && n !== common; n = n.parent)
    if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'lambda')
      return false;
  const branchy = new Set([
    'if_statement',
    'try_statement',
    'elif_clause',
    'match_statement',
    'conditional_expression',
  ]);
  if (branchy.has(common.type)) {
    // Same statement, different arms: the later arm only runs when the earlier one did not.
    let aboveEarlier: SyntaxNode = earlier;
    while (aboveEarlier.parent && aboveEarlier.parent !== common) aboveEarlier = aboveEarlier.parent;
    if (aboveEarlier !== below) return false;
  }
  return true;
}

/** The first identifier of an attribute/call/subscript chain: `batch["x"].to(d)` → `batch`. */
export function rootIdentifier(node: SyntaxNode): string | undefined {
  let current: SyntaxNode | undefined = unwrap(node);
  while (current) {
    if (current.type === 'identifier') return current.text;
    if (current.type === 'attribute') current = fieldOf(current, 'object');
    else if (current.type === 'subscript') current = fieldOf(current, 'value');
    else if (current.type === 'call') current = fieldOf(current, 'function');
    else return undefined;
  }
  return undefined;
}

/** Identifiers bound by a `for` target (`for i, (x, y) in ...` → i, x, y). */
export function targetNames(target: SyntaxNode | undefined): string[] {
  const names: string[] = [];
  if (!target) return names;
  walk(target, (node) => {
    if (node.type === 'identifier' && node.parent?.type !== 'attribute') names.push(node.text);
  });
  return names;
}

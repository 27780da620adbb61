// Shared by the memory rules (SL3xx): does an expression carry an autograd graph built in a
// training loop, is an accumulator carried across a hot loop's iterations; and for SL301,
// which nn.Module attributes stack repeated blocks and whether the file checkpoints at all.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import type { ImportTable } from '../analysis/imports';
import {
  fieldOf,
  firstPositionalArg,
  isWithin,
  lastName,
  methodCall,
  positionalArgs,
  unwrap,
  walk,
} from '../analysis/syntax-helpers';
import { bindingsInScope, reachingBinding } from '../analysis/reaching-definitions';
import { callsTo } from './distributed-helpers';
import { BLOCK_CONTAINER } from './callee-patterns';
import { callsToMethod } from './method-calls';
import { perModel, perSubtree } from '../analysis/per-model';

/** Methods whose result holds no autograd graph (detached, host values, integer outputs). */
const GRAPH_FREE_METHODS = new Set(
  (
    'detach item tolist numpy argmax argmin long int bool byte eq ne lt le gt ge isnan isinf sign round floor ' +
    'size dim numel nelement shape norm_ type'
  ).split(' '),
);
/** torch functions whose result holds no graph. */
const GRAPH_FREE_FUNCTIONS =
  /^torch\.(argmax|argmin|eq|ne|lt|le|gt|ge|isnan|isinf|zeros\w*|ones\w*|tensor|as_tensor|randn\w*|rand\w*|arange|no_grad|sign|round|floor)$/;
/** Callee names that are models or losses when the analysis cannot tell the kind. */
const MODEL_NAME =
  /(^|_)(model|net|network|module|encoder|decoder|backbone|transformer|criterion|loss_fn|loss_func|lossfn|loss_fct)$/i;
const MAX_DEPTH = 12;

/** The innermost enclosing loop of `node` that runs a training step, within its function. */
export function hotLoopOf(model: FileModel, node: SyntaxNode): SyntaxNode | undefined {
  for (let loop = model.roles.enclosingLoop(node); loop; loop = model.roles.enclosingLoop(loop)) {
    if (model.roles.isHotLoop(loop)) return loop;
  }
  return undefined;
}

/**
 * Whether local `name`, used at `use`, is bound before `loop` and never rebound inside it
 * except by `allowed` statements (the accumulation itself): its value crosses iterations.
 */
export function carriedAcross(input: {
  model: FileModel;
  name: string;
  use: SyntaxNode;
  loop: SyntaxNode;
  allowed: (statement: SyntaxNode) => boolean;
}): boolean {
  const sites = bindingsInScope(input.use, input.name);
  const before = sites.some(
    (s) => s.anchor.endIndex <= input.loop.startIndex && s.binding.kind !== 'parameter',
  );
  if (!before) return false;
  // NOTE: `acc.clear()` / `acc.zero_()` empty the accumulator in place, as a rebinding would.
  const clears = [...callsToMethod(input.model, 'clear'), ...callsToMethod(input.model, 'zero_')].filter(
    (call) => methodCall(call)!.receiver.text === input.name,
  );
  const resetIn = (loop: SyntaxNode) =>
    sites.some((s) => isWithin(s.anchor, loop) && !input.allowed(s.anchor)) ||
    clears.some((call) => isWithin(call, loop));
  if (resetIn(input.loop)) return false;
  // NOTE: reset once per optimizer step (micro-batches inside a step loop): bounded, not a leak.
  const roles = input.model.roles;
  for (let outer = roles.enclosingLoop(input.loop); outer; outer = roles.enclosingLoop(outer)) {
    if (roles.isHotLoop(outer) && resetIn(outer)) return false;
  }
  return true;
}

/**
 * Whether `expr` evaluates to a tensor carrying an autograd graph built inside `loop`: a
 * model or loss call, or a value computed from one, not detached, not `.item()`ed.
 */
export function carriesGraph(model: FileModel, expr: SyntaxNode, loop: SyntaxNode, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  const node = unwrap(expr);
  const next = (n: SyntaxNode) => carriesGraph(model, n, loop, depth + 1);
  switch (node.type) {
    case 'identifier': {
      const binding = reachingBinding(node, node.text);
      if (!binding || binding.kind === 'parameter' || binding.kind === 'other') return false;
      if (!isWithin(binding.statement, loop)) return false;
      if (binding.kind === 'unpack')
        return isModelCall(model, unwrap(binding.value)) && !underNoGrad(binding.statement, loop);
      return next(binding.value) && !underNoGrad(binding.statement, loop);
    }
    case 'attribute': {
      const name = fieldOf(node, 'attribute')?.text ?? '';
      if (!/^(loss|logits|aux_loss|last_hidden_state)$/.test(name)) return false;
      return next(fieldOf(node, 'object')!);
    }
    case 'subscript':
      return next(fieldOf(node, 'value')!);
    case 'binary_operator':
      return (
        ['+', '-', '*', '/', '@', '**'].includes(node.operator ?? '') &&
        [fieldOf(node, 'left'), fieldOf(node, 'right')].some((side) => !!side && next(side))
      );
    case 'augmented_assignment':
      return [fieldOf(node, 'left'), fieldOf(node, 'right')].some((side) => !!side && next(side));
    case 'unary_operator':
      return !!fieldOf(node, 'argument') && next(fieldOf(node, 'argument')!);
    case 'call':
      return callCarriesGraph(model, node, next);
    default:
      return false;
  }
}

function callCarriesGraph(model: FileModel, call: SyntaxNode, next: (n: SyntaxNode) => boolean): boolean {
  const callee = fieldOf(call, 'function');
  if (!callee) return false;
  const qualified = model.imports.resolve(callee);
  if (qualified && GRAPH_FREE_FUNCTIONS.test(qualified)) return false;
  if (callee.type === 'identifier' && ['float', 'int', 'bool', 'len', 'str', 'round'].includes(callee.text))
    return false;
  const method = methodCall(call);
  if (method && GRAPH_FREE_METHODS.has(method.name)) return false;
  if (isModelCall(model, call)) return true;
  if (method && next(method.receiver)) return true;
  if (qualified && /^torch\./.test(qualified)) return positionalArgs(call).some(next);
  // NOTE: a user loss function of graph-carrying arguments (`loss_fn(logits, y)`) returns one.
  return !method && callee.type === 'identifier' && positionalArgs(call).some(next);
}

/** Whether a call runs a model or a loss module (`model(x)`, `self.model(x)`, `criterion(out, y)`). */
export function isModelCall(model: FileModel, call: SyntaxNode): boolean {
  if (call.type !== 'call') return false;
  const callee = fieldOf(call, 'function');
  if (!callee) return false;
  const qualified = model.imports.resolve(callee) ?? '';
  if (/^torch\.nn\.functional\.\w*(loss|entropy|nll|mse|l1|kl_div)\w*$/.test(qualified)) return true;
  if (callee.text === 'self') return true;
  if (model.kindOf(callee) === 'module') return true;
  const name = lastName(callee);
  return !!name && MODEL_NAME.test(name);
}

function underNoGrad(statement: SyntaxNode, loop: SyntaxNode): boolean {
  for (let current = statement.parent; current && current !== loop; current = current.parent) {
    if (
      current.type === 'with_statement' &&
      /\b(no_grad|inference_mode)\s*\(/.test(current.children[0]?.text ?? '')
    )
      return true;
  }
  return false;
}

const MIN_DEPTH = 8;
const CHECKPOINT_IMPORTS = [
  'torch.utils.checkpoint',
  'torch.distributed.algorithms._checkpoint',
  'deepspeed.checkpointing',
  'deepspeed.runtime.activation_checkpointing',
  'fairscale.nn.checkpoint',
  'fairscale.nn.misc.checkpoint_activations',
];
const CHECKPOINT_TEXT_ALL =
  /gradient_checkpointing|activation_checkpoint|checkpoint_wrapper|checkpoint_activations|apply_ac\b|torch\.utils\.checkpoint|use_checkpoint|grad_ckpt|recompute_granularity|checkpoint_sequential/g;

/** Whether anything in the file turns on activation checkpointing (imports, HF/Lightning/FSDP/torchtitan options). */
export function usesActivationCheckpointing(model: FileModel): boolean {
  return turnsOnCheckpointing(model.imports, model.source.text);
}

/** The same test on any file's imports and text (a trainer elsewhere in the workspace). */
export function turnsOnCheckpointing(imports: ImportTable, text: string): boolean {
  if (CHECKPOINT_IMPORTS.some((m) => imports.importsFrom(m))) return true;
  // NOTE: a match holds neither `#` nor a line break, so it is outside every comment when no
  // `#` precedes it on its line (what stripping each line's `#...` would leave); a `#` inside
  // a string counts as a comment's start, as the stripping did.
  CHECKPOINT_TEXT_ALL.lastIndex = 0;
  for (let match = CHECKPOINT_TEXT_ALL.exec(text); match; match = CHECKPOINT_TEXT_ALL.exec(text)) {
    const lineStart = text.lastIndexOf('\n', match.index) + 1;
    const comment = text.indexOf('#', lineStart);
    if (comment === -1 || comment > match.index) return true;
  }
  return false;
}

/** A cheap text test, before parsing a file: could it turn checkpointing on? */
export function mayTurnOnCheckpointing(text: string): boolean {
  return /checkpoint|recompute_granularity|apply_ac\b|grad_ckpt/.test(text);
}

/** Whether a class derives from `nn.Module` (directly, via a LightningModule, or via a module class of this file). */
export function isModuleClass(model: FileModel, cls: SyntaxNode, seen = new Set<string>()): boolean {
  const bases = fieldOf(cls, 'superclasses')?.children ?? [];
  for (const base of bases) {
    const qualified = model.imports.resolve(base) ?? '';
    if (/^torch\.nn\.(Module|modules\.module\.Module)$|LightningModule$/.test(qualified)) return true;
    if (base.type !== 'identifier' || seen.has(base.text)) continue;
    seen.add(base.text);
    const local = classesByName(model).get(base.text);
    if (local && isModuleClass(model, local, seen)) return true;
  }
  return false;
}

/** Per model: class name → its first definition in the file. */
const classesByName = perModel((model) => {
  const byName = new Map<string, SyntaxNode>();
  for (const cls of model.nodes.class_definition) {
    const name = fieldOf(cls, 'name')?.text;
    if (name !== undefined && !byName.has(name)) byName.set(name, cls);
  }
  return byName;
});

/** Per model: each class → the `ModuleList` / `Sequential` calls inside it (nested classes included), in document order. */
const containerCallsByClass = perModel((model) => {
  const byClass = new Map<SyntaxNode, SyntaxNode[]>();
  for (const call of callsTo(model, BLOCK_CONTAINER)) {
    for (let current = call.parent; current; current = current.parent) {
      if (current.type !== 'class_definition') continue;
      const calls = byClass.get(current);
      if (calls) calls.push(call);
      else byClass.set(current, [call]);
    }
  }
  return byClass;
});

/** Attribute names holding ≥ 8 repeated blocks (or a config-sized stack), with their depth as text. */
export function blockStacks(model: FileModel, cls: SyntaxNode): Map<string, string> {
  const stacks = new Map<string, string>();
  for (const call of containerCallsByClass(model).get(cls) ?? []) {
    const callee = fieldOf(call, 'function');
    if (!BLOCK_CONTAINER.qualified.test((callee && model.imports.resolve(callee)) ?? '')) continue;
    const depth = comprehensionDepth(call);
    const name = depth && holderName(call);
    if (name && depth) stacks.set(name, depth);
  }
  return stacks;
}

/** `range(n)` of the comprehension building the stack: `n` as text when literal ≥ 8 or symbolic. */
function comprehensionDepth(call: SyntaxNode): string | undefined {
  const args = fieldOf(call, 'arguments');
  let source =
    args?.type === 'generator_expression' ? args : args?.children.find((c) => c.type !== 'comment');
  if (source?.type === 'list_splat') source = source.children[0];
  source = source && unwrap(source);
  if (!source || !['list_comprehension', 'generator_expression'].includes(source.type)) return undefined;
  const clause = source.children.find((c) => c.type === 'for_in_clause');
  const range = clause && fieldOf(clause, 'right');
  if (!range || range.type !== 'call' || fieldOf(range, 'function')?.text !== 'range') return undefined;
  const bounds = positionalArgs(range);
  if (bounds.length !== 1) return undefined;
  const bound = unwrap(bounds[0]);
  if (bound.type === 'integer') return Number(bound.text) >= MIN_DEPTH ? bound.text : undefined;
  return ['identifier', 'attribute', 'subscript'].includes(bound.type) ? bound.text : undefined;
}

/** The attribute, keyword or dict key a stack is stored under. */
function holderName(call: SyntaxNode): string | undefined {
  const parent = call.parent;
  if (!parent) return undefined;
  if (parent.type === 'assignment' && fieldOf(parent, 'right') === call) {
    const left = fieldOf(parent, 'left');
    return left?.type === 'attribute' ? lastName(left) : undefined;
  }
  if (parent.type === 'keyword_argument') return fieldOf(parent, 'name')?.text;
  if (parent.type === 'pair') return fieldOf(parent, 'key')?.text.replace(/^['"]|['"]$/g, '');
  return undefined;
}

/** A loop of `forward` over a block stack, with the stack's name and depth and the block call. */
export interface BlockLoop {
  loop: SyntaxNode;
  stackName: string;
  depth: string;
  call: SyntaxNode | undefined;
}

/** Loops in `forward` over a block stack (`for block in self.h:`, `enumerate(self.layers)`), with the block call. */
export function blockLoops(cls: SyntaxNode, stacks: ReadonlyMap<string, string>): BlockLoop[] {
  return blockLoopsFor(cls, JSON.stringify([...stacks]));
}

/** `blockLoops` by class and its stacks as JSON, kept across versions under the class. */
const blockLoopsFor = perSubtree((cls: SyntaxNode, stacks: string) =>
  findBlockLoops(cls, new Map<string, string>(JSON.parse(stacks))),
);

function findBlockLoops(cls: SyntaxNode, stacks: ReadonlyMap<string, string>): BlockLoop[] {
  const body = fieldOf(cls, 'body');
  const forward = body?.children
    .map((c) => (c.type === 'decorated_definition' ? fieldOf(c, 'definition') : c))
    .find((c) => c?.type === 'function_definition' && fieldOf(c, 'name')?.text === 'forward');
  if (!forward) return [];
  const found: BlockLoop[] = [];
  walk(forward, (node) => {
    if (node !== forward && (node.type === 'function_definition' || node.type === 'class_definition'))
      return false;
    if (node.type !== 'for_statement') return;
    let iter = fieldOf(node, 'right');
    let target = fieldOf(node, 'left');
    if (iter?.type === 'call' && fieldOf(iter, 'function')?.text === 'enumerate') {
      iter = firstPositionalArg(iter);
      target =
        target && ['pattern_list', 'tuple_pattern'].includes(target.type) ? target.children[1] : undefined;
    }
    if (iter?.type === 'subscript') iter = fieldOf(iter, 'value');
    if (!iter || !target || target.type !== 'identifier' || !iter.text.startsWith('self.')) return;
    const stackName = lastName(iter);
    const depth = stackName && stacks.get(stackName);
    if (!stackName || !depth) return;
    let call: SyntaxNode | undefined;
    walk(fieldOf(node, 'body') ?? node, (n) => {
      if (!call && n.type === 'call' && fieldOf(n, 'function')?.text === target!.text) call = n;
    });
    if (call) found.push({ loop: node, stackName, depth, call });
  });
  return found;
}

// What a hover position refers to for estimates: the node under the cursor, data-parallel
// wrappers (DDP, FSDP, fully_shard, deepspeed.initialize, DeepSpeed config dicts) and the
// strategy they imply, the model passed to them, and gradient accumulation in a train loop.
import type { SyntaxNode } from '../parse/syntax';
import type { StrategyId } from '../estimate';
import type { FileEvaluation, ModuleTree } from '../modules';
import { Env } from '../modules/interpreter';
import { countParams } from '../modules/module-instance';
import { transformerShape } from '../modules/shape';
import type { Value } from '../modules/values';
import { fieldOf } from '../analysis/syntax-helpers';

/** The deepest node containing a zero-based position. */
export function nodeAt(root: SyntaxNode, position: { line: number; character: number }): SyntaxNode {
  const before = (a: { line: number; column: number }) =>
    a.line < position.line || (a.line === position.line && a.column <= position.character);
  const after = (b: { line: number; column: number }) =>
    b.line > position.line || (b.line === position.line && b.column > position.character);
  let current = root;
  for (;;) {
    const child = current.children.find((c) => before(c.start) && after(c.end));
    if (!child) return current;
    current = child;
  }
}

/** A data-parallel wrapper call and the strategy it sets up. */
export interface WrapperCall {
  call: SyntaxNode;
  strategy: StrategyId;
  /** e.g. "DistributedDataParallel", "FSDP (SHARD_GRAD_OP)", "DeepSpeed ZeRO stage 2". */
  label: string;
  /** The expression of the wrapped model, if found. */
  modelNode?: SyntaxNode;
}

const FSDP_STRATEGIES: Record<string, StrategyId> = {
  FULL_SHARD: 'fsdp-full',
  SHARD_GRAD_OP: 'fsdp-grad-op',
  HYBRID_SHARD: 'fsdp-hybrid',
  _HYBRID_SHARD_ZERO2: 'fsdp-hybrid',
  NO_SHARD: 'fsdp-no-shard',
};
const ZERO_STAGES: StrategyId[] = ['ddp', 'zero1', 'zero2', 'zero3'];

function keyword(call: SyntaxNode, name: string): SyntaxNode | undefined {
  for (const arg of fieldOf(call, 'arguments')?.children ?? []) {
    if (arg.type === 'keyword_argument' && fieldOf(arg, 'name')?.text === name) return fieldOf(arg, 'value');
  }
  return undefined;
}

function firstPositional(call: SyntaxNode): SyntaxNode | undefined {
  return fieldOf(call, 'arguments')?.children.find(
    (c) => c.type !== 'keyword_argument' && c.type !== 'comment',
  );
}

/** The DeepSpeed ZeRO stage in a config dict literal (`{"zero_optimization": {"stage": 2}}`), if any. */
export function zeroStageOf(dict: SyntaxNode): number | undefined {
  if (dict.type !== 'dictionary') return undefined;
  for (const pair of dict.children) {
    const key = fieldOf(pair, 'key')?.text.replace(/^['"]|['"]$/g, '');
    const value = fieldOf(pair, 'value');
    if (key !== 'zero_optimization' || value?.type !== 'dictionary') continue;
    for (const inner of value.children) {
      if (fieldOf(inner, 'key')?.text.replace(/^['"]|['"]$/g, '') === 'stage')
        return Number(fieldOf(inner, 'value')?.text);
    }
    return 0;
  }
  return undefined;
}

/** The last assignment `name = ...` before `before` in the same function (or module). */
export function lastAssignment(input: {
  root: SyntaxNode;
  name: string;
  before: SyntaxNode;
}): SyntaxNode | undefined {
  const { name, before } = input;
  let scopeNode: SyntaxNode | null = before.parent;
  while (scopeNode && scopeNode.type !== 'function_definition' && scopeNode.type !== 'module')
    scopeNode = scopeNode.parent;
  let found: SyntaxNode | undefined;
  const stack = [scopeNode ?? input.root];
  while (stack.length) {
    const node = stack.pop()!;
    if (
      node.type === 'assignment' &&
      node.endIndex <= before.startIndex &&
      fieldOf(node, 'left')?.text === name
    ) {
      const right = fieldOf(node, 'right');
      const chained =
        right &&
        new RegExp(`^(${name}\\.(to|cuda|train|half|bfloat16)\\(|torch\\.compile\\(${name}\\b)`).test(
          right.text,
        );
      if (right && !chained && (!found || node.startIndex > found.startIndex)) found = right;
    }
    if (node !== scopeNode && node.type === 'function_definition' && node !== input.root) continue;
    stack.push(...node.children);
  }
  return found;
}

/** A wrapper call: DDP, FSDP, fully_shard, deepspeed.initialize; undefined for other calls. */
export function wrapperOf(input: { call: SyntaxNode; evaluation: FileEvaluation }): WrapperCall | undefined {
  const { call, evaluation } = input;
  const callee = fieldOf(call, 'function');
  if (!callee) return undefined;
  const name = evaluation.scope.imports.resolve(callee) ?? callee.text;
  const last = name.split('.').pop() ?? '';
  if (/^(DistributedDataParallel|DDP)$/.test(last)) {
    return {
      call,
      strategy: 'ddp',
      label: 'DistributedDataParallel',
      modelNode: keyword(call, 'module') ?? firstPositional(call),
    };
  }
  if (/^(FullyShardedDataParallel|FSDP)$/.test(last)) {
    const option = keyword(call, 'sharding_strategy')?.text.split('.').pop() ?? 'FULL_SHARD';
    const strategy = FSDP_STRATEGIES[option] ?? 'fsdp-full';
    return {
      call,
      strategy,
      label: `FullyShardedDataParallel (${option})`,
      modelNode: keyword(call, 'module') ?? firstPositional(call),
    };
  }
  if (last === 'fully_shard') {
    return {
      call,
      strategy: 'fsdp-full',
      label: 'fully_shard (FSDP2, FULL_SHARD)',
      modelNode: keyword(call, 'module') ?? firstPositional(call),
    };
  }
  if (/(^|\.)deepspeed\.initialize$/.test(name)) {
    let config = keyword(call, 'config') ?? keyword(call, 'config_params');
    if (config?.type === 'identifier')
      config = lastAssignment({ root: evaluation.scope.root, name: config.text, before: call });
    const stage = config ? (zeroStageOf(config) ?? 0) : 0;
    return {
      call,
      strategy: ZERO_STAGES[Math.min(3, stage)] ?? 'zero3',
      label: `DeepSpeed ZeRO stage ${stage}`,
      modelNode: keyword(call, 'model') ?? firstPositional(call),
    };
  }
  return undefined;
}

/** The first wrapper call in the file (for hovers in the training loop). */
export function firstWrapper(evaluation: FileEvaluation): WrapperCall | undefined {
  const stack = [evaluation.scope.root];
  const calls: SyntaxNode[] = [];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'call') calls.push(node);
    stack.push(...node.children);
  }
  calls.sort((a, b) => a.startIndex - b.startIndex);
  for (const call of calls) {
    const wrapper = wrapperOf({ call, evaluation });
    if (wrapper) return wrapper;
  }
  return undefined;
}

/** A model found for an expression: its class tree (default construction) or a built library/user instance. */
export interface ResolvedModel {
  name: string;
  tree?: ModuleTree;
  params: number | null;
  trainable: number;
  largestLayer?: number;
  transformer?: ModuleTree['transformer'];
  note?: string;
  /** The built module (imported user classes and library models), for the forward walk. */
  module?: import('../modules/module-instance').ModuleInstance;
}

/** Resolves the model an expression names (`model`, `GPT(cfg)`, `AutoModel...from_pretrained("gpt2")`). */
export function resolveModel(input: {
  node: SyntaxNode;
  evaluation: FileEvaluation;
}): ResolvedModel | undefined {
  const { evaluation } = input;
  let node: SyntaxNode | undefined = input.node;
  for (let i = 0; i < 4 && node?.type === 'identifier'; i++) {
    node = lastAssignment({ root: evaluation.scope.root, name: node.text, before: node });
  }
  while (node?.type === 'call' && /\.(to|cuda|half|bfloat16)$/.test(fieldOf(node, 'function')?.text ?? '')) {
    node = fieldOf(fieldOf(node, 'function')!, 'object');
  }
  if (!node) return undefined;
  const calleeText = node.type === 'call' ? (fieldOf(node, 'function')?.text ?? '') : node.text;
  const tree = evaluation.trees.find((t) => t.name === calleeText);
  let value: Value;
  try {
    value = evaluation.interpreter.evalExpr(node, new Env(evaluation.scope));
  } catch {
    return undefined;
  }
  if (value.kind === 'module') {
    const totals = countParams(value.module);
    if (totals.unknowns.length === 0 || !tree) {
      return {
        name: value.module.typeName,
        params: totals.unknowns.length ? null : totals.known,
        trainable: totals.trainable,
        largestLayer: value.module.library?.largestLayerParams ?? totals.largestLayer?.params,
        transformer:
          value.module.library?.transformer ??
          tree?.transformer ??
          transformerShape({ root: value.module, args: [] }),
        note: value.module.library?.note,
        module: value.module,
      };
    }
  }
  if (!tree) return undefined;
  return {
    name: tree.name,
    tree,
    params: tree.params.total,
    trainable: tree.params.trainable,
    largestLayer: tree.largestLayer?.params,
    transformer: tree.transformer,
    note: tree.constructorExpression ? `as \`${tree.constructorExpression}\`` : undefined,
  };
}

/** Gradient accumulation around a `backward()` call: the step count if named, and whether no_sync is used. */
export function gradientAccumulation(input: {
  call: SyntaxNode;
  root: SyntaxNode;
}): { steps?: number; noSync: boolean } | undefined {
  const text = input.root.text;
  const match =
    /\b(gradient_accumulation_steps|grad_accum_steps|grad_accum|accumulation_steps|accum_steps|accum_iter)\b\s*=\s*(\d+)/.exec(
      text,
    );
  let loop: SyntaxNode | null = input.call.parent;
  while (loop && loop.type !== 'for_statement' && loop.type !== 'while_statement') loop = loop.parent;
  if (!loop) return undefined;
  const guarded = /%\s*\w*accum\w*|no_sync|accumulate\(/.test(loop.text) || !!match;
  if (!guarded) return undefined;
  return {
    steps: match ? Number(match[2]) : undefined,
    noSync: /\bno_sync\s*\(|accelerator\.accumulate\(/.test(text),
  };
}

// `.view()` on tensors that come from untyped function parameters (SL201): the parameter is
// assumed to arrive contiguous, with unknown sizes (each > 1) and any rank the code allows;
// the view is judged at every such rank, and the verdicts are combined (fails at every rank,
// fails at some, never fails). Rank evidence comes from the code: the ops the evaluation
// follows (a `transpose(1, 2)` needs 3 dims) and direct uses of the parameter elsewhere.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from './file-model';
import { LayoutEvaluator } from './layout-eval';
import { literalInt } from './layout-eval';
import { contiguous, tryView, type Layout, type ViewVerdict } from './strides';
import { atom } from './symbolic-size';
import {
  fieldOf,
  firstPositionalArg,
  hasText,
  methodCall,
  positionalArgs,
  unwrap,
  walk,
} from './syntax-helpers';
import { perSubtree } from './per-model';
import { reachingParameter } from './reaching-definitions';
import { callerContiguity } from './layout-call-sites';

/** Ranks tried for a parameter whose rank the code does not bound (0-D up to this). */
export const MAX_PARAMETER_RANK = 6;
const MAX_PARAMETERS = 2;
const NON_TENSOR_ANNOTATIONS =
  /^(int|float|bool|str|bytes|list|tuple|dict|set|None|Optional\[(int|float|bool|str)\])$/;

/** One rank assignment and what the view does under it. */
export interface RankOutcome {
  ranks: ReadonlyMap<string, number>;
  layout: Layout;
  verdict: ViewVerdict;
}

/** The combined verdict for a view whose receiver comes from parameters. */
export interface ParameterViewJudgement {
  /** `fails`: raises at every rank the code allows; `may-fail`: raises at some. */
  kind: 'fails' | 'may-fail';
  /** The parameters the receiver is built from, in order of first use. */
  parameters: string[];
  failing: RankOutcome[];
  /** Rank assignments where the view succeeds or cannot be decided. */
  passing: RankOutcome[];
}

/** Judges `call` (an `x.view(...)`) when its receiver is built from untyped parameters. */
export function judgeParameterView(model: FileModel, call: SyntaxNode): ParameterViewJudgement | undefined {
  const method = methodCall(call);
  if (!method) return undefined;
  const found = new Map<SyntaxNode, string>();
  const probe = new LayoutEvaluator(model, {
    parameterLayout: (param) => {
      const name = tensorParameterName(param);
      if (name && found.size <= MAX_PARAMETERS) found.set(param, name);
      return name ? parameterLayout(name, 3) : undefined;
    },
  });
  probe.layoutOf(method.receiver);
  probe.shapeArgs(call);
  if (found.size === 0 || found.size > MAX_PARAMETERS) return undefined;
  const params = [...found.keys()];
  const candidates = params.map((param) => candidateRanksOf(param));
  const outcomes: RankOutcome[] = [];
  let undecided = false;
  for (const combination of product(candidates)) {
    const ranks = new Map(params.map((param, i) => [found.get(param)!, combination[i]]));
    const evaluator = new LayoutEvaluator(model, {
      parameterLayout: (param) => {
        const name = found.get(param);
        return name === undefined ? undefined : parameterLayout(name, ranks.get(name)!);
      },
    });
    const layout = evaluator.layoutOf(method.receiver);
    const shape = layout && evaluator.shapeArgs(call);
    // NOTE: no layout means the code raises (or is not followed) at this rank: it does not count.
    if (!layout || evaluator.inconsistent) continue;
    if (!layout.strides || !shape) {
      undecided = true;
      continue;
    }
    outcomes.push({ ranks, layout, verdict: tryView(layout, shape) });
  }
  const failing = outcomes.filter((o) => o.verdict.kind === 'fails');
  if (failing.length === 0) return undefined;
  // NOTE: the contiguous-input assumption stands only where no caller in the file contradicts it.
  for (const param of params) {
    const fn = enclosingScope(param);
    if (!fn || callerContiguity(model, { fn, param }) === 'unknown') return undefined;
  }
  const passing = outcomes.filter((o) => o.verdict.kind !== 'fails');
  const definite = !undecided && passing.length === 0 && failing.every((o) => isDefinite(o.verdict));
  return { kind: definite ? 'fails' : 'may-fail', parameters: [...found.values()], failing, passing };
}

function isDefinite(verdict: ViewVerdict): boolean {
  return verdict.kind === 'fails' && verdict.definite;
}

/** A contiguous tensor of `rank` dims whose sizes are the symbols `name.shape[i]`. */
function parameterLayout(name: string, rank: number): Layout {
  return contiguous(Array.from({ length: rank }, (_, i) => atom(`${name}.shape[${i}]`)));
}

/** The parameter's name when it may hold a tensor (not `self`, a splat or an `int`-annotated one). */
function tensorParameterName(param: SyntaxNode): string | undefined {
  if (!['identifier', 'typed_parameter', 'default_parameter', 'typed_default_parameter'].includes(param.type))
    return undefined;
  const id = param.type === 'identifier' ? param : param.children.find((c) => c.type === 'identifier');
  if (!id || id.text === 'self' || id.text === 'cls') return undefined;
  const annotation = fieldOf(param, 'type');
  if (annotation && NON_TENSOR_ANNOTATIONS.test(annotation.text.replace(/\s+/g, ''))) return undefined;
  return id.text;
}

/**
 * The ranks 0..MAX the direct uses of a parameter allow (shape unpacking, `permute`,
 * indices). They are read from its function's text alone, so each `.view()` built from the
 * parameter, in this version or a later one where the function is unchanged, asks once.
 */
function candidateRanksOf(param: SyntaxNode): readonly number[] {
  const fn = enclosingScope(param);
  return fn ? candidateRanksIn(fn, param) : ALL_RANKS;
}

const ALL_RANKS: readonly number[] = Array.from({ length: MAX_PARAMETER_RANK + 1 }, (_, rank) => rank);

const candidateRanksIn = perSubtree((fn: SyntaxNode, param: SyntaxNode): readonly number[] => {
  const name = tensorParameterName(param);
  const body = fieldOf(fn, 'body');
  if (!name || !body) return ALL_RANKS;
  let low = 0;
  let high = MAX_PARAMETER_RANK;
  walk(body, (node) => {
    if (node.type === 'function_definition' || node.type === 'lambda' || node.type === 'class_definition')
      return false;
    if (node.type !== 'identifier' || !hasText(node, name) || reachingParameter(node) !== param) return;
    const bound = rankBound(node);
    if (bound.exact !== undefined) {
      low = Math.max(low, bound.exact);
      high = Math.min(high, bound.exact);
    } else if (bound.atLeast !== undefined) low = Math.max(low, bound.atLeast);
  });
  const ranks: number[] = [];
  for (let r = low; r <= high; r++) ranks.push(r);
  return ranks;
});

function enclosingScope(param: SyntaxNode): SyntaxNode | undefined {
  let node: SyntaxNode | null = param.parent;
  while (node && node.type !== 'function_definition' && node.type !== 'lambda') node = node.parent;
  return node ?? undefined;
}

/** What one use of a parameter says about its rank. */
function rankBound(use: SyntaxNode): { exact?: number; atLeast?: number } {
  const parent = use.parent;
  if (!parent) return {};
  if (parent.type === 'subscript' && fieldOf(parent, 'value') === use) {
    const parts = parent.children.filter((c) => c.field === 'subscript');
    if (
      parts.some(
        (p) => p.type !== 'slice' && p.type !== 'integer' && p.type !== 'none' && p.type !== 'ellipsis',
      )
    )
      return {};
    return { atLeast: parts.filter((p) => p.type === 'slice' || p.type === 'integer').length };
  }
  if (parent.type !== 'attribute' || fieldOf(parent, 'object') !== use) return {};
  const attribute = fieldOf(parent, 'attribute')?.text;
  const outer = parent.parent;
  // NOTE: `.T` is PyTorch's matrix transpose; on 0-D and 1-D tensors it does nothing, and the
  // docs deprecate it for ranks other than 2, so code that writes it holds at least a matrix.
  if (attribute === 'mT' || attribute === 'mH' || attribute === 'T') return { atLeast: 2 };
  if (attribute === 'ndim' || attribute === 'dim' || attribute === 'ndimension') {
    const count = attribute === 'ndim' ? parent : outer?.type === 'call' ? outer : undefined;
    return count ? assertedEqual(count) : {};
  }
  if (attribute === 'shape' || attribute === 'size') {
    const call = attribute === 'size' && outer?.type === 'call' ? outer : undefined;
    const holder = call ?? parent;
    if (call && positionalArgs(call).length === 1) return indexBound(literalInt(firstPositionalArg(call)));
    const container = holder.parent;
    if (container?.type === 'subscript' && fieldOf(container, 'value') === holder) {
      const parts = container.children.filter((c) => c.field === 'subscript');
      return parts.length === 1 ? indexBound(literalInt(parts[0])) : {};
    }
    if (container?.type === 'assignment' && fieldOf(container, 'right') === holder) {
      const left = unwrap(fieldOf(container, 'left') ?? holder);
      const names = left.children.filter((c) => c.type !== ',');
      const starred = names.some((c) => c.type === 'list_splat_pattern');
      if (['pattern_list', 'tuple_pattern', 'list_pattern'].includes(left.type) && !starred)
        return { exact: names.length };
    }
    return {};
  }
  if (outer?.type !== 'call') return {};
  const args = positionalArgs(outer).map(literalInt);
  if (attribute === 'permute' && args.length > 0 && args.every((a) => a !== undefined))
    return { exact: args.length };
  if (
    (attribute === 'transpose' || attribute === 'swapaxes') &&
    args.length === 2 &&
    args.every((a) => a !== undefined)
  )
    return { atLeast: Math.max(...args.map((a) => (a! < 0 ? -a! : a! + 1))) };
  return {};
}

/** `assert x.dim() == 4` (the count node compared with a literal, directly under an assert). */
function assertedEqual(count: SyntaxNode): { exact?: number } {
  const comparison = count.parent;
  if (comparison?.type !== 'comparison_operator' || comparison.parent?.type !== 'assert_statement') return {};
  const operands = comparison.children.filter((c) => c.field !== 'operators' && c.type !== '==');
  if (operands.length !== 2 || !/^\s*\S+\s*==\s*\S+\s*$/.test(comparison.text.replace(count.text, 'N')))
    return {};
  const other = operands.find((o) => o !== count);
  const value = literalInt(other);
  return value === undefined || value < 0 ? {} : { exact: value };
}

function indexBound(index: number | undefined): { atLeast?: number } {
  return index === undefined ? {} : { atLeast: index < 0 ? -index : index + 1 };
}

function* product(lists: readonly (readonly number[])[]): Generator<number[]> {
  if (lists.length === 0) {
    yield [];
    return;
  }
  const [first, ...rest] = lists;
  for (const head of first) for (const tail of product(rest)) yield [head, ...tail];
}

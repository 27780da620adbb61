// Guards that change how often a statement inside a training step runs: periodic tests
// (`step % n == 0`, a logging flag), early exits (`if not should_log: return`, `if step % n:
// continue`), fatal-error branches (print, then exit or raise: at most once), rank-0 guards
// (only rank 0 runs it, every step: not amortised), opt-in flags (an argparse
// `store_true` / `default=False` option, a `bool = False` config field or a `flag=False`
// keyword parameter: off by default),
// and a statement right after an explicit `synchronize()` (nothing left to wait for).
import type { SyntaxNode } from '../parse/syntax';
import type { NodeIndex } from './file-model';
import { fieldOf, keywordArg, lastName, lastNameIs, positionalArgs, unwrap } from './syntax-helpers';

/** Why a statement of a training step runs less often than every step, or only on one rank. */
export type GuardNote =
  | { kind: 'interval' }
  | { kind: 'once' }
  | { kind: 'rank0' }
  | { kind: 'opt-in'; flag: string; defaultShown: boolean }
  | { kind: 'after-sync' };

/** What a condition's truth says about how often its branch runs. */
interface ConditionFacts {
  /** True once per interval (`step % n == 0`, a logging flag). */
  rare: boolean;
  /** False once per interval (`step % n`, `not should_log`). */
  frequent: boolean;
  /** True on rank 0 only. */
  rank0: boolean;
  /** False on every rank but 0. */
  notRank0: boolean;
  /** An off-by-default flag that must be set for the condition to hold. */
  optIn?: string;
  /** Whether the file shows that flag's default (false: a config option defined elsewhere). */
  optInShown?: boolean;
}

const LOGGING_FLAG = /(^|_)(log|logs|logging|print|report|verbose|display)(_|$|\d)|wandb|tensorboard/i;
const RANK_ZERO_FLAG = /master_process|main_process|is_main|global_zero|rank_zero|rank0|is_master/i;
const RANK_NAME =
  /^(rank|local_rank|global_rank|node_rank|ddp_rank|ddp_local_rank|process_index|local_process_index|get_rank|global_rank_id)$/;
const RANK_ZERO_CALL =
  /(^|\.)(is_main_process|is_local_main_process|is_global_zero|is_rank_0|is_rank_zero|is_master)\s*\(/;
/** Objects holding parsed options or configs (`args.x`, `self.cfg.x`). */
const CONFIG_OBJECT = /^(args|opt|opts|options|config|cfg|hparams|flags)$/;
const FATAL_CALL = /^(sys\.exit|exit|quit|os\._exit|os\.abort)$/;

/**
 * The off-by-default flags of a file: argparse `store_true` / `default=False` options and
 * `bool = False` fields. `addArgumentCalls` holds (at least) every `add_argument(...)` call.
 */
export function collectOptInFlags(
  nodes: Pick<NodeIndex, 'assignment' | 'default_parameter'>,
  addArgumentCalls: readonly SyntaxNode[],
  defined: Set<string> = new Set(),
): Set<string> {
  const flags = new Set<string>();
  for (const call of addArgumentCalls) {
    const callee = fieldOf(call, 'function');
    if (!callee || !lastNameIs(callee, 'add_argument')) continue;
    const action = keywordArg(call, 'action')?.text.replace(/['"]/g, '');
    const defaultValue = keywordArg(call, 'default')?.text;
    const offByDefault =
      (action === 'store_true' && (!defaultValue || defaultValue === 'False')) || defaultValue === 'False';
    const dest = keywordArg(call, 'dest')?.text.replace(/['"]/g, '');
    const long = positionalArgs(call)
      .map((a) => a.text.replace(/['"]/g, ''))
      .find((a) => a.startsWith('--'));
    const name = dest ?? long?.slice(2).replace(/-/g, '_');
    if (name) defined.add(name);
    if (name && offByDefault) flags.add(name);
  }
  // Outside function bodies (a function's own parameters included); only membership is read.
  for (const node of nodes.default_parameter) {
    // `def __init__(self, use_fp16=False)`: a keyword parameter off by default.
    if (fieldOf(node, 'value')?.text !== 'False' || inFunctionBody(node)) continue;
    const name = fieldOf(node, 'name');
    if (name?.type === 'identifier') flags.add(name.text);
  }
  for (const node of nodes.assignment) {
    // `flag: bool = False` in a class body (dataclass or config class).
    const annotation = fieldOf(node, 'type');
    if (!annotation || inFunctionBody(node)) continue;
    const left = fieldOf(node, 'left');
    if (left?.type !== 'identifier') continue;
    if (annotation.text === 'bool' && fieldOf(node, 'right')?.text === 'False') flags.add(left.text);
    defined.add(left.text);
  }
  return flags;
}

/** Whether `node` lies in the body of a function (of any depth). */
function inFunctionBody(node: SyntaxNode): boolean {
  for (let up = node.parent; up; up = up.parent)
    if (up.type === 'block' && up.parent?.type === 'function_definition') return true;
  return false;
}

/** What reading a condition needs from the file. */
export interface GuardContext {
  optInFlags: ReadonlySet<string>;
  /** Every option the file defines (argparse destinations, annotated config fields). */
  definedOptions?: ReadonlySet<string>;
  /** The value last assigned to a name before its use, in its function. */
  assigned: (name: SyntaxNode) => SyntaxNode | undefined;
  /** The expression a same-file function returns (its only `return`), for `if divisible_by(step, n):`. */
  returned: (call: SyntaxNode) => SyntaxNode | undefined;
  /** Names the file counts up by one (`iteration += 1`): `counter == value` holds on one step. */
  counters?: ReadonlySet<string>;
  /** The facts of each condition read so far (a condition guards every statement of its branch). */
  conditions?: Map<SyntaxNode, ConditionFacts>;
}

/** Reads the facts of a condition; `assigned` gives a name's last assigned value (one hop). */
export function conditionFacts(condition: SyntaxNode, context: GuardContext, depth = 0): ConditionFacts {
  if (depth > 0 || !context.conditions) return readCondition(condition, context, depth);
  let facts = context.conditions.get(condition);
  if (!facts) context.conditions.set(condition, (facts = readCondition(condition, context, 0)));
  return facts;
}

function readCondition(condition: SyntaxNode, context: GuardContext, depth: number): ConditionFacts {
  const node = unwrap(condition);
  const none: ConditionFacts = { rare: false, frequent: false, rank0: false, notRank0: false };
  if (depth > 6) return none;
  if (node.type === 'not_operator') {
    const inner = conditionFacts(node.children[0], context, depth + 1);
    return { rare: inner.frequent, frequent: inner.rare, rank0: inner.notRank0, notRank0: inner.rank0 };
  }
  if (node.type === 'boolean_operator') {
    const [a, b] = [node.children[0], node.children[1]].map((c) => conditionFacts(c, context, depth + 1));
    if (node.operator === 'or')
      return {
        rare: (a.rare || b.rare) && !a.frequent && !b.frequent,
        frequent: a.frequent || b.frequent,
        rank0: a.rank0 && b.rank0,
        notRank0: a.notRank0 || b.notRank0,
      };
    return {
      rare: a.rare || b.rare,
      frequent: a.frequent && b.frequent,
      rank0: a.rank0 || b.rank0,
      notRank0: a.notRank0 && b.notRank0,
      optIn: a.optIn ?? b.optIn,
      optInShown: a.optIn ? a.optInShown : b.optInShown,
    };
  }
  if (node.type === 'binary_operator' && node.operator === '%') return { ...none, frequent: true };
  if (node.type === 'comparison_operator') {
    const [left, right] = node.children;
    const operator = node.operator ?? '';
    if (left && right && unwrap(left).type === 'binary_operator' && unwrap(left).operator === '%') {
      if (operator === '==') return { ...none, rare: true };
      if (operator === '!=') return { ...none, frequent: true };
    }
    // `iteration == start_iteration + 1`: a counter stepped by one equals a value on one step
    // (per value), never every step.
    if (left && right && operator === '==' && context.counters?.size) {
      for (const [side, other] of [
        [left, right],
        [right, left],
      ]) {
        const counter = unwrap(side);
        if (
          (counter.type === 'identifier' || counter.type === 'attribute') &&
          context.counters.has(counter.text) &&
          !mentions(other.text, counter.text)
        )
          return { ...none, rare: true };
      }
    }
    if (left && right && right.text === '0' && isRankName(left)) {
      if (operator === '==') return { ...none, rank0: true };
      if (operator === '!=' || operator === '>') return { ...none, notRank0: true };
    }
    return none;
  }
  if (node.type === 'call' && RANK_ZERO_CALL.test(node.text)) return { ...none, rank0: true };
  if (node.type === 'call') {
    const value = context.returned(node);
    if (value) return conditionFacts(value, context, depth + 1);
  }
  if (node.type === 'identifier' || node.type === 'attribute') {
    const name = lastName(node) ?? '';
    if (RANK_ZERO_FLAG.test(name)) return { ...none, rank0: true };
    if (context.optInFlags.has(name)) return { ...none, optIn: name, optInShown: true };
    // `if args.exit_after_minutes:` with the option defined in another file: its default is not
    // shown, so the branch is weak evidence of running every step.
    const owner = node.type === 'attribute' ? fieldOf(node, 'object') : undefined;
    if (owner && CONFIG_OBJECT.test(lastName(owner) ?? '') && !context.definedOptions?.has(name))
      return { ...none, optIn: name, optInShown: false };
    if (node.type === 'identifier') {
      const value = context.assigned(node);
      if (value && value !== node) {
        const facts = conditionFacts(value, context, depth + 1);
        if (facts.rare || facts.frequent || facts.rank0 || facts.notRank0) return facts;
      }
    }
    if (LOGGING_FLAG.test(name)) return { ...none, rare: true };
  }
  return none;
}

/** Whether `text` uses the name (or attribute chain) `name` as a whole word. */
function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.])${escaped}(?!\\w)`).test(text);
}

function isRankName(node: SyntaxNode): boolean {
  const target = unwrap(node);
  const name = target.type === 'call' ? lastName(fieldOf(target, 'function') ?? target) : lastName(target);
  return !!name && RANK_NAME.test(name);
}

/** How a block ends: an exit statement that leaves the function, the iteration or the program. */
export function blockExit(
  block: SyntaxNode | undefined,
): 'return' | 'continue' | 'break' | 'fatal' | undefined {
  const statements = block?.children.filter((c) => c.type !== 'comment') ?? [];
  const last = statements[statements.length - 1];
  if (!last) return undefined;
  if (last.type === 'raise_statement') return 'fatal';
  if (last.type === 'return_statement') return 'return';
  if (last.type === 'continue_statement') return 'continue';
  if (last.type === 'break_statement') return 'break';
  if (last.type === 'expression_statement') {
    const call = unwrap(last.children[0] ?? last);
    const callee = call.type === 'call' ? fieldOf(call, 'function')?.text : undefined;
    if (callee && FATAL_CALL.test(callee)) return 'fatal';
  }
  return undefined;
}

/**
 * The guard note for `statement` from the `if` statements between it and `boundary`: the
 * branches it sits in, and the early exits before it in each enclosing block. `trains`
 * tells whether a branch body does training work (then it is the step, not a logging branch).
 */
export function guardNote(input: {
  statement: SyntaxNode;
  boundary: SyntaxNode | undefined;
  context: GuardContext;
  trains: (block: SyntaxNode) => boolean;
}): GuardNote | undefined {
  const { statement, boundary, context } = input;
  if (followsSynchronize(statement)) return { kind: 'after-sync' };
  let rank0 = false;
  let optIn: { flag: string; shown: boolean } | undefined;
  let child = statement;
  for (let current = statement.parent; current && current !== boundary; current = current.parent) {
    if (
      (current.type === 'if_statement' || current.type === 'elif_clause') &&
      fieldOf(current, 'consequence') === child
    ) {
      if (blockExit(child) === 'fatal') return { kind: 'once' };
      const facts = conditionFacts(fieldOf(current, 'condition')!, context);
      if (facts.rare && !input.trains(child)) return { kind: 'interval' };
      rank0 ||= facts.rank0;
      if (facts.optIn) optIn ??= { flag: facts.optIn, shown: facts.optInShown ?? false };
    }
    if (
      current.type === 'else_clause' &&
      blockExit(fieldOf(current, 'body') ?? current.children.find((c) => c.type === 'block')) === 'fatal'
    )
      return { kind: 'once' };
    if (current.type === 'block') {
      // Early exits before `child` in this block: what follows runs only when their condition fails.
      for (const sibling of current.children) {
        if (sibling === child) break;
        if (sibling.type !== 'if_statement' || sibling.children.some((c) => c.field === 'alternative'))
          continue;
        const exit = blockExit(fieldOf(sibling, 'consequence'));
        if (exit !== 'return' && exit !== 'continue') continue;
        const facts = conditionFacts(fieldOf(sibling, 'condition')!, context);
        if (facts.frequent) return { kind: 'interval' };
        rank0 ||= facts.notRank0;
      }
    }
    child = current;
  }
  if (optIn) return { kind: 'opt-in', flag: optIn.flag, defaultShown: optIn.shown };
  return rank0 ? { kind: 'rank0' } : undefined;
}

const SYNCHRONIZE = /\.synchronize\(\s*\)$/;

/** Whether the statement right before `statement` (same block) is an explicit `...synchronize()`. */
function followsSynchronize(statement: SyntaxNode): boolean {
  if (SYNCHRONIZE.test(statement.text.trim())) return false;
  const siblings = statement.parent?.children.filter((c) => c.type !== 'comment') ?? [];
  const index = siblings.indexOf(statement);
  const previous = index > 0 ? siblings[index - 1] : undefined;
  return previous?.type === 'expression_statement' && SYNCHRONIZE.test(previous.text.trim());
}

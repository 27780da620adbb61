// The role of every statement: hot training step, logging branch, eval, or setup. A hot
// step is a loop body that runs backward() or an optimizer step (any spelling: plain,
// GradScaler, accelerate, DeepSpeed, Lightning), or a function called from one.
import type { SyntaxNode } from '../parse/syntax';
import type { ImportTable } from './imports';
import type { NodeIndex } from './file-model';
import {
  enclosingFunction,
  fieldOf,
  methodCall,
  lastName,
  walk,
  unwrap,
  STATEMENT_TYPES,
} from './syntax-helpers';

/** Where a statement runs, from most to least costly. */
export type Role = 'hot' | 'logging' | 'eval' | 'setup';

const ROLE_RANK: Record<Role, number> = { hot: 3, logging: 2, eval: 1, setup: 0 };
const LOOPS = new Set(['for_statement', 'while_statement']);
const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);

/** Function names that frameworks call once per training step. */
const TRAINING_STEP_FUNCTIONS = /^(training_step|train_step|compute_loss)$/;
/** Function names that run evaluation (Lightning hooks and common helpers). */
const EVAL_FUNCTIONS =
  /^(eval\w*|evaluate\w*|valid\w*|validation_step|test\w*|predict\w*|estimate_loss|inference\w*|generate\w*|sample\w*)$/i;
/** Receivers whose `.step()` is an optimizer step (an LR scheduler's is not). */
const OPTIMIZER_RECEIVER = /(^|_)(optim\w*|opt|optimizer\w*|engine|model_engine|scaler|trainer)$/i;
const SCHEDULER_RECEIVER = /sched|lr_|warmup/i;
/** Conditions that mark a logging branch: rank-0 guards and logging flags. */
const LOGGING_NAME =
  /(^|_)(log|logs|logging|print|report|verbose|display)(_|$|\d)|master_process|main_process|is_main|global_zero|rank_zero|rank0|wandb|tensorboard/i;
const RANK_NAME =
  /^(rank|local_rank|global_rank|node_rank|ddp_rank|ddp_local_rank|process_index|local_process_index|get_rank)$/;

/** Whether `call` is a training call: `backward`, an optimizer step, or a framework's spelling of them. */
export function isTrainingCall(call: SyntaxNode, optimizerNames: ReadonlySet<string>): boolean {
  const method = methodCall(call);
  if (!method) return false;
  if (method.name === 'backward') return true;
  if (method.name === 'optimizer_step') return true;
  if (method.name !== 'step') return false;
  const receiver = lastName(method.receiver);
  if (!receiver) return false;
  if (optimizerNames.has(receiver)) return true;
  return OPTIMIZER_RECEIVER.test(receiver) && !SCHEDULER_RECEIVER.test(receiver);
}

/** Names assigned an optimizer (`opt = torch.optim.AdamW(...)`, `self.optimizer = ...`). */
export function collectOptimizerNames(assignments: readonly SyntaxNode[], imports: ImportTable): Set<string> {
  const names = new Set<string>();
  for (const node of assignments) {
    const right = fieldOf(node, 'right');
    if (!right || right.type !== 'call') continue;
    const callee = fieldOf(right, 'function');
    const qualified = callee ? (imports.resolve(callee) ?? '') : '';
    if (!/^(torch\.optim\.[A-Z]|bitsandbytes\.optim\.|transformers\.(AdamW|Adafactor))/.test(qualified))
      continue;
    const left = fieldOf(node, 'left');
    const name = left && lastName(left);
    if (name) names.add(name);
  }
  return names;
}

/** Computes and caches the role of statements of one file. */
export class LoopRoles {
  private readonly functions = new Map<string, SyntaxNode[]>();
  private readonly functionRole = new Map<SyntaxNode, Role>();
  private readonly hotLoops = new Map<SyntaxNode, boolean>();
  private readonly stepsDirectly = new Map<SyntaxNode, boolean>();
  private readonly roleCache = new Map<SyntaxNode, Role>();
  /**
   * `bodyTrains` of `if` consequences, asked for every statement below a logging `if`.
   * Only filled after the constructor has settled every function's `stepsDirectly`, so the
   * answer no longer depends on the order of the questions.
   */
  private readonly consequenceTrains = new Map<SyntaxNode, boolean>();

  /** `nodes` is the FileModel's node index (every function and call, in document order). */
  constructor(
    nodes: Pick<NodeIndex, 'function_definition' | 'call'>,
    private readonly optimizerNames: ReadonlySet<string>,
  ) {
    for (const node of nodes.function_definition) {
      const name = fieldOf(node, 'name')?.text;
      if (!name) continue;
      const known = this.functions.get(name);
      if (known) known.push(node);
      else this.functions.set(name, [node]);
    }
    this.propagateCallers(nodes.call);
  }

  /** The role of the statement containing `node`. */
  roleOf(node: SyntaxNode): Role {
    let statement: SyntaxNode = node;
    while (statement.parent && !STATEMENT_TYPES.has(statement.type)) statement = statement.parent;
    const cached = this.roleCache.get(statement);
    if (cached) return cached;
    const role = this.computeRole(statement);
    this.roleCache.set(statement, role);
    return role;
  }

  /** Whether `loop` itself iterates once per training step (its own body trains). */
  isHotLoop(loop: SyntaxNode): boolean {
    let hot = this.hotLoops.get(loop);
    if (hot === undefined) {
      hot = this.bodyTrains(fieldOf(loop, 'body') ?? loop);
      this.hotLoops.set(loop, hot);
    }
    return hot;
  }

  /** The innermost loop enclosing `node` within its function, if any. */
  enclosingLoop(node: SyntaxNode): SyntaxNode | undefined {
    for (let current = node.parent; current; current = current.parent) {
      if (SCOPES.has(current.type)) return undefined;
      if (LOOPS.has(current.type) && isInLoopBody(node, current)) return current;
    }
    return undefined;
  }

  /** Whether a statement list trains (outside nested loops and definitions), directly or through a called step function. */
  private bodyTrains(body: SyntaxNode): boolean {
    let trains = false;
    walk(body, (node) => {
      if (trains) return false;
      if (node !== body && (LOOPS.has(node.type) || SCOPES.has(node.type))) return false;
      if (node.type !== 'call') return;
      if (isTrainingCall(node, this.optimizerNames)) trains = true;
      else if (this.calledFunctions(node).some((f) => this.functionStepsDirectly(f))) trains = true;
    });
    return trains;
  }

  private functionStepsDirectly(fn: SyntaxNode): boolean {
    const known = this.stepsDirectly.get(fn);
    if (known !== undefined) return known;
    this.stepsDirectly.set(fn, false); // recursion guard
    const result = this.bodyTrains(fieldOf(fn, 'body') ?? fn);
    this.stepsDirectly.set(fn, result);
    return result;
  }

  /** Same-file functions a call may invoke: `f(...)` and `self.f(...)`. */
  private calledFunctions(call: SyntaxNode): SyntaxNode[] {
    const callee = fieldOf(call, 'function');
    if (!callee) return [];
    const target = unwrap(callee);
    if (target.type === 'identifier') return this.functions.get(target.text) ?? [];
    if (target.type === 'attribute' && fieldOf(target, 'object')?.text === 'self') {
      return this.functions.get(fieldOf(target, 'attribute')?.text ?? '') ?? [];
    }
    return [];
  }

  /** Roles of functions: step functions are hot; functions called from a context inherit its role. */
  private propagateCallers(allCalls: readonly SyntaxNode[]): void {
    for (const fns of this.functions.values()) {
      for (const fn of fns) {
        const name = fieldOf(fn, 'name')?.text ?? '';
        if (TRAINING_STEP_FUNCTIONS.test(name) || this.functionStepsDirectly(fn))
          this.functionRole.set(fn, 'hot');
      }
    }
    // Each call with the same-file functions it may invoke (a function calling itself excluded).
    const edges: [SyntaxNode, SyntaxNode[]][] = [];
    for (const call of allCalls) {
      const called = this.calledFunctions(call);
      if (!called.length) continue;
      const caller = enclosingFunction(call);
      const callees = called.filter((fn) => fn !== caller);
      if (callees.length) edges.push([call, callees]);
    }
    for (let iteration = 0; iteration < 6; iteration++) {
      this.roleCache.clear();
      let changed = false;
      for (const [call, callees] of edges) {
        const role = this.roleOf(call);
        if (role === 'setup') continue;
        for (const fn of callees) {
          const current = this.functionRole.get(fn) ?? 'setup';
          if (ROLE_RANK[role] > ROLE_RANK[current]) {
            this.functionRole.set(fn, role);
            changed = true;
          }
        }
      }
      if (!changed) break;
    }
    this.roleCache.clear();
  }

  private computeRole(statement: SyntaxNode): Role {
    const fn = enclosingFunction(statement);
    const fnName = fn ? (fieldOf(fn, 'name')?.text ?? '') : '';
    const evalScope = !!fn && (EVAL_FUNCTIONS.test(fnName) || hasNoGradDecorator(fn));
    const loop = this.enclosingLoop(statement);
    let role: Role;
    let boundary: SyntaxNode | undefined;
    if (loop && this.isHotLoop(loop)) {
      role = 'hot';
      boundary = loop;
    } else if (loop) {
      const outer = this.roleOf(loop);
      if (evalScope || insideNoGrad(statement, fn)) role = 'eval';
      else role = outer;
      boundary = loop;
    } else {
      role = fn ? (this.functionRole.get(fn) ?? 'setup') : 'setup';
      if (role === 'eval' && !loop) role = 'setup';
      boundary = fn;
    }
    if (role === 'hot' && (evalScope || insideEvalBlock(statement, boundary))) role = 'eval';
    if (role === 'hot' && this.insideLoggingBranch(statement, boundary)) role = 'logging';
    return role;
  }

  private consequenceTrainsCached(consequence: SyntaxNode): boolean {
    let trains = this.consequenceTrains.get(consequence);
    if (trains === undefined) {
      trains = this.bodyTrains(consequence);
      this.consequenceTrains.set(consequence, trains);
    }
    return trains;
  }

  /** Whether `statement` sits in the consequence of a logging `if` between it and `boundary`. */
  private insideLoggingBranch(statement: SyntaxNode, boundary: SyntaxNode | undefined): boolean {
    let child = statement;
    for (let current = statement.parent; current && current !== boundary; current = current.parent) {
      if (current.type === 'if_statement' || current.type === 'elif_clause') {
        const condition = fieldOf(current, 'condition');
        const consequence = fieldOf(current, 'consequence');
        if (
          condition &&
          consequence === child &&
          isLoggingCondition(condition) &&
          !this.consequenceTrainsCached(consequence)
        ) {
          return true;
        }
      }
      if (current.type === 'conditional_expression') return false;
      child = current;
    }
    return false;
  }
}

function isInLoopBody(node: SyntaxNode, loop: SyntaxNode): boolean {
  const body = fieldOf(loop, 'body');
  for (let current: SyntaxNode | null = node; current && current !== loop; current = current.parent) {
    if (current === body) return true;
  }
  return false;
}

function hasNoGradDecorator(fn: SyntaxNode): boolean {
  const decorated = fn.parent?.type === 'decorated_definition' ? fn.parent : undefined;
  return !!decorated?.children.some((c) => c.type === 'decorator' && /no_grad|inference_mode/.test(c.text));
}

const EVAL_BLOCK = /\b(no_grad|inference_mode)\s*\(|set_grad_enabled\s*\(\s*False/;

/** Whether a `with torch.no_grad()` (or inference_mode) encloses `statement` below `boundary`. */
function insideEvalBlock(statement: SyntaxNode, boundary: SyntaxNode | undefined): boolean {
  for (let current = statement.parent; current && current !== boundary; current = current.parent) {
    if (current.type === 'with_statement') {
      const clause = current.children.find((c) => c.type === 'with_clause');
      if (clause && EVAL_BLOCK.test(clause.text)) return true;
    }
  }
  return false;
}

function insideNoGrad(statement: SyntaxNode, fn: SyntaxNode | undefined): boolean {
  return insideEvalBlock(statement, fn);
}

/**
 * Whether an `if` condition marks a logging branch: a periodic test (`step % n == 0`),
 * a rank-0 guard, or a logging flag.
 */
export function isLoggingCondition(condition: SyntaxNode): boolean {
  let logging = false;
  walk(condition, (node) => {
    if (logging) return false;
    if (node.type === 'binary_operator' && node.operator === '%') logging = true;
    else if (node.type === 'identifier' && LOGGING_NAME.test(node.text)) logging = true;
    else if (node.type === 'comparison_operator' && compareRankToZero(node)) logging = true;
    else if (
      node.type === 'call' &&
      /is_main_process|is_local_main_process|is_global_zero|rank_zero/.test(node.text)
    ) {
      logging = true;
    }
  });
  return logging;
}

function compareRankToZero(comparison: SyntaxNode): boolean {
  const [left, right] = comparison.children;
  if (!left || !right || right.text !== '0') return false;
  const name = left.type === 'call' ? lastName(fieldOf(left, 'function') ?? left) : lastName(left);
  return !!name && RANK_NAME.test(name);
}

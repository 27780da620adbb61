// The role of every statement: hot training step, logging branch, eval, or setup. A hot
// step is the body of a step loop (training-step.ts), a function called from one — the
// forward of the file's modules included — and what role-guards.ts says about the guards
// around it (interval, once, rank 0 only, opt-in flag).
import type { SyntaxNode } from '../parse/syntax';
import type { ImportTable } from './imports';
import type { NodeIndex } from './file-model';
import type { Kind } from './kinds';
import {
  enclosingFunction,
  fieldOf,
  lastName,
  mergeInDocumentOrder,
  walk,
  unwrap,
  STATEMENT_TYPES,
} from './syntax-helpers';
import { TrainingStepModel, callEffect } from './training-step';
import { lastAssignedIn } from './assignment-index';
import { collectOptInFlags, guardNote, type GuardContext, type GuardNote } from './role-guards';
import { CallNameIndex } from './call-names';

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

/** Whether `call` is a training call: `backward`, an optimizer step, or a framework's spelling of them. */
export function isTrainingCall(call: SyntaxNode, optimizerNames: ReadonlySet<string>): boolean {
  return callEffect(call, optimizerNames) !== undefined;
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

/** What the role model needs from the kind inference (absent in tests that build roles alone). */
export interface RoleKindFacts {
  kindOf(node: SyntaxNode): Kind;
  /** Names of the file's nn.Module classes. */
  moduleClasses: ReadonlySet<string>;
  /** Every call of the file, and the root (for the opt-in flags). */
  root?: SyntaxNode;
  /** The file's calls by name (built from the calls alone when absent). */
  callNames?: CallNameIndex;
}

/** A role with the guard that shaped it. */
interface RoleWithNote {
  role: Role;
  note?: GuardNote;
}

/** Computes and caches the role of statements of one file. */
export class LoopRoles {
  private readonly steps: TrainingStepModel;
  private readonly functionRole = new Map<SyntaxNode, RoleWithNote>();
  private readonly hotLoops = new Map<SyntaxNode, boolean>();
  private readonly roleCache = new Map<SyntaxNode, RoleWithNote>();
  private readonly consequenceTrains = new Map<SyntaxNode, boolean>();
  /** How many times `propagateCallers` raised a function's role (a version of `functionRole`). */
  private roleChanges = 0;
  /** Names counted up by one somewhere in the file (`step += 1`, `self.iteration += 1`). */
  private readonly counters = new Set<string>();
  /**
   * The guard note of each hot statement. It depends only on the statement's enclosing
   * branches and on file-wide facts, not on function roles, so the rounds of
   * `propagateCallers` (which clear the role cache) read it once.
   */
  private readonly guards = new Map<SyntaxNode, GuardNote | undefined>();
  private guardContextValue: GuardContext | undefined;
  private readonly callNames: CallNameIndex;

  /** `nodes` is the FileModel's node index (every function and call, in document order). */
  constructor(
    private readonly nodes: Pick<
      NodeIndex,
      | 'function_definition'
      | 'call'
      | 'assignment'
      | 'for_statement'
      | 'while_statement'
      | 'lambda'
      | 'class_definition'
      | 'augmented_assignment'
      | 'default_parameter'
    >,
    private readonly optimizerNames: ReadonlySet<string>,
    private readonly facts?: RoleKindFacts,
    /** Functions another file calls from its hot step: hot here too (cross-file analysis). */
    entryFunctions: readonly SyntaxNode[] = [],
  ) {
    this.callNames = facts?.callNames ?? new CallNameIndex(nodes.call);
    this.steps = new TrainingStepModel({
      callNames: this.callNames,
      functions: nodes.function_definition,
      classes: nodes.class_definition,
      blockNodes: () =>
        mergeInDocumentOrder([
          nodes.call,
          nodes.for_statement,
          nodes.while_statement,
          nodes.function_definition,
          nodes.lambda,
          nodes.class_definition,
        ]),
      optimizerNames,
      isTensor: facts && ((node) => facts.kindOf(node) === 'tensor'),
    });
    for (const update of nodes.augmented_assignment) {
      const target = fieldOf(update, 'left');
      if (update.operator === '+=' && fieldOf(update, 'right')?.text === '1' && target)
        this.counters.add(target.text);
    }
    for (const fn of entryFunctions) this.functionRole.set(fn, { role: 'hot' });
    this.propagateCallers(nodes.call);
  }

  /** The role of the statement containing `node`. */
  roleOf(node: SyntaxNode): Role {
    return this.roleWithNote(node).role;
  }

  /** The guard that shaped the role of the statement containing `node` (rank 0 only, opt-in flag, ...). */
  noteOf(node: SyntaxNode): GuardNote | undefined {
    return this.roleWithNote(node).note;
  }

  private roleWithNote(node: SyntaxNode): RoleWithNote {
    let statement: SyntaxNode = node;
    while (statement.parent && !STATEMENT_TYPES.has(statement.type)) statement = statement.parent;
    const cached = this.roleCache.get(statement);
    if (cached) return cached;
    const role = this.computeRole(statement);
    this.roleCache.set(statement, role);
    return role;
  }

  /** Whether `loop` itself iterates once per training step (its body trains and holds no whole step loop). */
  isHotLoop(loop: SyntaxNode): boolean {
    let hot = this.hotLoops.get(loop);
    if (hot === undefined) {
      hot = this.steps.isStepLoop(loop);
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

  /** Whether a statement list does training work (outside nested definitions). */
  private bodyTrains(body: SyntaxNode): boolean {
    let trains = false;
    walk(body, (node) => {
      if (trains) return false;
      if (node !== body && SCOPES.has(node.type)) return false;
      if (node.type !== 'call') return;
      if (isTrainingCall(node, this.optimizerNames)) trains = true;
      else if (this.steps.calledFunctions(node).some((f) => this.steps.isStepFunction(f))) trains = true;
    });
    return trains;
  }

  /** The forward methods of the file's modules that a module call in a step may run. */
  private reachableForwards(): SyntaxNode[] {
    const moduleClasses = this.facts?.moduleClasses;
    const classes = this.nodes.class_definition;
    if (!moduleClasses?.size || !classes.length) return [];
    const byName = new Map(classes.map((c) => [fieldOf(c, 'name')?.text ?? '', c]));
    // One pass over the calls that construct a module class of the file: each is a root when
    // no module class encloses it, and an edge from every class that does enclose it.
    const roots = new Set<string>();
    const constructedIn = new Map<SyntaxNode, string[]>();
    for (const call of this.callNames.namedAny([...moduleClasses].filter((name) => byName.has(name)))) {
      const name = lastName(unwrap(fieldOf(call, 'function') ?? call));
      if (!name || !moduleClasses.has(name) || !byName.has(name)) continue;
      let insideModule = false;
      for (let p = call.parent; p; p = p.parent) {
        if (p.type !== 'class_definition') continue;
        insideModule ||= moduleClasses.has(fieldOf(p, 'name')?.text ?? '');
        const found = constructedIn.get(p);
        if (found) found.push(name);
        else constructedIn.set(p, [name]);
      }
      if (!insideModule) roots.add(name);
    }
    // Module classes the roots construct, directly or through the classes they construct.
    const reached = new Set<string>();
    const pending = [...roots];
    while (pending.length) {
      const name = pending.pop()!;
      if (reached.has(name)) continue;
      reached.add(name);
      pending.push(...(constructedIn.get(byName.get(name)!) ?? []));
    }
    const forwards: SyntaxNode[] = [];
    for (const fn of this.nodes.function_definition) {
      if (fieldOf(fn, 'name')?.text !== 'forward') continue;
      let owner: SyntaxNode | null = fn.parent;
      while (owner && owner.type !== 'class_definition') owner = owner.parent;
      if (owner && reached.has(fieldOf(owner, 'name')?.text ?? '')) forwards.push(fn);
    }
    return forwards;
  }

  /** Roles of functions: step functions are hot; functions called from a context inherit its role. */
  private propagateCallers(allCalls: readonly SyntaxNode[]): void {
    for (const fn of this.nodes.function_definition) {
      const name = fieldOf(fn, 'name')?.text ?? '';
      // A function doing half a step (only `opt.step()`, the backward in a library) is hot
      // only when a step calls it; one doing a whole step is hot wherever it is called from.
      if (TRAINING_STEP_FUNCTIONS.test(name) || this.steps.isCompleteStepFunction(fn))
        this.functionRole.set(fn, { role: 'hot' });
    }
    // Each call with the same-file functions it may invoke (a function calling itself excluded).
    // A module call may run every reachable forward: those stay one shared list, which an
    // edge skips whole when its role is no higher than the lowest role among them.
    const forwards = new ForwardRoles(this.reachableForwards(), this.functionRole);
    const edges: CallEdge[] = [];
    const sites = this.steps.callSites();
    const addEdge = (call: SyntaxNode, called: readonly SyntaxNode[], runsForwards: boolean) => {
      const caller = enclosingFunction(call);
      const callees = called.filter((fn) => fn !== caller);
      if (callees.length || (runsForwards && forwards.nodes.some((fn) => fn !== caller)))
        edges.push({ call, caller, callees, runsForwards });
    };
    if (!forwards.nodes.length || !this.facts)
      for (const { call, callees } of sites) addEdge(call, callees, false);
    else {
      // Every call may be a module call: walk them all, the call sites (a subsequence, in
      // the same order) alongside.
      let next = 0;
      for (const call of allCalls) {
        const site = sites[next]?.call === call ? sites[next++] : undefined;
        const runsForwards = isModuleCall(call, this.facts);
        if (site || runsForwards) addEdge(call, site?.callees ?? [], runsForwards);
      }
    }
    for (let iteration = 0; iteration < 6; iteration++) {
      this.roleCache.clear();
      let changed = false;
      for (const { call, caller, callees, runsForwards } of edges) {
        const from = this.roleWithNote(call);
        if (from.role === 'setup') continue;
        for (const fn of callees) changed = this.raiseRole(fn, from) || changed;
        if (!runsForwards || ROLE_RANK[from.role] <= forwards.lowestRank(this.roleChanges)) continue;
        for (const fn of forwards.nodes) if (fn !== caller) changed = this.raiseRole(fn, from) || changed;
      }
      if (!changed) break;
    }
    this.roleCache.clear();
  }

  /** Gives `fn` the role `from` when that ranks higher than its own; whether it did. */
  private raiseRole(fn: SyntaxNode, from: RoleWithNote): boolean {
    const current = this.functionRole.get(fn)?.role ?? 'setup';
    if (ROLE_RANK[from.role] <= ROLE_RANK[current]) return false;
    this.functionRole.set(fn, from);
    this.roleChanges++;
    return true;
  }

  private computeRole(statement: SyntaxNode): RoleWithNote {
    const fn = enclosingFunction(statement);
    const fnName = fn ? (fieldOf(fn, 'name')?.text ?? '') : '';
    const evalScope = !!fn && (EVAL_FUNCTIONS.test(fnName) || hasNoGradDecorator(fn));
    const loop = this.enclosingLoop(statement);
    let role: Role;
    let note: GuardNote | undefined;
    let boundary: SyntaxNode | undefined;
    if (loop && this.isHotLoop(loop)) {
      role = 'hot';
      boundary = loop;
    } else if (loop) {
      const outer = this.roleWithNote(loop);
      if (outer.role !== 'hot' && (evalScope || insideNoGrad(statement, fn))) role = 'eval';
      else ({ role, note } = outer);
      boundary = loop;
    } else {
      ({ role, note } = fn ? (this.functionRole.get(fn) ?? { role: 'setup' }) : { role: 'setup' });
      if (role === 'eval') role = 'setup';
      boundary = fn;
    }
    // A pytest test function runs once per test session, whatever its loops do.
    if (role === 'hot' && /^test_/.test(fnName)) role = 'eval';
    if (role !== 'hot') return { role, note };
    let guard = this.guards.get(statement);
    if (guard === undefined && !this.guards.has(statement)) {
      guard = guardNote({
        statement,
        boundary,
        context: this.guardContext(),
        trains: (block) => this.consequenceTrainsCached(block),
      });
      this.guards.set(statement, guard);
    }
    if (guard?.kind === 'once') return { role: 'setup', note: guard };
    if (guard?.kind === 'interval' || guard?.kind === 'opt-in' || guard?.kind === 'after-sync')
      return { role: 'logging', note: guard };
    return { role, note: guard ?? note };
  }

  /** What reading the file's conditions needs (built once; its lookups are indexed and memoised). */
  private guardContext(): GuardContext {
    if (this.guardContextValue) return this.guardContextValue;
    const returned = new Map<SyntaxNode, SyntaxNode | undefined>();
    // Options and flags matter only to a hot statement's guard: read on the first one.
    const definedOptions = new Set<string>();
    const optInFlags = this.facts?.root
      ? collectOptInFlags(this.nodes, this.callNames.named('add_argument'), definedOptions)
      : new Set<string>();
    this.guardContextValue = {
      optInFlags,
      definedOptions,
      assigned: (name) => lastAssignedIn(this.nodes.assignment, name),
      returned: (call) => {
        if (!returned.has(call)) returned.set(call, this.returnedExpression(call));
        return returned.get(call);
      },
      counters: this.counters,
      conditions: new Map(),
    };
    return this.guardContextValue;
  }

  /** The expression a same-file function returns, when it has exactly one `return` with a value. */
  private returnedExpression(call: SyntaxNode): SyntaxNode | undefined {
    const [fn, ...others] = this.steps.calledFunctions(call);
    if (!fn || others.length) return undefined;
    const returns: SyntaxNode[] = [];
    walk(fieldOf(fn, 'body') ?? fn, (node) => {
      if (SCOPES.has(node.type)) return false;
      if (node.type === 'return_statement') returns.push(node);
    });
    return returns.length === 1 ? returns[0].children[0] : undefined;
  }

  private consequenceTrainsCached(consequence: SyntaxNode): boolean {
    let trains = this.consequenceTrains.get(consequence);
    if (trains === undefined) {
      trains = this.bodyTrains(consequence);
      this.consequenceTrains.set(consequence, trains);
    }
    return trains;
  }
}

/** A call to same-file functions: the functions it may invoke, other than its caller. */
interface CallEdge {
  call: SyntaxNode;
  caller: SyntaxNode | undefined;
  callees: SyntaxNode[];
  /** A module call: it may also run each of the reachable forwards. */
  runsForwards: boolean;
}

/** The reachable forwards, and the lowest role among them (recomputed only after a role changed). */
class ForwardRoles {
  private lowest = 0;
  private computedAt = -1;

  constructor(
    readonly nodes: readonly SyntaxNode[],
    private readonly roles: ReadonlyMap<SyntaxNode, RoleWithNote>,
  ) {}

  /** The lowest role rank among the forwards; `roleChanges` counts the function roles changed so far. */
  lowestRank(roleChanges: number): number {
    if (roleChanges !== this.computedAt) {
      this.computedAt = roleChanges;
      this.lowest = Math.min(...this.nodes.map((fn) => ROLE_RANK[this.roles.get(fn)?.role ?? 'setup']));
    }
    return this.lowest;
  }
}

/** Whether a call runs a module's forward: `model(x)`, `self.block(x)` where the analysis shows a module. */
function isModuleCall(call: SyntaxNode, facts: RoleKindFacts): boolean {
  const callee = fieldOf(call, 'function');
  if (!callee) return false;
  const target = unwrap(callee);
  if (target.type !== 'identifier' && target.type !== 'attribute' && target.type !== 'subscript')
    return false;
  return facts.kindOf(target) === 'module';
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

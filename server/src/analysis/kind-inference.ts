// Infers the kind of every expression (tensor, module, optimizer, number, ...) with a
// flow-sensitive walk of each scope: assignments update the environment, branches join,
// loop bodies run twice to reach the values of later iterations, and same-file function
// calls pass argument kinds to parameters and return kinds back. The file is walked in two
// rounds; in the second, a function whose inputs did not change is replayed, not re-walked
// (function-trace.ts). Expressions are evaluated by the base class in kind-expressions.ts;
// value-facts.ts runs the inference and hands its results to the FileModel.
import type { SyntaxNode } from '../parse/syntax';
import type { NodeIndex } from './file-model';
import type { ImportTable } from './imports';
import { collectUsageEvidence, joinKinds, type Kind } from './kinds';
import type { CallNameIndex } from './call-names';
import type { EntryCall } from './value-facts';
import { Definitions } from './definitions';
import { ExpressionKinds, type Env, type Iteration } from './kind-expressions';
import { BranchEnv } from './branch-env';
import { TensorEvidence, type NameGuess } from './tensor-evidence';
import {
  KindCarry,
  fileWideReadsHold,
  type CarrySource,
  type CarryVersion,
  type KindMemo,
} from './kind-carry';
import { FunctionTrace, type SharedKindState } from './function-trace';
import {
  enclosingFunction,
  fieldOf,
  firstPositionalArg,
  methodCall,
  positionalArgs,
  unwrap,
} from './syntax-helpers';
import { LOADER_NAME, arithmetic, enclosingClass } from './value-vocabulary';

export class KindInference extends ExpressionKinds implements SharedKindState {
  readonly kinds: (Kind | undefined)[];
  readonly globals: Env = new Map();
  readonly definitions: Definitions;
  readonly classAttributes = new Map<SyntaxNode, Env>();
  readonly returnKinds = new Map<SyntaxNode, Kind>();
  private readonly parameterKinds = new Map<SyntaxNode, Env>();
  private readonly traces = new Map<SyntaxNode, FunctionTrace>();
  private currentReturns: Kind[] | undefined;
  private currentFunction: SyntaxNode | undefined;
  /** Kinds of the elements of the tuples a function returns (`return loss, logits`), joined over its returns. */
  readonly returnedElements = new Map<SyntaxNode, Kind[]>();
  private readonly unpackedUnknown = new Set<SyntaxNode>();
  private elementsLearnedLate = false;
  private readonly evidence: Map<SyntaxNode, Map<string, Kind>>;
  readonly tensorEvidence: TensorEvidence;
  /** The trace each function ended each round with (the next version's memo). */
  private readonly roundTraces: [Map<SyntaxNode, FunctionTrace>, Map<SyntaxNode, FunctionTrace>] = [
    new Map(),
    new Map(),
  ];
  private readonly carriedFirstRound = new Set<SyntaxNode>();
  carriedCount = 0;
  walkedCount = 0;
  /** This version's side of the carry (an open document). */
  private carried: CarryVersion | undefined;
  /** Whether the traces keep what the next version needs to carry them (an open document). */
  private keepsTraces = false;

  constructor(
    private readonly root: SyntaxNode,
    nodeCount: number,
    protected readonly imports: ImportTable,
    private readonly nodes: NodeIndex,
    callNames: CallNameIndex,
  ) {
    super();
    this.evidence = collectUsageEvidence(root, callNames);
    this.definitions = new Definitions(nodes, imports);
    this.kinds = new Array<Kind | undefined>(nodeCount).fill(undefined);
    this.tensorEvidence = new TensorEvidence(root, (node) => this.kinds[node.id]);
  }

  /** What the uses of `name` in the scope of `node` (or at module level) show, if anything. */
  protected evidenceFor(node: SyntaxNode, text: string): Kind | undefined {
    const scope = enclosingFunction(node);
    const own = scope && this.evidence.get(scope)?.get(text);
    if (own) return own;
    this.readFileWide('e', text);
    return this.evidence.get(this.root)?.get(text);
  }

  run(replay: boolean, carry?: KindCarry): void {
    this.keepsTraces = !!carry;
    this.carried = carry?.begin({
      imports: this.imports,
      definitions: this.definitions,
      classes: this.nodes.class_definition,
      moduleEvidence: this.evidence.get(this.root),
      root: this.root,
    });
    this.fileWideReads = this.carried?.reads;
    const fromPrevious = this.carried?.source;
    for (let round = 0; round < 2; round++) {
      // NOTE: when a caller unpacked a function's tuple before its elements were known, round
      // two re-walks instead of replaying.
      const useReplay = replay && !this.elementsLearnedLate;
      this.elementsLearnedLate = false;
      this.firstRound = round === 0;
      this.block(this.root.children, this.globals);
      for (const fn of this.definitions.functionNodes) {
        const previous = useReplay ? this.traces.get(fn) : undefined;
        if (previous?.inputsUnchanged(this)) previous.replay(this);
        else if (!(fromPrevious && this.carryFunction(fn, round, fromPrevious))) this.analyseFunction(fn);
        if (carry) this.roundTraces[round].set(fn, this.traces.get(fn)!);
      }
    }
  }

  /**
   * Replays the previous version's analysis of `fn` in this round, when `fn` is unchanged
   * (the same lowered node) and the trace's inputs read the same. In round two the function
   * must have been carried in round one too: its nodes' kinds are then those the trace's
   * walk started from.
   */
  private carryFunction(fn: SyntaxNode, round: number, source: CarrySource): boolean {
    const { memo, map } = source;
    if (!memo.rounds[round].has(fn) || (round === 1 && !this.carriedFirstRound.has(fn))) return false;
    if (!fileWideReadsHold(source, fn, round, this.fileWideReads!)) return false;
    const trace = memo.rounds[round].get(fn)!.translated(map);
    if (!trace || (KindCarry.fault !== 'ignore-inputs' && !trace.inputsUnchanged(this))) return false;
    const evidence = KindCarry.fault === 'skip-evidence' ? undefined : this.tensorEvidence;
    if (!trace.replayCarried(this, evidence, map)) return false;
    this.traces.set(fn, trace);
    if (round === 0) this.carriedFirstRound.add(fn);
    this.carriedCount++;
    return true;
  }

  /** What this version leaves for the next one. */
  memo(): KindMemo {
    return { ...this.carried!.memo, rounds: this.roundTraces };
  }

  private analyseFunction(fn: SyntaxNode): void {
    this.walkedCount++;
    const env: Env = new Map(this.startParameters(fn));
    const trace = new FunctionTrace(fn, new Map(env), this.keepsTraces);
    // The elements its returns join into are an input: round two starts from round one's.
    trace.readElements(this, fn);
    this.trace = trace;
    if (this.keepsTraces) this.tensorEvidence.recorder = (call) => trace.calledEvidence(call);
    const returns: Kind[] = [];
    this.currentReturns = returns;
    const outer = this.currentFunction;
    this.currentFunction = fn;
    this.block(fieldOf(fn, 'body')?.children ?? [], env);
    this.currentFunction = outer;
    this.currentReturns = undefined;
    this.trace = undefined;
    this.tensorEvidence.recorder = undefined;
    trace.result = returns.reduce<Kind | undefined>((a, b) => joinKinds(a, b), undefined) ?? 'none';
    this.returnKinds.set(fn, trace.result);
    this.traces.set(fn, trace);
  }

  startParameters(fn: SyntaxNode): ReadonlyMap<string, Kind> {
    return this.parameterKinds.get(fn) ?? this.definitions.initialParameters(fn);
  }

  joinAttribute(cls: SyntaxNode, name: string, kind: Kind): void {
    const attrs = this.classAttributes.get(cls) ?? new Map();
    attrs.set(name, joinKinds(attrs.get(name), kind));
    this.classAttributes.set(cls, attrs);
  }

  /** Passes the argument kinds of a call from another file to the parameters of `entry.fn`. */
  seedEntry(entry: EntryCall): void {
    const names = this.definitions.parameterNames(entry.fn);
    const pairs: [string, Kind][] = [];
    entry.positional.forEach((kind, i) => {
      if (i < names.length && kind !== 'unknown') pairs.push([names[i], kind]);
    });
    for (const [name, kind] of entry.keywords)
      if (names.includes(name) && kind !== 'unknown') pairs.push([name, kind]);
    if (pairs.length) this.joinArguments(entry.fn, pairs);
  }

  joinArguments(fn: SyntaxNode, kinds: readonly (readonly [string, Kind])[]): void {
    const known = this.parameterKinds.get(fn) ?? new Map(this.definitions.initialParameters(fn));
    for (const [name, kind] of kinds)
      known.set(name, joinKinds(known.get(name) === 'unknown' ? undefined : known.get(name), kind));
    this.parameterKinds.set(fn, known);
  }

  private block(statements: SyntaxNode[], env: Env): void {
    for (const statement of statements) this.statement(statement, env);
  }

  private statement(node: SyntaxNode, env: Env): void {
    switch (node.type) {
      case 'expression_statement':
        for (const child of node.children) this.expressionOrAssignment(child, env);
        return;
      case 'return_statement': {
        const value = node.children[0];
        const kind = value ? this.expr(value, env) : 'none';
        this.currentReturns?.push(kind);
        if (value && this.currentFunction) this.noteReturnedElements(this.currentFunction, value);
        return;
      }
      case 'for_statement':
        return this.forLoop(node, env);
      case 'while_statement':
        this.expr(fieldOf(node, 'condition')!, env);
        return this.loopBody(node, env);
      case 'if_statement':
        return this.ifStatement(node, env);
      case 'with_statement':
        for (const item of node.children.find((c) => c.type === 'with_clause')?.children ?? []) {
          const value = fieldOf(item, 'value');
          if (value) this.expr(value, env);
        }
        return this.block(fieldOf(node, 'body')?.children ?? [], env);
      case 'try_statement':
        for (const child of node.children) {
          if (child.type === 'block') this.block(child.children, env);
          else this.block(child.children.find((c) => c.type === 'block')?.children ?? [], env);
        }
        return;
      case 'function_definition':
      case 'class_definition':
      case 'decorated_definition':
      case 'import_statement':
      case 'import_from_statement':
        return;
      default:
        for (const child of node.children)
          if (child.type !== 'block' && child.type !== 'comment') this.expr(child, env);
    }
  }

  private expressionOrAssignment(node: SyntaxNode, env: Env): void {
    if (node.type === 'assignment') {
      const right = fieldOf(node, 'right');
      const left = fieldOf(node, 'left');
      if (!right || !left) return;
      const kind = this.expr(right, env);
      this.assign(left, kind, right, env);
    } else if (node.type === 'augmented_assignment') {
      const left = fieldOf(node, 'left');
      const right = fieldOf(node, 'right');
      if (!left || !right) return;
      const result = arithmetic(this.expr(left, env), this.expr(right, env));
      this.assign(left, result, undefined, env, this.tensorEvidence.sourceOf(node));
    } else {
      this.expr(node, env);
    }
  }

  protected assign(
    target: SyntaxNode,
    kind: Kind,
    value: SyntaxNode | undefined,
    env: Env,
    source?: NameGuess,
  ): void {
    const node = unwrap(target);
    if (node.type === 'identifier') {
      env.set(node.text, kind);
      this.setKind(node, kind);
      if (kind === 'tensor' || kind === 'loader')
        this.tensorEvidence.assigned(node, value ? this.tensorEvidence.sourceOf(value) : source);
    } else if (
      node.type === 'pattern_list' ||
      node.type === 'tuple_pattern' ||
      node.type === 'list_pattern' ||
      node.type === 'tuple'
    ) {
      const elements = this.elementKinds(value, kind, env, node.children.length);
      const inner = value && unwrap(value);
      const parts = inner && /^(tuple|expression_list|list)$/.test(inner.type) ? inner.children : undefined;
      const whole = source ?? (value && !parts ? this.tensorEvidence.sourceOf(value) : undefined);
      node.children.forEach((child, i) => {
        const part = parts?.[i];
        const partSource = part ? this.tensorEvidence.sourceOf(part) : whole;
        this.assign(child, elements[i] ?? 'unknown', undefined, env, partSource);
      });
    } else if (node.type === 'attribute' && fieldOf(node, 'object')?.text === 'self') {
      const cls = enclosingClass(node);
      const name = fieldOf(node, 'attribute')?.text;
      if (cls && name) {
        this.trace?.wroteAttribute(cls, name, kind);
        this.joinAttribute(cls, name, kind);
      }
      this.setKind(node, kind);
    } else if (node.type === 'subscript' || node.type === 'attribute') {
      this.expr(node, env);
    }
  }

  private noteReturnedElements(fn: SyntaxNode, value: SyntaxNode): void {
    const node = unwrap(value);
    if (node.type !== 'tuple' && node.type !== 'expression_list') return;
    this.joinReturnedElements(
      fn,
      node.children.map((c) => this.kinds[c.id] ?? 'unknown'),
    );
  }

  joinReturnedElements(fn: SyntaxNode, kinds: readonly Kind[]): void {
    this.trace?.wroteElements(fn, kinds);
    const known = this.returnedElements.get(fn);
    const joined = known ? kinds.map((k, i) => joinKinds(known[i], k)) : [...kinds];
    if (this.unpackedUnknown.has(fn) && joined.some((k, i) => k !== known?.[i]))
      this.elementsLearnedLate = true;
    this.returnedElements.set(fn, joined);
  }

  unpackedBeforeKnown(fn: SyntaxNode): void {
    this.trace?.unpacked(fn);
    this.unpackedUnknown.add(fn);
  }

  /** The same-file function a call runs (`f(...)`, `self.f(...)`), if any. */
  private calledFunction(call: SyntaxNode, env: Env): SyntaxNode | undefined {
    const callee = unwrap(fieldOf(call, 'function')!);
    if (callee.type === 'identifier' && !env.has(callee.text)) return this.functionNamed(callee.text);
    const method = methodCall(call);
    return method && method.receiver.text === 'self' ? this.ownMethod(call, method.name) : undefined;
  }

  /** Kinds of the elements when a value is unpacked into `count` targets. */
  private elementKinds(value: SyntaxNode | undefined, kind: Kind, env: Env, count: number): Kind[] {
    const node = value && unwrap(value);
    if (node && (node.type === 'tuple' || node.type === 'expression_list' || node.type === 'list')) {
      return node.children.map((c) => this.kinds[c.id] ?? this.expr(c, env));
    }
    if (node?.type === 'call') {
      const qualified = this.resolveImported(fieldOf(node, 'function')!) ?? '';
      if (/^deepspeed\.initialize$/.test(qualified)) return ['module', 'optimizer', 'loader', 'scheduler'];
      const method = methodCall(node);
      if (method?.name === 'prepare') return positionalArgs(node).map((a) => this.kinds[a.id] ?? 'unknown');
      const fn = this.calledFunction(node, env);
      const elements = fn && (this.trace ? this.trace.readElements(this, fn) : this.returnedElements.get(fn));
      if (elements?.length === count) return elements;
      if (fn && !elements) {
        this.unpackedBeforeKnown(fn);
        // Not walked yet: nothing known, which round two's join overrides (see firstRound).
        const walked =
          (this.trace ? this.trace.readReturn(this, fn) : this.returnKinds.get(fn)) !== undefined;
        if (this.firstRound && !walked) return Array.from({ length: count }, () => 'none');
      }
    }
    return Array.from({ length: count }, () => (kind === 'tensor' ? 'tensor' : 'unknown'));
  }

  private forLoop(node: SyntaxNode, env: Env): void {
    const iterable = fieldOf(node, 'right');
    const target = fieldOf(node, 'left');
    const element: Iteration = iterable ? this.iteration(iterable, env) : { kind: 'unknown' };
    if (target) this.assignLoopTarget(target, element, iterable, env);
    this.loopBody(node, env);
  }

  private assignLoopTarget(
    target: SyntaxNode,
    element: Iteration,
    iterable: SyntaxNode | undefined,
    env: Env,
  ): void {
    const inner = iterable && unwrap(iterable);
    const callee = inner?.type === 'call' ? fieldOf(inner, 'function')?.text : undefined;
    const node = unwrap(target);
    const parts = node.type === 'pattern_list' || node.type === 'tuple_pattern' ? node.children : undefined;
    if (callee === 'enumerate' && parts?.length === 2) {
      this.assign(parts[0], 'number', undefined, env);
      const inside = positionalArgs(inner!)[0];
      const elements: Iteration = inside ? this.iteration(inside, env) : { kind: 'unknown' };
      this.assign(parts[1], elements.kind, undefined, env, elements.source);
      return;
    }
    this.assign(target, element.kind, undefined, env, element.source);
  }

  /** The kind of the elements produced by iterating `iterable`, and the name guess it rests on, if any. */
  protected iteration(iterable: SyntaxNode, env: Env): Iteration {
    const node = unwrap(iterable);
    const kind = this.expr(node, env);
    if (kind === 'loader' || kind === 'tensor')
      return { kind: 'tensor', source: this.tensorEvidence.sourceOf(node) };
    if (node.type === 'call') {
      const callee = fieldOf(node, 'function')?.text ?? '';
      const first = firstPositionalArg(node);
      if (/^(enumerate|tqdm|tqdm\.tqdm|iter|islice|itertools\.islice)$/.test(callee) && first)
        return this.iteration(first, env);
      if (callee === 'range') return { kind: 'number' };
    }
    // A loader of unknown kind whose name says it is one (`for x, y in train_loader`, often a
    // parameter): its elements are taken for tensors, as weak evidence until the code uses one
    // as a tensor (tensor-evidence.ts).
    if (
      (node.type === 'identifier' || node.type === 'attribute') &&
      LOADER_NAME.test(node.text) &&
      kind === 'unknown'
    )
      return { kind: 'tensor', source: this.tensorEvidence.guess(node) };
    return { kind: 'unknown' };
  }

  private loopBody(node: SyntaxNode, env: Env): void {
    const body = fieldOf(node, 'body')?.children ?? [];
    // Each pass binds into a branch over `env`; then every name it bound joins the value from
    // before the pass (a name bound for the first time just takes its new value).
    for (let pass = 0; pass < 2; pass++) {
      const pass_ = new BranchEnv(env);
      this.block(body, pass_);
      for (const name of pass_.ownNames()) env.set(name, joinKinds(env.get(name), pass_.get(name)));
    }
    const alternative = fieldOf(node, 'alternative');
    if (alternative) this.block(alternative.children.find((c) => c.type === 'block')?.children ?? [], env);
  }

  private ifStatement(node: SyntaxNode, env: Env): void {
    const branches: BranchEnv[] = [];
    let hasElse = false;
    this.expr(fieldOf(node, 'condition')!, env);
    const consequenceEnv = new BranchEnv(env);
    this.block(fieldOf(node, 'consequence')?.children ?? [], consequenceEnv);
    branches.push(consequenceEnv);
    for (const clause of node.children.filter((c) => c.field === 'alternative')) {
      const clauseEnv = new BranchEnv(env);
      const condition = fieldOf(clause, 'condition');
      if (condition) this.expr(condition, clauseEnv);
      else hasElse = true;
      const body =
        fieldOf(clause, 'consequence') ??
        fieldOf(clause, 'body') ??
        clause.children.find((c) => c.type === 'block');
      this.block(body?.children ?? [], clauseEnv);
      branches.push(clauseEnv);
    }
    // A name no branch binds keeps its value (every branch reads it from `env`); the others
    // join over the branches and, without an else, the fall-through `env` itself. Each name
    // reads every branch before `env` is updated, so the branches may read through to it.
    const names = new Set<string>();
    for (const branch of branches) for (const name of branch.ownNames()) names.add(name);
    const joined: Env[] = hasElse ? branches : [...branches, env];
    for (const name of names) {
      env.set(
        name,
        joined.reduce<Kind | undefined>((acc, b) => joinKinds(acc, b.get(name)), undefined) ?? 'unknown',
      );
    }
  }
}

// The expression half of kind inference: the kind of an expression (names, calls, attributes,
// comprehensions, operators) in an environment, recorded for every sub-expression visited.
// kind-inference.ts extends it with the statement walk (assignments, loops, branches, functions).
import type { SyntaxNode } from '../parse/syntax';
import type { ImportTable } from './imports';
import {
  BUILTIN_RESULT_KINDS,
  TENSOR_ATTRIBUTES_NOT_TENSOR,
  joinKinds,
  kindOfQualifiedCall,
  takesTensorArgument,
  type Kind,
} from './kinds';
import type { Definitions } from './definitions';
import type { FileWideRead, FileWideReads } from './file-wide-reads';
import { KindCarry } from './kind-carry';
import { BranchEnv } from './branch-env';
import type { FunctionTrace, SharedKindState } from './function-trace';
import {
  fieldOf,
  firstPositionalArg,
  methodCall,
  positionalArgs,
  unwrap,
  type MethodCall,
} from './syntax-helpers';
import type { NameGuess, TensorEvidence } from './tensor-evidence';
import {
  OUTPUT_ATTRIBUTES,
  TENSOR_ATTRIBUTES,
  arithmetic,
  enclosingClass,
  methodResult,
  stringInterpolations,
} from './value-vocabulary';

export type Env = Map<string, Kind>;

/** What iterating a value yields: the elements' kind, and the name guess that kind rests on, if any. */
export interface Iteration {
  kind: Kind;
  source?: NameGuess;
}

const MAX_EXPRESSION_DEPTH = 300;
/** Methods (Accelerate, Fabric, torch.distributed wrappers) that return a tensor built from their tensor argument. */
const GATHERING_METHODS =
  /^(gather|gather_for_metrics|reduce|all_reduce|all_gather|pad_across_processes|sync)$/;

/** State and expression evaluation shared with the statement walk in kind-inference.ts. */
export abstract class ExpressionKinds implements SharedKindState {
  abstract readonly kinds: (Kind | undefined)[];
  abstract readonly globals: Env;
  abstract readonly definitions: Definitions;
  abstract readonly classAttributes: Map<SyntaxNode, Env>;
  abstract readonly returnKinds: Map<SyntaxNode, Kind>;
  abstract readonly returnedElements: Map<SyntaxNode, Kind[]>;
  abstract readonly tensorEvidence: TensorEvidence;
  protected abstract readonly imports: ImportTable;
  /** The trace of the function being analysed; undefined at module level. */
  protected trace: FunctionTrace | undefined;
  /** This version's file-wide reads as queries, when the traces are kept for the next version. */
  protected fileWideReads: FileWideReads | undefined;
  protected depth = 0;
  /**
   * True in the first of the two rounds. There, a same-file function not walked yet returns
   * 'none' (nothing known yet, which a later join overrides) instead of 'unknown' (which a join
   * keeps): otherwise `self.x = self.later_method()` would stay unknown in round two.
   */
  protected firstRound = true;

  protected abstract evidenceFor(node: SyntaxNode, text: string): Kind | undefined;
  protected abstract iteration(iterable: SyntaxNode, env: Env): Iteration;
  protected abstract assign(
    target: SyntaxNode,
    kind: Kind,
    value: SyntaxNode | undefined,
    env: Env,
    source?: NameGuess,
  ): void;
  abstract joinArguments(fn: SyntaxNode, kinds: readonly (readonly [string, Kind])[]): void;
  abstract startParameters(fn: SyntaxNode): ReadonlyMap<string, Kind>;
  abstract joinAttribute(cls: SyntaxNode, name: string, kind: Kind): void;
  abstract joinReturnedElements(fn: SyntaxNode, kinds: readonly Kind[]): void;
  abstract unpackedBeforeKnown(fn: SyntaxNode): void;

  setKind(node: SyntaxNode, kind: Kind): void {
    this.kinds[node.id] = kind;
    this.trace?.wroteKind(node, kind);
  }

  /** Evaluates an expression's kind and records it for every sub-expression visited. */
  expr(node: SyntaxNode, env: Env): Kind {
    if (this.depth > MAX_EXPRESSION_DEPTH) return 'unknown';
    this.depth++;
    try {
      const kind = this.exprKind(node, env);
      this.setKind(node, kind);
      return kind;
    } finally {
      this.depth--;
    }
  }

  protected exprKind(node: SyntaxNode, env: Env): Kind {
    switch (node.type) {
      case 'identifier': {
        const name = node.text;
        const known =
          env.get(name) ?? (this.trace ? this.trace.readGlobal(this, name) : this.globals.get(name));
        if (known && known !== 'unknown') return known;
        return this.evidenceFor(node, name) ?? known ?? 'unknown';
      }
      case 'integer':
      case 'float':
      case 'true':
      case 'false':
        return 'number';
      case 'none':
        return 'none';
      case 'string':
      case 'concatenated_string':
        for (const interpolation of stringInterpolations(node)) this.expr(interpolation, env);
        return 'string';
      case 'parenthesized_expression':
        return node.children.length === 1 ? this.expr(node.children[0], env) : 'unknown';
      case 'call':
        return this.call(node, env);
      case 'attribute':
        return this.attribute(node, env);
      case 'subscript': {
        const value = this.expr(fieldOf(node, 'value')!, env);
        for (const index of node.children.filter((c) => c.field === 'subscript')) this.expr(index, env);
        if (value === 'tensor' || value === 'module') return value;
        if (value === 'numpy') return 'numpy';
        if (value === 'collection' && /\.shape$|\.size\(\)$/.test(fieldOf(node, 'value')!.text))
          return 'number';
        return 'unknown';
      }
      case 'binary_operator':
        return arithmetic(this.expr(node.children[0], env), this.expr(node.children[1], env));
      case 'unary_operator':
        return this.expr(node.children[0], env);
      case 'comparison_operator': {
        const operands = node.children.map((c) => this.expr(c, env));
        if (/\b(is|in)\b/.test(node.operator ?? '')) return 'number';
        return operands.includes('tensor') ? 'tensor' : operands.includes('numpy') ? 'numpy' : 'number';
      }
      case 'not_operator':
        this.expr(node.children[0], env);
        return 'number';
      case 'boolean_operator':
        return joinKinds(this.expr(node.children[0], env), this.expr(node.children[1], env));
      case 'conditional_expression': {
        const [consequence, condition, alternative] = node.children;
        if (condition) this.expr(condition, env);
        return joinKinds(
          consequence && this.expr(consequence, env),
          alternative && this.expr(alternative, env),
        );
      }
      case 'lambda':
        return 'unknown';
      case 'list_comprehension':
      case 'set_comprehension':
      case 'dictionary_comprehension':
      case 'generator_expression':
        return this.comprehension(node, env);
      default:
        for (const child of node.children) if (child.type !== 'comment') this.expr(child, env);
        return /^(list|tuple|dictionary|set|list_comprehension|dictionary_comprehension|set_comprehension|generator_expression|expression_list)$/.test(
          node.type,
        )
          ? 'collection'
          : 'unknown';
    }
  }

  protected call(node: SyntaxNode, env: Env): Kind {
    const callee = fieldOf(node, 'function')!;
    const args = fieldOf(node, 'arguments');
    const calleeKind = this.expr(callee, env);
    // `f(x for x in xs)`: the arguments node is the generator expression itself.
    if (args?.type === 'generator_expression') this.expr(args, env);
    else if (args)
      for (const arg of args.children)
        this.expr(arg.type === 'keyword_argument' ? (fieldOf(arg, 'value') ?? arg) : arg, env);
    const qualified = this.resolveImported(callee);
    const method = methodCall(node);
    this.noteTensorInputs(node, method, calleeKind, qualified);
    if (qualified) {
      const kind = kindOfQualifiedCall(qualified);
      if (kind !== 'unknown') return kind;
    }
    const target = unwrap(callee);
    if (target.type === 'identifier') {
      const name = target.text;
      if (this.isModuleClass(name)) return 'module';
      if (calleeKind === 'module') return 'tensor';
      if (!env.has(name) && name in BUILTIN_RESULT_KINDS) return BUILTIN_RESULT_KINDS[name];
      const first = (name === 'iter' || name === 'next') && !env.has(name) && firstPositionalArg(node);
      if (name === 'iter' && first && this.iteration(first, env).kind === 'tensor') return 'loader';
      if (name === 'next' && first)
        return this.iteration(first, env).kind === 'tensor' ? 'tensor' : 'unknown';
      const fn = env.has(name) ? undefined : this.functionNamed(name);
      if (fn) return this.callFunction(fn, node, env);
      return 'unknown';
    }
    if (method) {
      const own = method.receiver.text === 'self' ? this.ownMethod(node, method.name) : undefined;
      if (own) return this.callFunction(own, node, env, 1);
      // `accelerator.gather(loss)`, `accelerator.reduce(t)`: collectives that return their input's kind.
      const input = firstPositionalArg(node);
      if (GATHERING_METHODS.test(method.name) && input && this.kinds[input.id] === 'tensor') return 'tensor';
      const receiver = this.kinds[method.receiver.id] ?? 'unknown';
      return methodResult(receiver, method.name, calleeKind, node.parent?.type === 'call');
    }
    return calleeKind === 'module' ? 'tensor' : 'unknown';
  }

  /**
   * Where the code uses values as tensors, which turns a name guess they rest on into evidence:
   * the inputs of a module call (`model(x)`, `criterion(out, y)`, `model(**batch)`) or of a
   * `torch.nn.functional` call, the receiver of `.backward()`, the argument of
   * `accelerator.backward(loss)` or `scaler.scale(loss)`.
   */
  private noteTensorInputs(
    call: SyntaxNode,
    method: MethodCall | undefined,
    calleeKind: Kind,
    qualified: string | undefined,
  ): void {
    const args = fieldOf(call, 'arguments');
    const moduleInput =
      calleeKind === 'module' ||
      qualified?.startsWith('torch.nn.functional.') ||
      (method?.name === 'forward' && this.kinds[method.receiver.id] === 'module');
    if (moduleInput && args?.type === 'argument_list')
      for (const arg of args.children) if (arg.type !== 'comment') this.tensorEvidence.usedAsTensor(arg);
    if (!method) return;
    const first = firstPositionalArg(call);
    if (method.name === 'backward' && !first) this.tensorEvidence.usedAsTensor(method.receiver);
    else if (first && takesTensorArgument(method, this.kinds[method.receiver.id]))
      this.tensorEvidence.usedAsTensor(first);
  }

  /** Passes argument kinds to a same-file function's parameters and returns its return kind. */
  protected callFunction(fn: SyntaxNode, call: SyntaxNode, env: Env, skipped = 0): Kind {
    const params = this.definitions.parameterNames(fn);
    const passed: (readonly [string, Kind])[] = [];
    positionalArgs(call).forEach((arg, i) => {
      const param = params[i + skipped];
      if (!param) return;
      const kind = this.kinds[arg.id] ?? this.expr(arg, env);
      passed.push([param, kind]);
      if (kind === 'tensor' || kind === 'loader')
        this.tensorEvidence.passed(fn, param, this.tensorEvidence.sourceOf(arg));
    });
    this.trace?.passedArguments(fn, passed);
    this.joinArguments(fn, passed);
    const known = this.trace ? this.trace.readReturn(this, fn) : this.returnKinds.get(fn);
    return known ?? (this.firstRound ? 'none' : 'unknown');
  }

  /** A comprehension binds its own loop names: they shadow, never update, the enclosing scope. */
  protected comprehension(node: SyntaxNode, env: Env): Kind {
    const inner: Env = new BranchEnv(env);
    const clauses = node.children.filter((c) => c.type === 'for_in_clause');
    for (const clause of clauses) {
      const right = fieldOf(clause, 'right');
      const left = fieldOf(clause, 'left');
      const element: Iteration = right ? this.iteration(right, inner) : { kind: 'unknown' };
      if (left) this.assign(left, element.kind, undefined, inner, element.source);
    }
    for (const child of node.children)
      if (child.type !== 'for_in_clause' && child.type !== 'comment') this.expr(child, inner);
    return 'collection';
  }

  /** `self.name(...)` inside a class that defines method `name` (not a module's forward: that is a module call). */
  protected ownMethod(call: SyntaxNode, name: string): SyntaxNode | undefined {
    const cls = enclosingClass(call);
    if (!cls || name === 'forward') return undefined;
    this.readFileWide('o', name, cls);
    return this.definitions.methodOf(cls, name);
  }

  /** The function a call of `name` runs: its first definition in this file, if any. */
  protected functionNamed(name: string): SyntaxNode | undefined {
    this.readFileWide('f', name);
    return this.definitions.functions.get(name);
  }

  /** Whether `name` is a module class of this file. */
  protected isModuleClass(name: string): boolean {
    this.readFileWide('m', name);
    return this.definitions.moduleClasses.has(name);
  }

  /** The dotted name `node` resolves to through the imports; a trace notes the imported name read. */
  protected resolveImported(node: SyntaxNode): string | undefined {
    if (this.trace && this.fileWideReads && KindCarry.fault !== 'ignore-imports') {
      const head = this.imports.headName(node);
      if (head !== undefined) this.readFileWide('i', head);
    }
    return this.imports.resolve(node);
  }

  /** Puts a file-wide read in the trace, when the next version needs it (file-wide-reads.ts). */
  protected readFileWide(kind: FileWideRead, name: string, cls?: SyntaxNode): void {
    if (this.trace && this.fileWideReads)
      this.trace.readFileWide(this.fileWideReads.query(kind, name, cls), this.fileWideReads);
  }

  protected attribute(node: SyntaxNode, env: Env): Kind {
    const object = fieldOf(node, 'object')!;
    const name = fieldOf(node, 'attribute')?.text ?? '';
    const objectKind = this.expr(object, env);
    if (object.text === 'self') {
      const cls = enclosingClass(node);
      const known =
        cls &&
        (this.trace ? this.trace.readAttribute(this, cls, name) : this.classAttributes.get(cls)?.get(name));
      if (known && known !== 'unknown') return known;
      const shown = this.evidenceFor(node, node.text);
      if (shown) return shown;
      if (known) return known;
    }
    if (objectKind === 'tensor') {
      if (name in TENSOR_ATTRIBUTES_NOT_TENSOR) return TENSOR_ATTRIBUTES_NOT_TENSOR[name];
      if (TENSOR_ATTRIBUTES.has(name) || OUTPUT_ATTRIBUTES.test(name)) return 'tensor';
      return 'unknown';
    }
    if (objectKind === 'module' && (name === 'weight' || name === 'bias')) return 'tensor';
    // Only tensors (parameters) have a `.grad` in PyTorch code: `p.grad` of an untyped `p` is one.
    if (objectKind === 'unknown' && name === 'grad') return 'tensor';
    if (objectKind === 'module' && name === 'module') return 'module';
    return 'unknown';
  }
}

// How strong the evidence is that a value is a tensor. Most tensor facts rest on PyTorch
// semantics in the code (a torch call, a tensor method, a module call); the weak ones rest
// on a name alone: the elements of a loop over `train_loader` when nothing shows what
// `train_loader` is. Such a fact becomes strong once the code uses a value from that loader
// as a tensor (a module or loss input, `.backward()`); rules report weak facts at most as
// information (rules/engine.ts).
import type { SyntaxNode } from '../parse/syntax';
import type { Kind } from './kinds';
import { enclosingFunction, fieldOf, firstPositionalArg, methodCall, unwrap } from './syntax-helpers';

/** A loader whose elements are taken for tensors because of its name only (`for x, y in train_loader`). */
export interface NameGuess {
  /** The loader expression as written (`train_loader`, `self.loader`). */
  readonly name: string;
  /** The function the loop is in, or the module's root. */
  readonly scope: SyntaxNode;
  /** Set once the code uses one of its elements as a tensor: the guess is then evidence. */
  evidenced: boolean;
}

/** A call the kind inference's walk made, as a function trace keeps it to make it again (kind-carry.ts). */
export type EvidenceCall =
  | { call: 'guess'; node: SyntaxNode }
  | { call: 'source'; node: SyntaxNode; result: NameGuess | undefined }
  | { call: 'assigned'; target: SyntaxNode; source: NameGuess | undefined }
  | { call: 'passed'; fn: SyntaxNode; name: string; source: NameGuess | undefined }
  | { call: 'used'; node: SyntaxNode; result: NameGuess | undefined };

/** Calls that pass their first argument's elements through (`enumerate(loader)`, `next(it)`). */
const PASS_THROUGH_CALLS = /^(enumerate|tqdm|tqdm\.tqdm|iter|next|islice|itertools\.islice)$/;
/** Deeper expressions are taken as strong: the fact they rest on is not traced that far. */
const MAX_DEPTH = 40;

/**
 * The name guesses of one file and the names that carry them, by scope (a function, or the
 * module). A name is weak when every tensor value the scope assigns to it rests on a guess;
 * one strong assignment makes it strong. Without a name guess in the file, no lookup walks.
 */
export class TensorEvidence {
  private readonly guesses = new Map<string, NameGuess>();
  private readonly weakNames = new Map<SyntaxNode, Map<string, NameGuess>>();
  private readonly strongNames = new Map<SyntaxNode, Set<string>>();
  /** Where the calls of the walk under way are recorded (a function trace), if anywhere. */
  recorder: ((call: EvidenceCall) => void) | undefined;
  /** Undoes the changes of the calls made again so far (see {@link redoAll}). */
  private undo: (() => void)[] | undefined;

  constructor(
    private readonly root: SyntaxNode,
    private readonly kindOf: (node: SyntaxNode) => Kind | undefined,
  ) {}

  /** Records that the elements of `iterable` are tensors only because of its name. */
  guess(iterable: SyntaxNode): NameGuess {
    this.recorder?.({ call: 'guess', node: iterable });
    const scope = enclosingFunction(iterable) ?? this.root;
    const key = guessKey(scope, iterable.text);
    let guess = this.guesses.get(key);
    if (!guess) {
      this.guesses.set(key, (guess = { name: iterable.text, scope, evidenced: false }));
      this.undo?.push(() => this.guesses.delete(key));
    }
    return guess;
  }

  /** Records a tensor (or loader) value bound to the name `target`, weak when `source` is set. */
  assigned(target: SyntaxNode, source: NameGuess | undefined): void {
    this.recorder?.({ call: 'assigned', target, source });
    if (target.type === 'identifier') this.bind(enclosingFunction(target) ?? this.root, target.text, source);
  }

  /** Records a tensor (or loader) value that one call passes to parameter `name` of `fn`. */
  passed(fn: SyntaxNode, name: string, source: NameGuess | undefined): void {
    this.recorder?.({ call: 'passed', fn, name, source });
    this.bind(fn, name, source);
  }

  private bind(scope: SyntaxNode, name: string, source: NameGuess | undefined): void {
    const strong = this.strongNames.get(scope);
    const weak = this.weakNames.get(scope);
    if (!source) {
      if (!strong) {
        this.strongNames.set(scope, new Set([name]));
        this.undo?.push(() => this.strongNames.delete(scope));
      } else if (!strong.has(name)) {
        strong.add(name);
        this.undo?.push(() => strong.delete(name));
      }
      const dropped = weak?.get(name);
      if (dropped) {
        weak!.delete(name);
        this.undo?.push(() => weak!.set(name, dropped));
      }
    } else if (!strong?.has(name) && !weak?.has(name)) {
      if (weak) weak.set(name, source);
      else this.weakNames.set(scope, new Map([[name, source]]));
      this.undo?.push(() => (weak ? weak.delete(name) : this.weakNames.delete(scope)));
    }
  }

  /** `value` is used as a tensor (a module or loss input, `.backward()`): its guess, if any, is evidence. */
  usedAsTensor(value: SyntaxNode): void {
    const source = this.findSource(value);
    this.recorder?.({ call: 'used', node: value, result: source });
    this.evidence(source);
  }

  private evidence(source: NameGuess | undefined): void {
    if (!source || source.evidenced) return;
    source.evidenced = true;
    this.undo?.push(() => (source.evidenced = false));
  }

  /** The guess a tensor (or loader) value rests on, evidenced or not; undefined when it rests on semantics. */
  sourceOf(node: SyntaxNode): NameGuess | undefined {
    const source = this.findSource(node);
    this.recorder?.({ call: 'source', node, result: source });
    return source;
  }

  /**
   * Makes recorded calls again, in order, with this evidence's own guesses for the recorded
   * ones (`map` gives the scopes of the version they were recorded in); before each, `before`
   * runs with its index. When a call reads a different guess than it read then, every change
   * is undone and the answer is false.
   */
  redoAll(
    calls: readonly EvidenceCall[],
    map: (scope: SyntaxNode) => SyntaxNode | undefined,
    before: (index: number) => void,
  ): boolean {
    const undo: (() => void)[] = [];
    this.undo = undo;
    try {
      for (let i = 0; i < calls.length; i++) {
        before(i);
        if (!this.redo(calls[i], map)) {
          for (let j = undo.length - 1; j >= 0; j--) undo[j]();
          return false;
        }
      }
      return true;
    } finally {
      this.undo = undefined;
    }
  }

  private redo(call: EvidenceCall, map: (scope: SyntaxNode) => SyntaxNode | undefined): boolean {
    const current = (recorded: NameGuess | undefined): NameGuess | null | undefined => {
      if (!recorded) return undefined;
      const scope = map(recorded.scope);
      return (scope && this.guesses.get(guessKey(scope, recorded.name))) ?? null;
    };
    switch (call.call) {
      case 'guess':
        this.guess(call.node);
        return true;
      case 'source':
      case 'used': {
        const found = this.findSource(call.node);
        if (found !== current(call.result)) return false;
        if (call.call === 'used') this.evidence(found);
        return true;
      }
      case 'assigned':
      case 'passed': {
        const source = current(call.source);
        if (source === null) return false;
        if (call.call === 'assigned') this.assigned(call.target, source);
        else {
          const fn = map(call.fn);
          if (!fn) return false;
          this.passed(fn, call.name, source);
        }
        return true;
      }
    }
  }

  private findSource(node: SyntaxNode, depth = 0): NameGuess | undefined {
    if (this.guesses.size === 0 || depth > MAX_DEPTH) return undefined;
    const target = unwrap(node);
    switch (target.type) {
      case 'identifier': {
        const bound = this.nameSource(target);
        return bound === 'strong' ? undefined : (bound ?? this.guessedLoader(target));
      }
      case 'attribute':
        return this.guessedLoader(target) ?? this.findSource(fieldOf(target, 'object')!, depth + 1);
      case 'subscript':
        return this.findSource(fieldOf(target, 'value')!, depth + 1);
      case 'keyword_argument':
        return this.findSource(fieldOf(target, 'value') ?? target, depth + 1);
      case 'dictionary_splat':
      case 'list_splat':
      case 'unary_operator':
        return target.children[0] && this.findSource(target.children[0], depth + 1);
      case 'call':
        return this.callSource(target, depth);
      case 'binary_operator':
      case 'augmented_assignment':
      case 'comparison_operator':
      case 'boolean_operator':
        return this.operandsSource(target.children, depth);
      case 'conditional_expression':
        return this.operandsSource([target.children[0], target.children[2]], depth);
      default:
        return undefined;
    }
  }

  /** The name the tensor fact of `node` rests on, when that is all it rests on. */
  weakSource(node: SyntaxNode): string | undefined {
    const source = this.findSource(node);
    return source && !source.evidenced ? source.name : undefined;
  }

  /** The loader itself, where its elements were guessed and its kind is still unknown (`iter(train_loader)`). */
  private guessedLoader(loader: SyntaxNode): NameGuess | undefined {
    const kind = this.kindOf(loader);
    if (kind !== undefined && kind !== 'unknown') return undefined;
    return this.guesses.get(guessKey(enclosingFunction(loader) ?? this.root, loader.text));
  }

  /** The guess a name is bound to in the innermost scope that binds it; `strong` when that binding is. */
  private nameSource(name: SyntaxNode): NameGuess | 'strong' | undefined {
    for (let scope = enclosingFunction(name); ; scope = enclosingFunction(scope)) {
      const key = scope ?? this.root;
      if (this.strongNames.get(key)?.has(name.text)) return 'strong';
      const weak = this.weakNames.get(key)?.get(name.text);
      if (weak || !scope) return weak;
    }
  }

  /** A tensor method's result (`y.float()`) rests on its receiver; `next(it)`, `enumerate(xs)` on their argument. */
  private callSource(call: SyntaxNode, depth: number): NameGuess | undefined {
    const callee = unwrap(fieldOf(call, 'function')!);
    if (callee.type === 'identifier' || /^(tqdm|itertools)\.\w+$/.test(callee.text)) {
      const first = firstPositionalArg(call);
      return PASS_THROUGH_CALLS.test(callee.text) && first ? this.findSource(first, depth + 1) : undefined;
    }
    const receiver = methodCall(call)?.receiver;
    const receiverKind = receiver && this.kindOf(unwrap(receiver));
    return receiverKind === 'tensor' || receiverKind === 'loader'
      ? this.findSource(receiver!, depth + 1)
      : undefined;
  }

  /** An operator's result is weak only when every tensor operand is. */
  private operandsSource(
    operands: readonly (SyntaxNode | undefined)[],
    depth: number,
  ): NameGuess | undefined {
    let found: NameGuess | undefined;
    for (const operand of operands) {
      if (!operand || this.kindOf(unwrap(operand)) !== 'tensor') continue;
      const source = this.findSource(operand, depth + 1);
      if (!source) return undefined;
      found ??= source;
    }
    return found;
  }
}

/** Guesses are per scope and loader text: evidence from one loop over `loader` holds for every loop over it. */
function guessKey(scope: SyntaxNode, text: string): string {
  return `${scope.id}:${text}`;
}

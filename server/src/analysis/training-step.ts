// The training-step model: which loops iterate once per optimizer step. A loop is a step
// loop when its body — directly, through nested loops (gradient accumulation, `for opt in
// optimizers:`) or through called functions and methods of the file — runs a backward and
// an optimizer step, or a scaler callable that does both (`loss_scaler(loss, optimizer)`).
// A loop that only contains a complete step loop (an epoch loop) is not itself a step loop.
import type { SyntaxNode } from '../parse/syntax';
import { ClassIndex } from './class-index';
import type { CallNameIndex } from './call-names';
import {
  enclosingFunction,
  fieldOf,
  hasText,
  isPositional,
  isSuperCall,
  lastDescendantId,
  lastName,
  methodCall,
  rangeWithin,
  unwrap,
  walk,
} from './syntax-helpers';

/** The methods `callEffect` can give an effect to. */
const EFFECT_METHODS = ['backward', 'manual_backward', 'optimizer_step', 'step'];

/** The two halves of a training step. */
export type TrainingEffect = 'backward' | 'step';

/** What a block does per execution: its training effects, and whether it holds a whole step loop. */
export interface BlockEffects {
  effects: ReadonlySet<TrainingEffect>;
  /** A nested loop (or a called function's loop) runs whole training steps by itself. */
  containsStepLoop: boolean;
  /**
   * (Functions only) a nested loop trains in part and the function does not complete the
   * step: the caller decides whether that loop was an accumulation loop or the step loop.
   */
  partialLoop?: boolean;
}

const LOOPS = new Set(['for_statement', 'while_statement']);
const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);
/** Receivers whose `.step()` is an optimizer step (an LR scheduler's is not). */
const OPTIMIZER_RECEIVER = /(^|_)(optim\w*|opt|opts|optimizer\w*|engine|model_engine|scaler|trainer)$/i;
const SCHEDULER_RECEIVER = /sched|lr_|warmup/i;
/** Method names that belong to torch objects: a same-named method of the file is not what they call. */
const LIBRARY_METHODS = /^(step|backward|forward|zero_grad|item|to|cuda|train|eval|update|append)$/;

/** The training effect of one call: `backward`, an optimizer step, or a framework's spelling of them. */
export function callEffect(
  call: SyntaxNode,
  optimizerNames: ReadonlySet<string>,
): TrainingEffect | undefined {
  const method = methodCall(call);
  if (!method) return undefined;
  if (method.name === 'backward' || method.name === 'manual_backward') return 'backward';
  if (method.name === 'optimizer_step') return 'step';
  if (method.name !== 'step') return undefined;
  const receiver = lastName(unwrap(method.receiver));
  if (!receiver) return undefined;
  if (optimizerNames.has(receiver)) return 'step';
  return OPTIMIZER_RECEIVER.test(receiver) && !SCHEDULER_RECEIVER.test(receiver) ? 'step' : undefined;
}

/**
 * Whether a call hands a loss and an optimizer to a callable that does both halves of the
 * step (timm's `NativeScaler`: `loss_scaler(loss, optimizer, clip_grad=...)`): a plain call
 * of a name that is not a function of the file, whose first argument is a tensor (or a
 * name holding a loss) and whose next arguments include a name holding an optimizer.
 */
export function isScalerCallable(
  call: SyntaxNode,
  optimizerNames: ReadonlySet<string>,
  isTensor: (node: SyntaxNode) => boolean = () => false,
): boolean {
  const callee = fieldOf(call, 'function');
  if (!callee || unwrap(callee).type !== 'identifier') return false;
  // NOTE: asked of every plain call of a file (see `anyEffect`): one pass, no list built.
  const list = fieldOf(call, 'arguments');
  if (!list || list.type !== 'argument_list') return false;
  let first: SyntaxNode | undefined;
  let optimizerAfterFirst = false;
  for (const arg of list.children) {
    if (!isPositional(arg)) continue;
    if (!first) first = arg;
    else if (!optimizerAfterFirst) {
      const name = lastName(unwrap(arg));
      optimizerAfterFirst = !!name && (optimizerNames.has(name) || /^(optimizer|optim|opt)$/.test(name));
    }
  }
  if (!first || !optimizerAfterFirst) return false;
  const loss = unwrap(first);
  return isTensor(loss) || (loss.type === 'identifier' && /loss/i.test(loss.text));
}

/** A call that may invoke same-file functions, and those functions. */
export interface CallSite {
  call: SyntaxNode;
  callees: readonly SyntaxNode[];
}

/** Computes, per loop and per function of one file, the training effects of its body. */
export class TrainingStepModel {
  private readonly functions = new Map<string, SyntaxNode[]>();
  private readonly methodNames = new Set<string>();
  /** The file's classes: what `super().name(...)` may reach (see `superMethods`). */
  private readonly classes: readonly SyntaxNode[];
  private classIndexValue: ClassIndex | undefined;
  private readonly functionEffects = new Map<SyntaxNode, BlockEffects>();
  private readonly loopEffects = new Map<SyntaxNode, BlockEffects>();
  private callSitesValue: readonly CallSite[] | undefined;
  /** The calls with a training effect of their own, and what it is (see `effectCalls`). */
  private effectCallsValue: Map<SyntaxNode, TrainingEffect | 'both'> | undefined;
  /** The functions that may have effects (see `mayTrain`). */
  private mayTrainValue: ReadonlySet<SyntaxNode> | undefined;

  private readonly optimizerNames: ReadonlySet<string>;
  private readonly callNames: CallNameIndex;
  private readonly isTensor?: (node: SyntaxNode) => boolean;
  /** Builds `blockNodes` (only a file with a training call walks blocks). */
  private readonly listBlockNodes: () => readonly SyntaxNode[];
  /** The calls, loops and scopes (functions, lambdas, classes) of the file, in document order. */
  private blockNodesValue: readonly SyntaxNode[] | undefined;

  constructor(input: {
    /** The file's calls by the last name of what they call. */
    callNames: CallNameIndex;
    /** Every function definition of the file. */
    functions: readonly SyntaxNode[];
    /** Every class definition of the file. */
    classes: readonly SyntaxNode[];
    /** Lists every call, loop, function, lambda and class of the file, in document order. */
    blockNodes: () => readonly SyntaxNode[];
    optimizerNames: ReadonlySet<string>;
    isTensor?: (node: SyntaxNode) => boolean;
  }) {
    this.optimizerNames = input.optimizerNames;
    this.callNames = input.callNames;
    this.isTensor = input.isTensor;
    this.classes = input.classes;
    this.listBlockNodes = input.blockNodes;
    for (const node of input.functions) {
      const name = fieldOf(node, 'name')?.text;
      if (!name) continue;
      const known = this.functions.get(name);
      if (known) known.push(node);
      else this.functions.set(name, [node]);
      if (isMethod(node)) this.methodNames.add(name);
    }
  }

  /** Whether `loop` runs whole training steps: its body trains and holds no complete step loop. */
  isStepLoop(loop: SyntaxNode): boolean {
    const { effects, containsStepLoop } = this.effectsOfLoop(loop);
    return effects.size > 0 && !containsStepLoop;
  }

  /** Whether `fn` does training work per call (a `train_step`), not whole epochs. */
  isStepFunction(fn: SyntaxNode): boolean {
    const { effects, containsStepLoop } = this.effectsOfFunction(fn);
    return effects.size > 0 && !containsStepLoop;
  }

  /** Whether `fn` runs a whole step by itself (backward and optimizer step, no loop of steps). */
  isCompleteStepFunction(fn: SyntaxNode): boolean {
    const { effects, containsStepLoop } = this.effectsOfFunction(fn);
    return isComplete(effects) && !containsStepLoop;
  }

  /** The calls of the file that may invoke same-file functions, with those functions, in document order. */
  callSites(): readonly CallSite[] {
    if (this.callSitesValue) return this.callSitesValue;
    const sites: CallSite[] = [];
    // A call invokes a function of the file only through that function's name (see
    // `calledFunctions`): the calls under the names of the file's functions are all there are.
    for (const call of this.callNames.namedAny(this.functions.keys())) {
      const callees = this.calledFunctions(call);
      if (callees.length) sites.push({ call, callees });
    }
    this.callSitesValue = sites;
    return sites;
  }

  /**
   * Same-file functions a call may invoke: `f(...)`, `self.f(...)`, `super().f(...)` (the
   * bases' method), and `obj.f(...)` for a method `f` of the file. Not memoised per call: a
   * map lookup costs about what the answer does; the passes over every call go through
   * `callSites`.
   */
  calledFunctions(call: SyntaxNode): readonly SyntaxNode[] {
    const callee = fieldOf(call, 'function');
    if (!callee) return [];
    const target = unwrap(callee);
    if (target.type === 'identifier') return this.functions.get(target.text) ?? [];
    if (target.type !== 'attribute') return [];
    const name = fieldOf(target, 'attribute')?.text ?? '';
    const object = fieldOf(target, 'object');
    if (object && hasText(object, 'self')) return this.functions.get(name) ?? [];
    if (object && isSuperCall(object))
      return (this.classIndexValue ??= new ClassIndex(this.classes)).superMethods(object, name);
    if (LIBRARY_METHODS.test(name) || !this.methodNames.has(name)) return [];
    return (this.functions.get(name) ?? []).filter(isMethod);
  }

  effectsOfLoop(loop: SyntaxNode): BlockEffects {
    if (!this.anyEffect()) return NONE;
    let known = this.loopEffects.get(loop);
    if (!known) {
      this.loopEffects.set(loop, NONE); // recursion guard
      known = this.effectsOfBlock(fieldOf(loop, 'body') ?? loop, false);
      this.loopEffects.set(loop, known);
    }
    return known;
  }

  effectsOfFunction(fn: SyntaxNode): BlockEffects {
    if (!this.mayTrain().has(fn)) return NONE;
    let known = this.functionEffects.get(fn);
    if (!known) {
      this.functionEffects.set(fn, NONE); // recursion guard
      known = this.effectsOfBlock(fieldOf(fn, 'body') ?? fn, true);
      this.functionEffects.set(fn, known);
    }
    return known;
  }

  /**
   * The functions whose effects may be non-empty: each function holding a call with an
   * effect of its own, and each function calling one of those, and so on. A block's effects
   * come only from its calls (those in its loops included), and a call counts for the
   * innermost function around it at most (nested scopes are skipped), so every function
   * outside this set has none, and its body need not be walked.
   */
  private mayTrain(): ReadonlySet<SyntaxNode> {
    if (this.mayTrainValue) return this.mayTrainValue;
    const found = new Set<SyntaxNode>();
    const pending: SyntaxNode[] = [];
    const noteCaller = (call: SyntaxNode) => {
      const fn = enclosingFunction(call);
      if (fn && !found.has(fn)) {
        found.add(fn);
        pending.push(fn);
      }
    };
    for (const call of this.effectCalls().keys()) noteCaller(call);
    if (pending.length) {
      const callsOf = new Map<SyntaxNode, SyntaxNode[]>();
      for (const { call, callees } of this.callSites())
        for (const fn of callees) {
          const known = callsOf.get(fn);
          if (known) known.push(call);
          else callsOf.set(fn, [call]);
        }
      while (pending.length) for (const call of callsOf.get(pending.pop()!) ?? []) noteCaller(call);
    }
    this.mayTrainValue = found;
    return found;
  }

  /** Whether any call of the file can have a training effect: without one, no block has any. */
  private anyEffect(): boolean {
    return this.effectCalls().size > 0;
  }

  /**
   * Every call that is a backward or an optimizer step (`callEffect`), or is shaped like a
   * scaler callable doing both (`isScalerCallable`; it counts only where the call names no
   * function of the file). Only these give a block effects of its own.
   */
  private effectCalls(): Map<SyntaxNode, TrainingEffect | 'both'> {
    if (this.effectCallsValue) return this.effectCallsValue;
    const found = new Map<SyntaxNode, TrainingEffect | 'both'>();
    // `callEffect` answers only for a method of one of EFFECT_METHODS; a scaler callable may
    // have any name, so every call that has no effect of its own is asked about that.
    for (const call of this.callNames.namedAny(EFFECT_METHODS)) {
      const effect = callEffect(call, this.optimizerNames);
      if (effect) found.set(call, effect);
    }
    // A scaler callable's callee is a plain name.
    for (const call of this.callNames.plainCalls())
      if (!found.has(call) && isScalerCallable(call, this.optimizerNames, this.isTensor))
        found.set(call, 'both');
    this.effectCallsValue = found;
    return found;
  }

  /**
   * The effects of a block. Nested loops that train only in part join the block when the
   * block completes the step with them (an accumulation loop of backwards before an
   * `opt.step()`, a `for opt in optimizers:` after a backward); otherwise they are step
   * loops of their own (the other half happens in a library), and so is a loop that trains
   * completely.
   */
  private effectsOfBlock(body: SyntaxNode, isFunction: boolean): BlockEffects {
    const direct = new Set<TrainingEffect>();
    const loopEffects: ReadonlySet<TrainingEffect>[] = [];
    let containsStepLoop = false;
    let calledPartialLoop = false;
    const absorb = (inner: BlockEffects, isLoop: boolean) => {
      if (inner.containsStepLoop || (isLoop && isComplete(inner.effects))) containsStepLoop = true;
      else if (isLoop) loopEffects.push(inner.effects);
      else {
        inner.effects.forEach((e) => direct.add(e));
        calledPartialLoop ||= !!inner.partialLoop;
      }
    };
    // The calls, loops and scopes of the block in document order: what a walk of the block
    // would visit, less the nodes that cannot matter (a subtree skipped is an id range).
    let skipThroughId = -1;
    const blockNodes = (this.blockNodesValue ??= this.listBlockNodes());
    const [from, to] = rangeWithin(blockNodes, body);
    for (let i = from; i < to; i++) {
      const node = blockNodes[i];
      if (node === body || node.id <= skipThroughId) continue;
      if (SCOPES.has(node.type)) {
        skipThroughId = lastDescendantId(node);
        continue;
      }
      if (LOOPS.has(node.type)) {
        absorb(this.effectsOfLoop(node), true);
        // The loop's header (iterable, condition) runs here, the body was absorbed above.
        const header = fieldOf(node, 'right') ?? fieldOf(node, 'condition');
        if (header) walk(header, (inner) => this.visitCall(inner, direct, absorb));
        skipThroughId = lastDescendantId(node);
        continue;
      }
      this.visitCall(node, direct, absorb);
    }
    const total = new Set(direct);
    for (const effects of loopEffects) effects.forEach((e) => total.add(e));
    const partial = calledPartialLoop || loopEffects.some((e) => e.size > 0);
    if (isComplete(total) || !partial) return { effects: total, containsStepLoop };
    // A loop trained in part and nothing here completes the step: in a function the caller
    // may (a micro-batch loop before the caller's `opt.step()`); in a loop body, that inner
    // loop is the step loop.
    if (isFunction) return { effects: total, containsStepLoop, partialLoop: true };
    return { effects: direct, containsStepLoop: true };
  }

  private visitCall(
    node: SyntaxNode,
    effects: Set<TrainingEffect>,
    absorb: (inner: BlockEffects, isLoop: boolean) => void,
  ): void {
    if (node.type !== 'call') return;
    const effect = this.effectCalls().get(node);
    if (effect && effect !== 'both') {
      effects.add(effect);
      return;
    }
    const called = this.calledFunctions(node);
    for (const fn of called) absorb(this.effectsOfFunction(fn), false);
    if (!called.length && effect === 'both') {
      effects.add('backward');
      effects.add('step');
    }
  }
}

const NONE: BlockEffects = { effects: new Set(), containsStepLoop: false };

function isComplete(effects: ReadonlySet<TrainingEffect>): boolean {
  return effects.has('backward') && effects.has('step');
}

function isMethod(fn: SyntaxNode): boolean {
  const parent = fn.parent?.type === 'decorated_definition' ? fn.parent.parent : fn.parent;
  return parent?.type === 'block' && parent.parent?.type === 'class_definition';
}

// What one analysis of a function read from the inference's shared state and what it
// wrote there. The analysis is deterministic, so when a later round finds every input
// unchanged it replays the writes instead of walking the function again: the kinds of the
// function's own nodes are already recorded, and the outcome is the same as a re-walk.
import type { SyntaxNode } from '../parse/syntax';
import { joinKinds, type Kind } from './kinds';

type Env = Map<string, Kind>;

/** The state shared between functions, as the inference exposes it to a trace. */
export interface SharedKindState {
  readonly globals: Env;
  readonly classAttributes: Map<SyntaxNode, Env>;
  readonly returnKinds: Map<SyntaxNode, Kind>;
  /** Kinds of the elements of the tuples each function returns, joined over its returns. */
  readonly returnedElements: Map<SyntaxNode, Kind[]>;
  /** The parameter environment a function starts from. */
  startParameters(fn: SyntaxNode): ReadonlyMap<string, Kind>;
  /** Joins `kind` into attribute `name` of class `cls` (an assignment to `self.name`). */
  joinAttribute(cls: SyntaxNode, name: string, kind: Kind): void;
  /** Passes argument kinds from one call to the parameters of `fn`. */
  joinArguments(fn: SyntaxNode, kinds: readonly (readonly [string, Kind])[]): void;
}

/** One `self.name` attribute as this function saw it: what it wrote, and what each read returned. */
interface AttributeTrace {
  writes: Kind[];
  /** Number of this function's writes before a read → the value that read returned. */
  reads: Map<number, Kind | undefined>;
}

type Write =
  | { attribute: true; cls: SyntaxNode; name: string; kind: Kind }
  | { attribute: false; fn: SyntaxNode; kinds: readonly (readonly [string, Kind])[] };

/** Reads (values at first touch) and writes (in order) of one analysis of `fn`. */
export class FunctionTrace {
  private readonly globals = new Map<string, Kind | undefined>();
  private readonly attributes = new Map<SyntaxNode, Map<string, AttributeTrace>>();
  private readonly returns = new Map<SyntaxNode, Kind | undefined>();
  private readonly elements = new Map<SyntaxNode, readonly Kind[] | undefined>();
  private readonly writes: Write[] = [];
  result: Kind = 'unknown';

  constructor(
    readonly fn: SyntaxNode,
    private readonly parameters: Env,
  ) {}

  readGlobal(state: SharedKindState, name: string): Kind | undefined {
    const value = state.globals.get(name);
    if (!this.globals.has(name)) this.globals.set(name, value);
    return value;
  }

  readAttribute(state: SharedKindState, cls: SyntaxNode, name: string): Kind | undefined {
    const value = state.classAttributes.get(cls)?.get(name);
    const attribute = this.attribute(cls, name);
    if (!attribute.reads.has(attribute.writes.length)) attribute.reads.set(attribute.writes.length, value);
    return value;
  }

  readReturn(state: SharedKindState, fn: SyntaxNode): Kind | undefined {
    const value = state.returnKinds.get(fn);
    if (!this.returns.has(fn)) this.returns.set(fn, value);
    return value;
  }

  /** The tuple elements `fn` returns, as a caller that unpacks its result sees them. */
  readElements(state: SharedKindState, fn: SyntaxNode): Kind[] | undefined {
    const value = state.returnedElements.get(fn);
    if (!this.elements.has(fn)) this.elements.set(fn, value && [...value]);
    return value;
  }

  wroteAttribute(cls: SyntaxNode, name: string, kind: Kind): void {
    this.attribute(cls, name).writes.push(kind);
    this.writes.push({ attribute: true, cls, name, kind });
  }

  private attribute(cls: SyntaxNode, name: string): AttributeTrace {
    let byName = this.attributes.get(cls);
    if (!byName) this.attributes.set(cls, (byName = new Map()));
    let attribute = byName.get(name);
    if (!attribute) byName.set(name, (attribute = { writes: [], reads: new Map() }));
    return attribute;
  }

  passedArguments(fn: SyntaxNode, kinds: readonly (readonly [string, Kind])[]): void {
    this.writes.push({ attribute: false, fn, kinds });
  }

  /** Whether a new analysis of the function would read exactly what this one read. */
  inputsUnchanged(state: SharedKindState): boolean {
    if (!sameEnv(this.parameters, state.startParameters(this.fn))) return false;
    for (const [name, value] of this.globals) if (state.globals.get(name) !== value) return false;
    for (const [fn, value] of this.returns) if (state.returnKinds.get(fn) !== value) return false;
    for (const [fn, value] of this.elements)
      if (!sameKinds(state.returnedElements.get(fn), value)) return false;
    for (const [cls, byName] of this.attributes) {
      const current = state.classAttributes.get(cls);
      for (const [name, attribute] of byName)
        if (!readsUnchanged(attribute, current?.get(name))) return false;
    }
    return true;
  }

  /** Applies this analysis's writes again, in their order, and its return kind. */
  replay(state: SharedKindState): void {
    for (const write of this.writes) {
      if (write.attribute) state.joinAttribute(write.cls, write.name, write.kind);
      else state.joinArguments(write.fn, write.kinds);
    }
    state.returnKinds.set(this.fn, this.result);
  }
}

/**
 * Whether each read would return what it did, starting from `value`: a read after k writes
 * sees `value` joined with those k kinds, as `joinAttribute` computes it.
 */
function readsUnchanged(attribute: AttributeTrace, start: Kind | undefined): boolean {
  let value = start;
  for (let i = 0; i <= attribute.writes.length; i++) {
    if (attribute.reads.has(i) && attribute.reads.get(i) !== value) return false;
    if (i < attribute.writes.length) value = joinKinds(value, attribute.writes[i]);
  }
  return true;
}

function sameKinds(a: readonly Kind[] | undefined, b: readonly Kind[] | undefined): boolean {
  if (!a || !b) return a === b;
  return a.length === b.length && a.every((kind, i) => kind === b[i]);
}

function sameEnv(a: Env, b: ReadonlyMap<string, Kind>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, kind] of a) if (b.get(name) !== kind) return false;
  return true;
}

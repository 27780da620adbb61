// What one analysis of a function read from the inference's shared state and what it
// wrote there. The analysis is deterministic, so when a later round finds every input
// unchanged it replays the writes instead of walking the function again, and the outcome
// is the same as a re-walk. For an open document the trace also keeps the kinds the walk gave
// the function's own nodes and its tensor-evidence calls, so the next version of the
// document can replay it too (kind-carry.ts).
import type { SyntaxNode } from '../parse/syntax';
import { joinKinds, type Kind } from './kinds';
import type { EvidenceCall, TensorEvidence } from './tensor-evidence';
import type { FileWideReads } from './file-wide-reads';

type Env = Map<string, Kind>;

/** The state shared between functions, as the inference exposes it to a trace. */
export interface SharedKindState {
  /** Kind of each node of this tree, by id. */
  readonly kinds: (Kind | undefined)[];
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
  /** Joins the element kinds of one `return a, b` of `fn` into its returned elements. */
  joinReturnedElements(fn: SyntaxNode, kinds: readonly Kind[]): void;
  /** Notes that a caller unpacked `fn`'s result before its elements were known. */
  unpackedBeforeKnown(fn: SyntaxNode): void;
}

/** One `self.name` attribute as this function saw it: what it wrote, and what each read returned. */
interface AttributeTrace {
  writes: Kind[];
  /** Number of this function's writes before a read → the value that read returned. */
  reads: Map<number, Kind | undefined>;
}

type Write =
  | { to: 'attribute'; cls: SyntaxNode; name: string; kind: Kind }
  | { to: 'arguments'; fn: SyntaxNode; kinds: readonly (readonly [string, Kind])[] }
  | { to: 'elements'; fn: SyntaxNode; kinds: readonly Kind[] }
  | { to: 'unpacked'; fn: SyntaxNode };

/** Maps a function or class node of the trace's version to the same definition in another. */
export type NodeMap = (node: SyntaxNode) => SyntaxNode | undefined;

/** Reads (values at first touch) and writes (in order) of one analysis of `fn`. */
export class FunctionTrace {
  private readonly globals = new Map<string, Kind | undefined>();
  private readonly attributes = new Map<SyntaxNode, Map<string, AttributeTrace>>();
  private readonly returns = new Map<SyntaxNode, Kind | undefined>();
  private readonly elements = new Map<SyntaxNode, readonly Kind[] | undefined>();
  private readonly writes: Write[] = [];
  /** The nodes of the function the walk gave a kind, and those kinds, in the walk's order. */
  private kindNodes: SyntaxNode[] = [];
  private kindValues: Kind[] = [];
  /** The walk's tensor-evidence calls, and how many kinds it had written before each. */
  private evidenceCalls: EvidenceCall[] = [];
  private evidenceAt: number[] = [];
  /** The walk's file-wide reads (query → answer), for the next version (file-wide-reads.ts). */
  private fileWideReads = new Map<string | undefined, string>();
  result: Kind = 'unknown';

  constructor(
    readonly fn: SyntaxNode,
    private readonly parameters: Env,
    /** Whether the walk's kinds and tensor-evidence calls are kept (for the next version). */
    private readonly forNextVersion = false,
  ) {}

  /**
   * The same trace for another version of the document, whose definitions `map` gives;
   * undefined when it names a definition that version lacks.
   */
  translated(map: NodeMap): FunctionTrace | undefined {
    // NOTE: most definitions an edit leaves alone are the same objects in the next version:
    // then the trace itself serves, and no copy of its maps is made for every carried function.
    if (this.mapsToItself(map)) return this;
    const copy = new FunctionTrace(this.fn, this.parameters, this.forNextVersion);
    let missing = false;
    const to = (node: SyntaxNode): SyntaxNode => {
      const mapped = map(node);
      if (!mapped) missing = true;
      return mapped ?? node;
    };
    for (const [name, value] of this.globals) copy.globals.set(name, value);
    for (const [cls, byName] of this.attributes) copy.attributes.set(to(cls), byName);
    for (const [fn, value] of this.returns) copy.returns.set(to(fn), value);
    for (const [fn, value] of this.elements) copy.elements.set(to(fn), value);
    for (const write of this.writes)
      copy.writes.push(
        write.to === 'attribute' ? { ...write, cls: to(write.cls) } : { ...write, fn: to(write.fn) },
      );
    // Shared, not copied: a trace's kinds are final once its walk ends.
    copy.kindNodes = this.kindNodes;
    copy.kindValues = this.kindValues;
    copy.evidenceCalls = this.evidenceCalls;
    copy.evidenceAt = this.evidenceAt;
    copy.fileWideReads = this.fileWideReads;
    copy.result = this.result;
    return missing ? undefined : copy;
  }

  /** Whether `map` takes every definition the trace names to itself. */
  private mapsToItself(map: NodeMap): boolean {
    const same = (node: SyntaxNode) => map(node) === node;
    for (const cls of this.attributes.keys()) if (!same(cls)) return false;
    for (const fn of this.returns.keys()) if (!same(fn)) return false;
    for (const fn of this.elements.keys()) if (!same(fn)) return false;
    for (const write of this.writes) if (!same(write.to === 'attribute' ? write.cls : write.fn)) return false;
    return true;
  }

  wroteKind(node: SyntaxNode, kind: Kind): void {
    if (!this.forNextVersion) return;
    this.kindNodes.push(node);
    this.kindValues.push(kind);
  }

  calledEvidence(call: EvidenceCall): void {
    if (!this.forNextVersion) return;
    this.evidenceCalls.push(call);
    this.evidenceAt.push(this.kindNodes.length);
  }

  /** Notes a file-wide read (a definition lookup, module-level evidence) and this version's answer. */
  readFileWide(query: string | undefined, reads: FileWideReads): void {
    if (this.forNextVersion && !this.fileWideReads.has(query))
      this.fileWideReads.set(query, reads.answer(query));
  }

  /** Whether another version answers every file-wide read of the walk as this one did. */
  sameFileWideReads(reads: FileWideReads): boolean {
    return reads.sameAnswers(this.fileWideReads);
  }

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
    this.writes.push({ to: 'attribute', cls, name, kind });
  }

  wroteElements(fn: SyntaxNode, kinds: readonly Kind[]): void {
    this.writes.push({ to: 'elements', fn, kinds });
  }

  unpacked(fn: SyntaxNode): void {
    this.writes.push({ to: 'unpacked', fn });
  }

  private attribute(cls: SyntaxNode, name: string): AttributeTrace {
    let byName = this.attributes.get(cls);
    if (!byName) this.attributes.set(cls, (byName = new Map()));
    let attribute = byName.get(name);
    if (!attribute) byName.set(name, (attribute = { writes: [], reads: new Map() }));
    return attribute;
  }

  passedArguments(fn: SyntaxNode, kinds: readonly (readonly [string, Kind])[]): void {
    this.writes.push({ to: 'arguments', fn, kinds });
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
      if (write.to === 'attribute') state.joinAttribute(write.cls, write.name, write.kind);
      else if (write.to === 'arguments') state.joinArguments(write.fn, write.kinds);
      else if (write.to === 'elements') state.joinReturnedElements(write.fn, write.kinds);
      else state.unpackedBeforeKnown(write.fn);
    }
    state.returnKinds.set(this.fn, this.result);
  }

  /**
   * Replays a trace of the previous version (whose inputs read the same now): the kinds of
   * the function's nodes and its tensor-evidence calls in the walk's order (the calls read
   * those kinds), then the other writes. False, with nothing changed, when an evidence call
   * reads a different name guess than it did then.
   */
  replayCarried(state: SharedKindState, evidence: TensorEvidence | undefined, map: NodeMap): boolean {
    const before: (Kind | undefined)[] = [];
    const writeKinds = (count: number) => {
      for (let i = before.length; i < count; i++) {
        before.push(state.kinds[this.kindNodes[i].id]);
        state.kinds[this.kindNodes[i].id] = this.kindValues[i];
      }
    };
    if (evidence && !evidence.redoAll(this.evidenceCalls, map, (i) => writeKinds(this.evidenceAt[i]))) {
      for (let i = before.length - 1; i >= 0; i--) state.kinds[this.kindNodes[i].id] = before[i];
      return false;
    }
    writeKinds(this.kindNodes.length);
    this.replay(state);
    return true;
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

// The file-wide reads a function's kind analysis makes besides the shared kinds its trace
// records: definition lookups (which function a called name runs, whether a name is a module
// class, which method `self.name(...)` runs), what the module-level code shows of a name, and
// what an imported name is bound to.
// Each is put as a query whose answer names the definition found by its place and signature.
// A function analysis carried to the next version of a document (kind-carry.ts) must get the
// same answers there, so an edit elsewhere that adds, removes or renames a definition,
// changes module-level code or changes an import, re-walks only the functions whose reads it
// changes.
import type { SyntaxNode } from '../parse/syntax';
import type { Definitions } from './definitions';
import type { ImportTable } from './imports';
import type { Kind } from './kinds';
import { fieldOf } from './syntax-helpers';

/** An answer no later version gives: the lookup involved a definition with no unique key. */
const NEVER = '\u0000never';
/** The answer to a method query whose class has no key (no recorded answer is this). */
const NO_CLASS = '\u0000no class';

/**
 * Each function and class definition's key, the path of definition types and names from the
 * outermost (`cNet/fforward`): the same definition has the same key in the next version
 * when its place did not change. Keys that two definitions share are not keys.
 */
export class DefinitionKeys {
  /** Every definition's path, shared or not, in document order. */
  readonly paths = new Map<SyntaxNode, string>();
  private readonly keyByNode = new Map<SyntaxNode, string>();
  private readonly nodeByKey = new Map<string, SyntaxNode>();

  /** `definitions`: every function and class definition, in document order. */
  constructor(definitions: readonly SyntaxNode[]) {
    const path = this.paths;
    const shared = new Set<string>();
    for (const node of definitions) {
      let outer = node.parent;
      while (outer && !path.has(outer)) outer = outer.parent;
      const own = `${node.type[0]}${fieldOf(node, 'name')?.text ?? ''}`;
      const key = outer ? `${path.get(outer)}/${own}` : own;
      path.set(node, key);
      if (this.nodeByKey.has(key)) shared.add(key);
      else this.nodeByKey.set(key, node);
    }
    for (const key of shared) this.nodeByKey.delete(key);
    for (const [node, key] of path) if (!shared.has(key)) this.keyByNode.set(node, key);
  }

  keyOf(node: SyntaxNode): string | undefined {
    return this.keyByNode.get(node);
  }

  nodeWithKey(key: string): SyntaxNode | undefined {
    return this.nodeByKey.get(key);
  }
}

/** The kinds of file-wide read (see {@link FileWideReads.query}). */
export type FileWideRead = 'e' | 'f' | 'i' | 'm' | 'o';

/** Puts one version's file-wide reads as queries and answers them. */
export class FileWideReads {
  private readonly definitions: Definitions;
  readonly keys: DefinitionKeys;
  private readonly moduleEvidence: ReadonlyMap<string, Kind> | undefined;
  private readonly imports: ImportTable;

  constructor(input: {
    definitions: Definitions;
    keys: DefinitionKeys;
    /** What the module-level code shows of names (kinds.ts `collectUsageEvidence`). */
    moduleEvidence: ReadonlyMap<string, Kind> | undefined;
    imports: ImportTable;
  }) {
    this.definitions = input.definitions;
    this.keys = input.keys;
    this.moduleEvidence = input.moduleEvidence;
    this.imports = input.imports;
  }

  /**
   * The query for a read: `e` what the module-level code shows of `name`, `f` the function
   * `name(...)` runs, `i` the dotted name an import binds `name` to, `m` whether `name` is a
   * module class, `o` the method `name` of class `cls`. Undefined when `cls` has no key (a
   * read no other version answers alike).
   */
  query(kind: FileWideRead, name: string, cls?: SyntaxNode): string | undefined {
    if (kind !== 'o') return `${kind} ${name}`;
    const key = cls && this.keys.keyOf(cls);
    return key === undefined ? undefined : `o ${key} ${name}`;
  }

  /** What this version answers to `query` (one of the queries above, or undefined). */
  answer(query: string | undefined): string {
    if (query === undefined) return NEVER;
    // NOTE: many functions read the same names; each carried one is checked every version.
    let answer = this.answers.get(query);
    if (answer === undefined) this.answers.set(query, (answer = this.answerAfresh(query)));
    return answer;
  }

  private readonly answers = new Map<string, string>();

  private answerAfresh(query: string): string {
    const kind = query[0];
    const rest = query.slice(2);
    if (kind === 'e') return this.moduleEvidence?.get(rest) ?? '-';
    if (kind === 'i') return this.imports.lookup(rest) ?? '-';
    if (kind === 'm') return this.definitions.moduleClasses.has(rest) ? 'module' : '-';
    if (kind === 'f') return this.describe(this.definitions.functions.get(rest));
    // A key has no spaces: `o cNet/fforward name`.
    const space = rest.indexOf(' ');
    const cls = this.keys.nodeWithKey(rest.slice(0, space));
    return cls ? this.describe(this.definitions.methodOf(cls, rest.slice(space + 1))) : NO_CLASS;
  }

  /** Whether this version answers each query as `answers` has it. */
  sameAnswers(answers: ReadonlyMap<string | undefined, string>): boolean {
    for (const [query, answer] of answers)
      if (answer === NEVER || this.answer(query) !== answer) return false;
    return true;
  }

  /** A function found: its key and its parameter names; `-` for none. */
  private describe(fn: SyntaxNode | undefined): string {
    if (!fn) return '-';
    const key = this.keys.keyOf(fn);
    return key === undefined ? NEVER : `${key}(${this.definitions.parameterNames(fn).join(',')})`;
  }
}

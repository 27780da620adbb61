// Carries the kind inference of unchanged functions from one version of a document to the
// next. A function whose lowered node is the same object in both versions (the incremental
// lowering moved its whole subtree, so its text is unchanged) is replayed from the previous
// version's trace when every input the trace recorded reads the same now (its tensor-evidence
// calls included: they are made again, and undone if one reads another name guess). When the
// file-wide facts (the imports, the definitions and the module-level usage evidence: the whole
// `context` string) are unchanged, definitions correspond by their order; otherwise by their
// keys (file-wide-reads.ts), and a function is carried only if it kept its key and its trace's
// definition lookups, module-level evidence reads and imported names answer the same now.
import type { SyntaxNode } from '../parse/syntax';
import type { FunctionTrace, NodeMap } from './function-trace';
import type { ImportTable } from './imports';
import type { Kind } from './kinds';
import type { Definitions } from './definitions';
import { fieldOf, mergeInDocumentOrder } from './syntax-helpers';
import { DefinitionKeys, FileWideReads } from './file-wide-reads';

/** What one version's inference leaves for the next. */
export interface KindMemo {
  /** The file-wide inputs of every function's analysis (see {@link kindContext}). */
  readonly context: string;
  readonly keys: DefinitionKeys;
  /** Function and class definitions, in document order. */
  readonly definitions: readonly SyntaxNode[];
  readonly root: SyntaxNode;
  /** The trace each function's analysis ended each of the two rounds with. */
  readonly rounds: readonly [ReadonlyMap<SyntaxNode, FunctionTrace>, ReadonlyMap<SyntaxNode, FunctionTrace>];
}

/** The previous version's memo to carry from, its definitions mapped onto this version's. */
export interface CarrySource {
  memo: KindMemo;
  map: NodeMap;
  /** Mapped by key: each carried function must keep its key and its file-wide reads. */
  byKey: boolean;
}

/** One version's side of the carry (see {@link KindCarry.begin}). */
export interface CarryVersion {
  /** What this version leaves for the next, less the traces its analysis adds. */
  readonly memo: Omit<KindMemo, 'rounds'>;
  /** Its file-wide reads as queries, for the traces to record. */
  readonly reads: FileWideReads;
  /** The memo it carries from, if any. */
  readonly source?: CarrySource;
}

/**
 * The memos of one open document: from its last version without syntax errors, and from
 * its last version if that one had an error (typing through an unclosed bracket keeps the
 * error's context; fixing it brings back the last clean version's).
 */
export class KindCarry {
  private memo: KindMemo | undefined;
  private errorMemo: KindMemo | undefined;

  /** This version's file-wide facts and keys, and the memo it carries from. */
  begin(input: {
    imports: ImportTable;
    definitions: Definitions;
    classes: readonly SyntaxNode[];
    /** What the module-level code shows of names (kinds.ts `collectUsageEvidence`). */
    moduleEvidence: ReadonlyMap<string, Kind> | undefined;
    root: SyntaxNode;
  }): CarryVersion {
    const { definitions, moduleEvidence, root } = input;
    const list = mergeInDocumentOrder([definitions.functionNodes, input.classes]);
    const keys = new DefinitionKeys(list);
    const memo = {
      context: kindContext(input.imports.fingerprint(), moduleEvidence, keys),
      keys,
      definitions: list,
      root,
    };
    return {
      memo,
      reads: new FileWideReads({ definitions, keys, moduleEvidence, imports: input.imports }),
      source: this.previousFor(memo),
    };
  }

  /**
   * The memo to carry from, with its definitions mapped onto this version's: the error
   * version's when its context is this version's, else the clean version's when that is;
   * failing both, the first there is, its definitions mapped by key (`byKey`: each carried
   * function must then keep its key and its file-wide reads, imported names included).
   */
  private previousFor(input: Omit<KindMemo, 'rounds'>): CarrySource | undefined {
    const { context, definitions, keys, root } = input;
    for (const memo of [this.errorMemo, this.memo]) {
      const map = definitionMap(memo, context, definitions, root);
      if (map) return { memo: memo!, map, byKey: false };
    }
    for (const memo of [this.errorMemo, this.memo]) {
      if (!memo) continue;
      const map: NodeMap = (node) => {
        if (node === memo.root) return root;
        const key = memo.keys.keyOf(node);
        return key === undefined ? undefined : keys.nodeWithKey(key);
      };
      return { memo, map, byKey: true };
    }
    return undefined;
  }

  /**
   * Keeps a version's memo. A syntax error often changes the context (a class it cuts short
   * changes its methods' nesting), so the last clean version's memo stays beside it.
   */
  keep(memo: KindMemo, hasSyntaxError: boolean): void {
    if (hasSyntaxError) this.errorMemo = memo;
    else [this.memo, this.errorMemo] = [memo, undefined];
  }

  /**
   * Test-only faults: carry a trace without checking its inputs, without its tensor-evidence
   * calls, whatever the file-wide facts are, whatever its definition lookups answer now, or
   * without noting the imported names it read (so whatever they are bound to now).
   */
  static fault:
    'none' | 'ignore-inputs' | 'skip-evidence' | 'ignore-context' | 'ignore-definitions' | 'ignore-imports' =
    'none';
}

/** Function analyses (one per function and round) carried or walked with a memo at hand, in this process: for tests and the benchmark. */
export const kindCarryCounts = { carried: 0, walked: 0 };

/**
 * Whether the file-wide facts let `fn`'s trace of `round` be carried from `source`: always
 * when its definitions correspond by order; by key, when `fn` kept its key and every
 * file-wide read of the trace answers the same in this version (`reads`).
 */
export function fileWideReadsHold(
  source: CarrySource,
  fn: SyntaxNode,
  round: number,
  reads: FileWideReads,
): boolean {
  if (!source.byKey || KindCarry.fault === 'ignore-definitions') return true;
  const key = reads.keys.keyOf(fn);
  if (key === undefined || source.memo.keys.keyOf(fn) !== key) return false;
  return source.memo.rounds[round].get(fn)!.sameFileWideReads(reads);
}

/**
 * The file-wide facts a function's analysis reads: the import table (`imports`, its
 * fingerprint), what the module-level code shows of names used in functions, and each
 * definition's name, signature (or bases) and the definitions it is nested in (its path in
 * `keys`). Two versions with the same context answer every file-wide read alike, so their
 * traces are carried without checking those reads.
 */
export function kindContext(
  imports: string,
  moduleEvidence: ReadonlyMap<string, Kind> | undefined,
  keys: DefinitionKeys,
): string {
  const parts = [imports, JSON.stringify([...(moduleEvidence ?? [])])];
  for (const [node, path] of keys.paths) {
    const signature = fieldOf(node, node.type === 'class_definition' ? 'superclasses' : 'parameters');
    parts.push(`${path} ${signature?.text ?? ''}`);
  }
  return parts.join('\n');
}

/**
 * The previous version's definition (or root) → this version's, when the file-wide facts are
 * the same (so the definitions correspond one to one, in order); undefined otherwise.
 */
function definitionMap(
  memo: KindMemo | undefined,
  context: string,
  definitions: readonly SyntaxNode[],
  root: SyntaxNode,
): NodeMap | undefined {
  if (!memo || memo.definitions.length !== definitions.length) return undefined;
  if (memo.context !== context && KindCarry.fault !== 'ignore-context') return undefined;
  const map = new Map(memo.definitions.map((node, i) => [node, definitions[i]]));
  map.set(memo.root, root);
  return (node) => map.get(node);
}

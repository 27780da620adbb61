// Incremental re-parsing of open documents: keeps each document's last wasm tree, turns
// every content change into a tree-sitter edit of it, and re-parses with it as the old
// tree so tree-sitter reuses the subtrees the edits did not touch. Every replaced tree is
// deleted (trees live in the wasm heap and leak otherwise).
import type { ParseState, Parser, Tree } from 'web-tree-sitter';
import { composeSpans, narrowSpan, spanningEdit, treeEdit, type TextEdit } from './edit-spans';
import { lowerTree, type SyntaxNode } from './syntax';
import { hasUnpairedBracket, mayChangeBrackets } from './bracket-balance';
import type { ParsedSource } from './parser';
import { lowerWindow, setWindowFault, type WindowOutcome } from './window-parse';
import {
  assembleChunks,
  setChunkFault,
  chunksOfWholeLowering,
  planChunks,
  type ChunkPlan,
  type ChunkRecord,
  type PreviousChunks,
} from './chunked';
import { setDefinitionChunkFault } from './definition-chunks';
import { setLiteralChunkFault } from './literal-chunks';
import {
  lowerReusing,
  setLoweringReuseFault,
  type NodeSet,
  type PreviousLowering,
  type TextRange,
  type TextSpan,
} from './lower-reuse';
import { wholeTextOptions } from './comment-runs';

/** Test-only faults, to prove the equivalence test catches a broken reuse. */
export type IncrementalFault =
  | 'none'
  | 'skip-tree-edit'
  | 'keep-errors'
  | 'stale-offsets'
  | 'stale-chunks'
  | 'stale-groups'
  | 'stale-literal-groups'
  | 'reuse-unverified'
  | 'window-comment-end'
  | 'window-deeper-next'
  | 'restore-stale-base';
let fault: IncrementalFault = 'none';

/** Sets a deliberate fault in the reuse (tests only). */
export function setIncrementalFault(next: IncrementalFault): void {
  fault = next;
  setLoweringReuseFault(next === 'stale-offsets' || next === 'reuse-unverified' ? next : 'none');
  setChunkFault(next === 'stale-chunks');
  setDefinitionChunkFault(next === 'stale-groups');
  setLiteralChunkFault(next === 'stale-literal-groups');
  setWindowFault(
    next === 'window-comment-end' ? 'comment-end' : next === 'window-deeper-next' ? 'deeper-next' : 'none',
  );
}

interface DocumentTree {
  /**
   * The last parse without syntax errors: the base of the next incremental parse. It is
   * never edited itself (each re-parse starts from a copy), so it stays the parse of
   * `treeText`; after versions with errors it is used only if the text comes back to it.
   */
  tree?: Tree;
  /** Whether versions with syntax errors came after `tree` (see `parse`). */
  baseBehindErrors?: boolean;
  /** The text of the last version without syntax errors. */
  cleanText?: string;
  /**
   * The text `tree` describes, and the edits since as one span, given to `tree.edit` just
   * before the next re-parse from it (window re-parses leave the tree behind the text).
   */
  treeText?: string;
  treeSpan?: TextSpan;
  /** The current text. */
  text: string;
  /**
   * The last version's lowered root and the span the edits since cover. Unless
   * `unverified` is set, it was lowered from `tree`; otherwise it was lowered chunk by chunk
   * (`chunks`), and `unverified` holds the nodes of its chunks with syntax errors (none when
   * it had none), or it was a window re-parse (see window-parse.ts), and `unverified` is empty.
   */
  lowered?: {
    root: SyntaxNode;
    span?: TextSpan;
    unverified?: NodeSet;
    chunks?: ChunkRecord[];
  };
}

/** Counters for tests and the benchmark. */
export interface IncrementalStats {
  /** Re-parses from a base tree whose result was kept. */
  incrementalParses: number;
  /** Re-parses whose result had syntax errors, replaced by a fresh parse. */
  fallbacks: number;
  freshParses: number;
  /** Versions lowered from a window re-parse of the statements around the edit. */
  windowParses: number;
  /** Versions whose text was the base tree's (no parse at all: typed and deleted since). */
  restoredBases: number;
  /** Re-parses not tried because the text's brackets do not pair up (a sure syntax error). */
  skippedReparses: number;
  /** Re-parses given up for time (the chunks decided the version instead). */
  timedOutReparses: number;
  /** Versions lowered chunk by chunk from their changed chunks, without a whole-file parse (chunked.ts). */
  chunkedVersions: number;
  liveTrees: number;
  /** Trees no version needs any more, waiting to be deleted (see `DocumentTrees.discard`). */
  discardedTrees: number;
}

/** Parses of every DocumentTrees in this process, for the benchmark (an in-process server has no other window on them). */
export const processParseCounts = { incremental: 0, fallbacks: 0, fresh: 0, windows: 0, chunked: 0 };

/**
 * Whether the edit since the last version of `entry` changed a bracket or a quote and left
 * `text` with a bracket that does not pair up (a sure syntax error); `unpaired` scans `text`.
 */
function editBreaksBrackets(entry: DocumentTree, text: string, unpaired: () => boolean): boolean {
  const last = entry.lowered;
  if (!last?.span) return false;
  return mayChangeBrackets(last.root.source.text, text, last.span) && unpaired();
}

/**
 * How long a re-parse from the base tree may run before it is given up for the chunks
 * (chunked.ts). A keystroke's re-parse takes 1-5 ms on 5,000 lines; one that makes an error
 * tree-sitter recovers from late can take longer than a fresh parse (`c[]rop_pct=1.0` inside
 * a model zoo's table: 115 ms, reported as an error only at the end of the text).
 */
let reparseBudgetMs = 10;

/** Sets the re-parse budget (tests only: at 0 every re-parse is given up, and the chunks must still give what a fresh analysis does). */
export function setReparseBudget(ms: number): void {
  reparseBudgetMs = ms;
}

/**
 * A progress callback for a re-parse: it stops the parse (parse returns null) once it has a
 * syntax error, or once it has run {@link reparseBudgetMs}; `timedOut` says which.
 */
function reparseLimits(): { callback: (state: ParseState) => boolean; timedOut: () => boolean } {
  const deadline = performance.now() + reparseBudgetMs;
  let late = false;
  return {
    callback: (state) => state.hasError || (late = performance.now() > deadline),
    timedOut: () => late,
  };
}

/** The `unverified` set of a version lowered with no syntax error but not from the base tree. */
const NO_NODES: ReadonlySet<SyntaxNode> = new Set();

/** The last error-free tree of each open document, kept in step with its edits. */
export class DocumentTrees {
  private readonly trees = new Map<string, DocumentTree>();
  private incrementalParses = 0;
  private freshParses = 0;
  private fallbacks = 0;
  private windowParses = 0;
  private restoredBases = 0;
  private chunkedVersions = 0;
  private skippedReparses = 0;
  private timedOutReparses = 0;
  /** Trees no version needs any more, deleted after this turn's work (see `discard`). */
  private readonly discarded: Tree[] = [];
  private deletionScheduled = false;

  constructor(private readonly parser: Parser) {}

  /**
   * Records edits, in order, of the document `key` whose text before them is `before`
   * (its tree gets them as one edit before its next re-parse). A document whose entry
   * describes another text loses its tree (the next parse is a fresh one).
   */
  edit(key: string, before: string, edits: readonly TextEdit[]): void {
    const entry = this.trees.get(key);
    if (!entry) return;
    if (entry.text !== before) {
      this.forget(key);
      return;
    }
    let text = before;
    for (const change of edits)
      text = text.slice(0, change.start) + change.newText + text.slice(change.oldEnd);
    // NOTE: several edits of one tree before a re-parse sometimes gave a tree other than a
    // fresh parse's (2 in 6,000 random three-change batches, none in 6,000 single changes),
    // so a batch, and the versions a window re-parse handled, become one spanning edit.
    const change = edits.length === 1 ? edits[0] : spanningEdit(before, text);
    if (change && entry.tree) entry.treeSpan = composeSpans(entry.treeSpan, change);
    if (change && entry.lowered) entry.lowered.span = composeSpans(entry.lowered.span, change);
    entry.text = text;
  }

  /**
   * Parses `text` for `key` and lowers it. After an error-free version, a window of the
   * statements around the edit is re-parsed alone when one applies (see window-parse.ts).
   * Otherwise, when the document has a base tree (its last error-free tree) and the edits
   * since, tree-sitter re-parses from it, edited; a result without syntax errors becomes
   * the new base and the old one is deleted.
   * A text with syntax errors is lowered chunk by chunk (chunked.ts), as parseSource lowers
   * it: when the re-parse finds an error or runs past its budget (see reparseLimits), the
   * brackets do not pair up, a window has an error, or the last version had errors, only the
   * chunks that changed since the last version are parsed, each alone, and the others move
   * over. When they all parse clean,
   * so does the text, and that is its lowering too (no base tree until a whole parse is
   * needed), unless the re-parse or the brackets said there was an error: then, as when the
   * last version's chunks are unknown, the whole text is parsed afresh. A version whose text
   * is the last error-free version's again (a character typed and deleted) is re-parsed
   * from the base as usual. The lowering reuses the previous version's unchanged subtrees
   * (see lower-reuse.ts).
   */
  parse(key: string, text: string): ParsedSource {
    this.deleteDiscarded();
    const entry = this.trees.get(key);
    const current = entry && entry.text === text ? entry : undefined;
    // NOTE: an edit that leaves brackets unpaired makes a sure syntax error (see
    // bracket-balance.ts): no window is tried, whose parse (4-6 ms on a 5,658-line training
    // script) would only find the error.
    // (The scan of the whole text runs once, and only when an edit changed a bracket or a quote.)
    let unpairedValue: boolean | undefined;
    const unpaired = () => (unpairedValue ??= hasUnpairedBracket(text));
    const bracketsBroken = !!current && editBreaksBrackets(current, text, unpaired);
    const windowed = current && !bracketsBroken ? this.parseWindow(current, text) : undefined;
    if (windowed?.lowered) return { ...windowed.lowered, hasError: false };
    // NOTE: when the window had a syntax error, so has the text, almost surely: a re-parse,
    // whose result would be thrown away, is skipped (it cost as much as a fresh parse when
    // the base tree was behind by the edits of many window versions).
    let base = windowed?.syntaxError ? undefined : current?.tree;
    // NOTE: the span composed from every edit since the last re-parse covers each place
    // typed at in between (window re-parses leave the tree behind); narrowed to where the
    // texts still differ, the re-parse is as small as the last edit alone would make it.
    const span = current?.treeSpan && narrowSpan(current.treeText!, text, current.treeSpan);
    let tree: Tree | null = null;
    if (current?.tree && current.baseBehindErrors && text !== current.cleanText) {
      // Typing on through an unclosed bracket keeps the errors, and each re-parse from the
      // base would be thrown away (up to 30 ms on 5,000 lines); when the text parses clean
      // again, a re-parse from it, behind by every edit since, costs about what a fresh
      // parse costs (docs/performance-log.md, typing a statement). So the base goes, unless the
      // text is the last error-free version's again (a `#` typed, then deleted), which is
      // known to parse without errors.
      this.discard(current.tree);
      current.tree = current.treeText = current.treeSpan = undefined;
      current.baseBehindErrors = false;
      base = undefined;
    }
    let changed: readonly TextRange[] = [];
    /** Whether the text is known to have a syntax error (its brackets, or a re-parse, say so). */
    let sureError = bracketsBroken;
    /** Whether the re-parse was given up for time (see {@link reparseBudgetMs}). */
    let timedOut = false;
    const unchanged = !span || (span.start === span.oldEnd && span.start === span.newEnd);
    if (
      base &&
      !unchanged &&
      fault !== 'keep-errors' &&
      (bracketsBroken || (mayChangeBrackets(current!.treeText!, text, span!) && unpaired()))
    ) {
      // A sure syntax error: the re-parse would be thrown away, so none is tried.
      base = undefined;
      sureError = true;
      this.skippedReparses++;
    }
    if (base && (unchanged || (fault === 'restore-stale-base' && current?.baseBehindErrors))) {
      // The text is the base's: the base is its tree.
      tree = base.copy();
      base = undefined;
      this.restoredBases++;
    }
    if (base) {
      // NOTE: a copy is edited and re-parsed from, so the base stays the parse of its text
      // when the result is thrown away (a copy shares every subtree; the edit copies the
      // few it changes).
      const old = base.copy();
      if (span && fault !== 'skip-tree-edit') old.edit(treeEdit(current!.treeText!, text, span));
      // NOTE: tree-sitter recovers from syntax errors differently when it re-parses: from
      // a base with errors, 30 of 12,000 random edits gave another tree than a fresh parse;
      // from an error-free base, it still differed when the new text had errors. Only an
      // error-free result of a re-parse is kept, which matched a fresh parse every time. So
      // the re-parse stops at its first syntax error (all of tree-sitter's parse versions in
      // error), which it reports through the progress callback: the rest of it (up to 19 ms
      // inside a long dictionary) would be thrown away.
      const keepErrors = fault === 'keep-errors';
      const limits = reparseLimits();
      tree = this.parser.parse(text, old, {
        ...wholeTextOptions(text),
        ...(keepErrors ? {} : { progressCallback: limits.callback }),
      });
      if (!tree) this.parser.reset();
      if (tree && !tree.rootNode.hasError) changed = old.getChangedRanges(tree);
      old.delete();
      if (!tree && limits.timedOut()) {
        // Given up for time: whether the text has an error is not known; the chunks decide.
        timedOut = true;
        this.timedOutReparses++;
      } else if (!tree || (tree.rootNode.hasError && !keepErrors)) {
        if (tree) this.discard(tree);
        tree = null;
        sureError = true;
        this.fallbacks++;
        processParseCounts.fallbacks++;
      } else {
        this.incrementalParses++;
        processParseCounts.incremental++;
      }
    }
    const reparsed = tree !== null && base !== undefined;
    // NOTE: only where errors are likely: after a version with errors, or when a window or
    // the brackets or a re-parse found one. An error-free version after an error-free one is
    // parsed whole, so the document has a base tree to re-parse from again.
    const afterErrors = !!current?.baseBehindErrors || !!current?.lowered?.unverified?.size;
    if (
      !tree &&
      current &&
      fault !== 'keep-errors' &&
      (sureError || afterErrors || timedOut || windowed?.syntaxError)
    ) {
      // A text with syntax errors is lowered chunk by chunk (chunked.ts); when a chunk that
      // changed has one, so has the text, and the chunks that did not change come from the
      // last version instead of a fresh parse of the whole file.
      const chunked = this.parseChunks(current, text, sureError);
      if (chunked) return chunked;
    }
    if (!tree) {
      tree = this.parser.parse(text, null, wholeTextOptions(text));
      this.freshParses++;
      processParseCounts.fresh++;
    }
    if (!tree) throw new Error('tree-sitter returned no tree');
    let kept = false;
    try {
      const hasError = tree.rootNode.hasError;
      const previous = current?.lowered;
      const span = previous?.span ?? { start: text.length, oldEnd: text.length, newEnd: text.length };
      if (hasError && fault !== 'keep-errors') {
        // A version with errors, parsed afresh: lowered chunk by chunk as every text with
        // errors is (parseSource does the same), reusing the last version's unchanged chunks.
        const plan = planChunks(this.parser, text, current && this.previousChunks(current));
        plan.hasError = true;
        return this.keepChunked(key, entry, current, text, plan);
      }
      let reusable: PreviousLowering | undefined;
      if (previous && !hasError) {
        // When this tree is a re-parse of the one `previous` was lowered from, tree-sitter's
        // changed ranges say what may differ; otherwise (after a version with errors or a
        // window re-parse, or when the re-parse was skipped) subtrees are matched by text.
        reusable =
          reparsed && !previous.unverified
            ? { root: previous.root, span, changed }
            : { root: previous.root, span, changed: [], unverified: previous.unverified ?? NO_NODES };
      }
      const lowered = reusable ? lowerReusing(tree, text, reusable) : lowerTree(tree, text);
      if (entry) this.forget(key);
      this.trees.set(key, {
        tree,
        treeText: text,
        text,
        lowered: hasError ? undefined : { root: lowered.root },
        cleanText: hasError ? undefined : text,
      });
      kept = true;
      return { ...lowered, hasError };
    } finally {
      if (!kept) this.discard(tree);
    }
  }

  /**
   * The lowering of `text` chunk by chunk (chunked.ts), the chunks whose text did not change
   * since `entry`'s last version taken from it: a text with a syntax error in a chunk has
   * one; a text whose chunks all parse clean parses clean whole, with the same nodes (each
   * chunk of an error-free text parses alone as in the whole file). Undefined when the
   * last version's chunks are unknown, or when none has an error but `sureError` says the
   * text has one (the whole parse decides).
   */
  private parseChunks(entry: DocumentTree, text: string, sureError: boolean): ParsedSource | undefined {
    const previous = this.previousChunks(entry);
    if (!previous) return undefined;
    const plan = planChunks(this.parser, text, previous);
    if (!plan.hasError && sureError) return undefined;
    this.chunkedVersions++;
    processParseCounts.chunked++;
    return this.keepChunked(undefined, entry, entry, text, plan);
  }

  /** The last version's chunks and the edit since, when they are known. */
  private previousChunks(entry: DocumentTree): PreviousChunks | undefined {
    const previous = entry.lowered;
    if (!previous) return undefined;
    const chunks =
      previous.chunks ?? (previous.unverified?.size ? undefined : chunksOfWholeLowering(previous.root));
    if (!chunks) return undefined;
    const length = previous.root.source.text.length;
    const span = previous.span ?? { start: length, oldEnd: length, newEnd: length };
    return { chunks, root: previous.root, span, unverified: previous.unverified ?? NO_NODES };
  }

  /** Puts the planned chunks together and keeps them as the document's last lowering. */
  private keepChunked(
    key: string | undefined,
    entry: DocumentTree | undefined,
    current: DocumentTree | undefined,
    text: string,
    plan: ChunkPlan,
  ): ParsedSource {
    const chunked = assembleChunks(plan, current?.lowered?.root);
    const { hasError } = plan;
    // NOTE: an error-free text lowered by chunks is what a whole parse lowers: windows and
    // reuse by changed ranges may start from it (no unverified nodes).
    const lowered = {
      root: chunked.lowered.root,
      unverified: hasError ? chunked.unverified : NO_NODES,
      chunks: chunked.chunks,
    };
    if (current) {
      current.lowered = lowered;
      if (!hasError) {
        current.cleanText = text;
        current.baseBehindErrors = false;
      } else if (current.tree) current.baseBehindErrors = true;
    } else if (key !== undefined) {
      if (entry) this.forget(key);
      this.trees.set(key, { text, lowered });
    }
    return { ...chunked.lowered, hasError };
  }

  /**
   * The outcome of a window re-parse of the statements around the edit, when the last
   * version had no syntax error (see window-parse.ts); its lowering becomes the entry's.
   */
  private parseWindow(entry: DocumentTree, text: string): WindowOutcome | undefined {
    const previous = entry.lowered;
    // NOTE: after a version with syntax errors its lowering may be shaped by the error
    // recovery away from the errors too (tried: windows holding every error spot gave
    // other trees than fresh parses within 428-2,951 random edits), so no window is tried.
    if (!previous?.span || previous.unverified?.size) return undefined;
    const outcome = lowerWindow(this.parser, text, previous.root, previous.span);
    if (!outcome.lowered) return outcome;
    entry.lowered = { root: outcome.lowered.root, unverified: NO_NODES };
    entry.cleanText = text;
    this.windowParses++;
    processParseCounts.windows++;
    return outcome;
  }

  /** Deletes the tree of `key` (closed document, or replaced by a new version's). */
  forget(key: string): void {
    const tree = this.trees.get(key)?.tree;
    if (tree) this.discard(tree);
    this.trees.delete(key);
  }

  /** Deletes every tree. */
  dispose(): void {
    for (const key of [...this.trees.keys()]) this.forget(key);
    this.deleteDiscarded();
  }

  /**
   * Deletes `tree` once this turn's work is done (in a server, after the diagnostics are
   * sent: freeing a 5,000-line tree takes about 1 ms), or at the next parse, whichever
   * comes first; so at most one version's trees wait.
   */
  private discard(tree: Tree): void {
    this.discarded.push(tree);
    if (this.deletionScheduled) return;
    this.deletionScheduled = true;
    setImmediate(() => {
      this.deletionScheduled = false;
      this.deleteDiscarded();
    });
  }

  private deleteDiscarded(): void {
    for (const tree of this.discarded.splice(0)) tree.delete();
  }

  get stats(): IncrementalStats {
    return {
      incrementalParses: this.incrementalParses,
      fallbacks: this.fallbacks,
      freshParses: this.freshParses,
      windowParses: this.windowParses,
      restoredBases: this.restoredBases,
      skippedReparses: this.skippedReparses,
      timedOutReparses: this.timedOutReparses,
      chunkedVersions: this.chunkedVersions,
      liveTrees: [...this.trees.values()].filter((entry) => entry.tree).length,
      discardedTrees: this.discarded.length,
    };
  }
}

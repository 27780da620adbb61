// Incremental re-parsing of open documents: keeps each document's last wasm tree, turns
// every content change into a tree-sitter edit of it, and re-parses with it as the old
// tree so tree-sitter reuses the subtrees the edits did not touch. Every replaced tree is
// deleted (trees live in the wasm heap and leak otherwise).
import type { Edit, Parser, Point, Tree } from 'web-tree-sitter';
import { lowerTree, type SyntaxNode } from './syntax';
import type { ParsedSource } from './parser';
import {
  errorSpots,
  lowerErrorTreeReusing,
  lowerReusing,
  setLoweringReuseFault,
  type PreviousLowering,
  type TextSpan,
} from './lower-reuse';

/**
 * One applied change in UTF-16 offsets of the text before it: `[start, oldEnd)` was
 * replaced by `newText`. web-tree-sitter's JS API counts indexes and point columns in
 * UTF-16 code units (its C glue doubles them into the UTF-16LE byte offsets tree-sitter
 * uses), so these offsets go to `tree.edit` as they are.
 */
export interface TextEdit {
  start: number;
  oldEnd: number;
  newText: string;
}

/** Test-only faults, to prove the equivalence test catches a broken reuse. */
export type IncrementalFault =
  'none' | 'skip-tree-edit' | 'keep-errors' | 'stale-offsets' | 'ignore-errors' | 'reuse-unverified';
let fault: IncrementalFault = 'none';

/** Sets a deliberate fault in the reuse (tests only). */
export function setIncrementalFault(next: IncrementalFault): void {
  fault = next;
  setLoweringReuseFault(
    next === 'stale-offsets' || next === 'ignore-errors' || next === 'reuse-unverified' ? next : 'none',
  );
}

interface DocumentTree {
  /**
   * The last parse without syntax errors, edited in step with the text: the base of the
   * next incremental parse (none while the document has had errors since it was opened).
   */
  tree?: Tree;
  /** The text `tree` describes once its pending edits are applied. */
  text: string;
  /**
   * The last version's lowered root and the span the edits since cover. Unless
   * `unverified` is set, it was lowered from `tree` (before its pending edits); otherwise
   * that version had syntax errors and was parsed afresh, and `unverified` holds the nodes
   * lowered from that tree (the others were reused, error-free).
   */
  lowered?: { root: SyntaxNode; span?: TextSpan; unverified?: ReadonlySet<SyntaxNode> };
}

/** Counters for tests and the benchmark. */
export interface IncrementalStats {
  /** Re-parses from a base tree whose result was kept. */
  incrementalParses: number;
  /** Re-parses whose result had syntax errors, replaced by a fresh parse. */
  fallbacks: number;
  freshParses: number;
  liveTrees: number;
}

/** Parses of every DocumentTrees in this process, for the benchmark (an in-process server has no other window on them). */
export const processParseCounts = { incremental: 0, fallbacks: 0, fresh: 0 };

/** The last error-free tree of each open document, kept in step with its edits. */
export class DocumentTrees {
  private readonly trees = new Map<string, DocumentTree>();
  private incrementalParses = 0;
  private freshParses = 0;
  private fallbacks = 0;

  constructor(private readonly parser: Parser) {}

  /**
   * Applies edits, in order, to the tree of `key` whose text before them is `before`. A
   * document with no tree, or whose tree describes another text, loses its tree (the next
   * parse is a fresh one).
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
    // so a batch becomes the one edit that spans all its changes.
    const change = edits.length === 1 ? edits[0] : spanningEdit(before, text);
    if (change && entry.tree && fault !== 'skip-tree-edit') {
      entry.tree.edit(treeEdit(before, text, change, change.start + change.newText.length));
    }
    if (change && entry.lowered) entry.lowered.span = composeSpans(entry.lowered.span, change);
    entry.text = text;
  }

  /**
   * Parses `text` for `key` and lowers it. When the document has a base tree (its last
   * error-free tree, edited in step) that describes exactly this text, tree-sitter re-parses
   * from it; a result without syntax errors becomes the new base and the old one is deleted.
   * A result with errors is thrown away for a fresh parse (whose tree is not kept either),
   * and the base stays: the next version that parses clean re-parses from it. Either way the
   * lowering reuses the previous version's unchanged subtrees (see lower-reuse.ts).
   */
  parse(key: string, text: string): ParsedSource {
    const entry = this.trees.get(key);
    const current = entry && entry.text === text ? entry : undefined;
    const base = current?.tree;
    let tree: Tree | null = null;
    let changed: readonly { startIndex: number; endIndex: number }[] = [];
    if (base) {
      tree = this.parser.parse(text, base);
      if (tree && !tree.rootNode.hasError) changed = base.getChangedRanges(tree);
      // NOTE: tree-sitter recovers from syntax errors differently when it re-parses: from
      // a base with errors, 30 of 12,000 random edits gave another tree than a fresh parse;
      // from an error-free base, it still differed when the new text had errors. Only an
      // error-free result of a re-parse is kept, which matched a fresh parse every time.
      if (tree?.rootNode.hasError && fault !== 'keep-errors') {
        tree.delete();
        tree = null;
        this.fallbacks++;
        processParseCounts.fallbacks++;
      } else {
        this.incrementalParses++;
        processParseCounts.incremental++;
      }
    }
    const reparsed = tree !== null;
    if (!tree) {
      tree = this.parser.parse(text);
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
        // A version with errors, parsed afresh: its lowering reuses the previous version's
        // subtrees where it has the same error-free nodes, and is what the next version reuses.
        const spots = errorSpots(tree);
        const verifiedFrom = previous && {
          root: previous.root,
          span,
          changed: spots,
          unverified: previous.unverified ?? new Set<SyntaxNode>(),
        };
        const { lowered, unverified } = lowerErrorTreeReusing(tree, text, verifiedFrom, spots);
        if (current) current.lowered = { root: lowered.root, unverified };
        else {
          if (entry) this.forget(key);
          this.trees.set(key, { text, lowered: { root: lowered.root, unverified } });
        }
        return { ...lowered, hasError };
      }
      let reusable: PreviousLowering | undefined;
      if (previous && !hasError) {
        // After a version with errors, subtrees are matched by text; otherwise this tree is
        // a re-parse of the one `previous` was lowered from, and tree-sitter's changed
        // ranges say what may differ.
        if (previous.unverified)
          reusable = { root: previous.root, span, changed: [], unverified: previous.unverified };
        else if (reparsed) reusable = { root: previous.root, span, changed };
      }
      const lowered = reusable ? lowerReusing(tree, text, reusable) : lowerTree(tree, text);
      if (entry) this.forget(key);
      this.trees.set(key, { tree, text, lowered: hasError ? undefined : { root: lowered.root } });
      kept = true;
      return { ...lowered, hasError };
    } finally {
      if (!kept) tree.delete();
    }
  }

  /** Deletes the tree of `key` (closed document). */
  forget(key: string): void {
    this.trees.get(key)?.tree?.delete();
    this.trees.delete(key);
  }

  /** Deletes every tree. */
  dispose(): void {
    for (const key of [...this.trees.keys()]) this.forget(key);
  }

  get stats(): IncrementalStats {
    return {
      incrementalParses: this.incrementalParses,
      fallbacks: this.fallbacks,
      freshParses: this.freshParses,
      liveTrees: [...this.trees.values()].filter((entry) => entry.tree).length,
    };
  }
}

/** The single edit turning `before` into `after`: what lies between their common prefix and suffix. */
function spanningEdit(before: string, after: string): TextEdit | undefined {
  if (before === after) return undefined;
  const shorter = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < shorter && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < shorter - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  )
    suffix++;
  return {
    start: prefix,
    oldEnd: before.length - suffix,
    newText: after.slice(prefix, after.length - suffix),
  };
}

/**
 * The span covering `earlier` (in offsets of the lowered text) followed by `change` (in
 * offsets of the text `earlier` produced), in offsets of the lowered text and the final one.
 */
function composeSpans(earlier: TextSpan | undefined, change: TextEdit): TextSpan {
  const next = { start: change.start, oldEnd: change.oldEnd, newEnd: change.start + change.newText.length };
  if (!earlier) return next;
  // Offsets of the middle text from max(earlier.newEnd, next.oldEnd) on are untouched by both.
  const end = Math.max(earlier.newEnd, next.oldEnd);
  return {
    start: Math.min(earlier.start, next.start),
    oldEnd: end - (earlier.newEnd - earlier.oldEnd),
    newEnd: end + (next.newEnd - next.oldEnd),
  };
}

/** The tree-sitter edit for `change` of `before` (giving `after`). */
function treeEdit(before: string, after: string, change: TextEdit, newEnd: number): Edit {
  const startPosition = pointAt(before, change.start);
  return {
    startIndex: change.start,
    oldEndIndex: change.oldEnd,
    newEndIndex: newEnd,
    startPosition,
    oldEndPosition: pointAfter(before, change.start, change.oldEnd, startPosition),
    newEndPosition: pointAfter(after, change.start, newEnd, startPosition),
  };
}

/**
 * The tree-sitter point of a UTF-16 offset: tree-sitter counts rows at `\n` only (a lone
 * `\r` is no row break to it, unlike LSP), and web-tree-sitter's columns are UTF-16 units.
 */
export function pointAt(text: string, offset: number): Point {
  let row = 0;
  let lineStart = 0;
  let at = text.indexOf('\n');
  while (at !== -1 && at < offset) {
    row++;
    lineStart = at + 1;
    at = text.indexOf('\n', lineStart);
  }
  return { row, column: offset - lineStart };
}

/** The point of `offset` given the point of an earlier `from` in the same text. */
function pointAfter(text: string, from: number, offset: number, fromPoint: Point): Point {
  let row = fromPoint.row;
  let lineStart = from - fromPoint.column;
  let at = text.indexOf('\n', from);
  while (at !== -1 && at < offset) {
    row++;
    lineStart = at + 1;
    at = text.indexOf('\n', lineStart);
  }
  return { row, column: offset - lineStart };
}

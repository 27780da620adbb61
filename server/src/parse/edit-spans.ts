// Edits as spans of text: one applied change, the single span two texts differ by, a span
// narrowed to where texts still differ, two spans composed into one, and the tree-sitter
// edit of a span. DocumentTrees keeps each document's edits since its last parse as one span.
import type { Edit } from 'web-tree-sitter';
import { pointAfter, pointAt } from './points';
import type { TextSpan } from './lower-reuse';

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

/** The single edit turning `before` into `after`: what lies between their common prefix and suffix. */
export function spanningEdit(before: string, after: string): TextEdit | undefined {
  if (before === after) return undefined;
  const whole = { start: 0, oldEnd: before.length, newEnd: after.length };
  const { start, oldEnd, newEnd } = narrowSpan(before, after, whole);
  return { start, oldEnd, newText: after.slice(start, newEnd) };
}

/**
 * `span` (an edit turning `before` into `after`: the texts agree outside it) narrowed to
 * the first and last code units that differ (empty when the texts are equal).
 */
export function narrowSpan(before: string, after: string, span: TextSpan): TextSpan {
  let { start, oldEnd, newEnd } = span;
  while (start < oldEnd && start < newEnd && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  while (oldEnd > start && newEnd > start && before.charCodeAt(oldEnd - 1) === after.charCodeAt(newEnd - 1)) {
    oldEnd--;
    newEnd--;
  }
  return { start, oldEnd, newEnd };
}

/**
 * The span covering `earlier` (in offsets of the lowered text) followed by `change` (in
 * offsets of the text `earlier` produced), in offsets of the lowered text and the final one.
 */
export function composeSpans(earlier: TextSpan | undefined, change: TextEdit): TextSpan {
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

/** The tree-sitter edit for `span` of `before` (giving `after`). */
export function treeEdit(before: string, after: string, span: TextSpan): Edit {
  const startPosition = pointAt(before, span.start);
  return {
    startIndex: span.start,
    oldEndIndex: span.oldEnd,
    newEndIndex: span.newEnd,
    startPosition,
    oldEndPosition: pointAfter(before, span.start, span.oldEnd, startPosition),
    newEndPosition: pointAfter(after, span.start, span.newEnd, startPosition),
  };
}

/**
 * The parts of the previous text (chunks, groups of class members) that `span` left
 * unchanged, by where they start in the new text (of `length` code units): those that end
 * at or before the edit, and those that start at or after its end.
 */
export function unchangedParts<Part extends { start: number; end: number }>(
  parts: readonly Part[],
  span: TextSpan,
  length: number,
): Map<number, Part> {
  const delta = span.newEnd - span.oldEnd;
  const found = new Map<number, Part>();
  for (const part of parts) {
    if (part.end <= span.start) found.set(part.start, part);
    else if (part.start >= span.oldEnd && part.end + delta <= length) found.set(part.start + delta, part);
  }
  return found;
}

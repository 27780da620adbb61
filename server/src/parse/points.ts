// Tree-sitter points (row and column) of UTF-16 offsets, for tree edits and included ranges.
import type { Point, Range } from 'web-tree-sitter';
import type { SourceText } from './syntax';

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
export function pointAfter(text: string, from: number, offset: number, fromPoint: Point): Point {
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

/**
 * The included range `[start, end)` of `source`'s text, for a part that starts at a line
 * start after `\n` (a chunk or a group of class members): its column, 0, is the same in
 * LSP's lines, which `SourceText` counts, and in tree-sitter's, which count `\n` only.
 */
export function lineRange(source: SourceText, start: number, end: number): Range {
  const from = source.positionAt(start);
  const to = source.positionAt(end);
  return {
    startIndex: start,
    endIndex: end,
    startPosition: { row: from.line, column: from.column },
    endPosition: { row: to.line, column: to.column },
  };
}

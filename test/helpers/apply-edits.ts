// Test helper: applies a quick fix's text edits (zero-based line/UTF-16 column ranges) to a
// text, last edit first so earlier offsets stay valid.
import type { TextEdit } from '../../server/src/rules/types';

/** The text after applying `edits`. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (p: { line: number; column: number }) => lineStarts[p.line] + p.column;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  return sorted.reduce(
    (out, e) => out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end)),
    text,
  );
}

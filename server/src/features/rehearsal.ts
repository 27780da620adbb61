// A warm-up of the keystroke path, once per server process. Right after the first
// diagnostics of a large document are sent, the server types a few keystrokes into a private
// copy of it (letters into words, a `#` at a line start, each deleted again) and analyses
// each version as it would the user's. Nothing is published and the copy's tree and memo
// are dropped. It runs the incremental stages (window re-parse, reused lowering, carried
// kind analyses) that opening a file does not, so V8 has compiled them before the user's
// first keystrokes (docs/performance-log.md, "The first keystrokes after opening").
import type { TextEdit } from '../parse/edit-spans';

/** Documents shorter than this are analysed fast enough cold: no rehearsal for them. */
const MIN_LINES = 1_000;
/** Nor for longer texts than this (about 10,000 lines), whose copy alone would take long to analyse. */
const MAX_CHARS = 512 * 1024;
/** The rehearsal stops after the version that passes this much time. */
export const REHEARSAL_BUDGET_MS = 300;

/** Whether a document of `lineCount` lines and `length` characters, using torch, is worth a rehearsal. */
export function worthRehearsing(lineCount: number, length: number, usesTorch: boolean): boolean {
  return usesTorch && lineCount >= MIN_LINES && length <= MAX_CHARS;
}

/** Lines of the copy typed into: spread over the document. */
const SITES = 4;
const WORD = /[A-Za-z_]{3,}/;

/**
 * The keystrokes of a rehearsal on `text`, each in offsets of the text before it: a letter
 * typed into the first word of lines spread over the document and deleted, then a `#` typed
 * at the start of the middle one and deleted.
 */
export function rehearsalEdits(text: string): TextEdit[] {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const edits: TextEdit[] = [];
  const lineAt = (line: number) =>
    text.slice(lineStarts[line], line + 1 < lineStarts.length ? lineStarts[line + 1] : text.length);
  for (let site = 1; site <= SITES; site++) {
    // The first line with a word from the site on (blank lines and brackets have none).
    let line = Math.floor((site * lineStarts.length) / (SITES + 1));
    while (line < lineStarts.length - 1 && !WORD.test(lineAt(line))) line++;
    const word = WORD.exec(lineAt(line));
    if (!word) continue;
    const at = lineStarts[line] + word.index + 1;
    edits.push({ start: at, oldEnd: at, newText: 'q' }, { start: at, oldEnd: at + 1, newText: '' });
  }
  const middle = lineStarts[Math.floor(lineStarts.length / 2)];
  edits.push(
    { start: middle, oldEnd: middle, newText: '#' },
    { start: middle, oldEnd: middle + 1, newText: '' },
  );
  return edits;
}

/**
 * Applies `edits` to `text` one at a time, calling `analyse` on the text and on each version
 * (with the edit that made it), until the versions are done or `budgetMs` has passed.
 * Returns how many versions were analysed.
 */
export function rehearse(
  text: string,
  edits: readonly TextEdit[],
  analyse: (text: string, edit?: { before: string; edit: TextEdit }) => void,
  budgetMs = REHEARSAL_BUDGET_MS,
): number {
  const started = performance.now();
  analyse(text);
  let versions = 1;
  for (const edit of edits) {
    if (performance.now() - started > budgetMs) break;
    const before = text;
    text = text.slice(0, edit.start) + edit.newText + text.slice(edit.oldEnd);
    analyse(text, { before, edit });
    versions++;
  }
  return versions;
}

// A warm-up of the keystroke path, once per server process. Just before the first
// diagnostics of a large document are sent, the server types a few keystrokes into a private
// copy of it (letters into words, letters before a line's indentation, a `#` at a line start,
// each deleted again) and analyses each version as it would the user's. Nothing is published
// and the copy's tree and memo are dropped. It runs the incremental stages (window re-parse,
// reused lowering, carried kind analyses, the chunk-by-chunk parse of a text with a syntax
// error) that opening a file does not, so V8 has compiled them before the user's first
// keystrokes (docs/performance-log.md, "The first keystrokes after opening", and "The
// warm-up types syntax errors too").
import type { TextEdit } from '../parse/edit-spans';

/** Documents shorter than this are analysed fast enough cold: no rehearsal for them. */
const MIN_LINES = 1_000;
/** Nor for longer texts than this (about 10,000 lines), whose copy alone would take long to analyse. */
const MAX_CHARS = 512 * 1024;
/** The rehearsal stops after the version that passes this much time (it delays the first diagnostics). */
export const REHEARSAL_BUDGET_MS = 700;

/** Whether a document of `lineCount` lines and `length` characters, using torch, is worth a rehearsal. */
export function worthRehearsing(lineCount: number, length: number, usesTorch: boolean): boolean {
  return usesTorch && lineCount >= MIN_LINES && length <= MAX_CHARS;
}

/** Lines of the copy a letter is typed into: spread over the document. */
const SITES = 4;
/**
 * Lines of code a letter is typed before: spread over the document. Each such version has a
 * syntax error; V8 compiles the chunk-by-chunk parse only after several (one was not enough).
 */
const ERROR_SITES = 5;
const WORD = /[A-Za-z_]{3,}/;
/** An indented line of code: a letter typed before its indentation is a syntax error. */
const INDENTED_CODE = /^[ \t]+[A-Za-z_]/;

/**
 * The keystrokes of a rehearsal on `text`, each in offsets of the text before it, each typed
 * and deleted again. The budget may stop the rehearsal early, so every kind comes before any
 * repeats, and the syntax errors, which need several runs, right after the first letter: a
 * letter typed into the first word of a line, letters typed before the indentation of lines
 * of code, a `#` at the start of the middle line, then letters into the first word of more
 * lines.
 */
export function rehearsalEdits(text: string): TextEdit[] {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineAt = (line: number) =>
    text.slice(lineStarts[line], line + 1 < lineStarts.length ? lineStarts[line + 1] : text.length);
  /** The first line from `k` / (`of` + 1) of the document on that `pattern` matches, if any. */
  const siteLine = (k: number, of: number, pattern: RegExp): number | undefined => {
    for (let line = Math.floor((k * lineStarts.length) / (of + 1)); line < lineStarts.length; line++)
      if (pattern.test(lineAt(line))) return line;
    return undefined;
  };
  /** `character` typed at `at`, then deleted. */
  const typed = (at: number, character: string): TextEdit[] => [
    { start: at, oldEnd: at, newText: character },
    { start: at, oldEnd: at + 1, newText: '' },
  ];
  const letters: TextEdit[][] = [];
  for (let site = 1; site <= SITES; site++) {
    const line = siteLine(site, SITES, WORD);
    if (line !== undefined) letters.push(typed(lineStarts[line] + WORD.exec(lineAt(line))!.index + 1, 'q'));
  }
  const errors: TextEdit[][] = [];
  for (let site = 1; site <= ERROR_SITES; site++) {
    const line = siteLine(site, ERROR_SITES, INDENTED_CODE);
    if (line !== undefined) errors.push(typed(lineStarts[line], 'q'));
  }
  const comment = typed(lineStarts[Math.floor(lineStarts.length / 2)], '#');
  return [...(letters[0] ?? []), ...errors.flat(), ...comment, ...letters.slice(1).flat()];
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

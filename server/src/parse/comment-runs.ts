// Long runs of comment lines, left out of tree-sitter's parse. tree-sitter-python's scanner,
// at each line break where an indent, a dedent or a newline may come, reads ahead over every
// comment and blank line that follows to find the next line with code; in a run of n comment
// lines that makes n look-aheads over the rest of the run, a cost in n² (a 276-line comment
// block took 34 of a 116 KB file's 46 ms to parse; tree-sitter/tree-sitter-python#245). The
// first and last comment lines of a run at one indentation decide what the scanner decides for
// all of them, so the lines between are left out of the parse's included ranges: the tree is
// the same but for those comment nodes (checked on every file of the development corpus and
// of Debian's torch and torchvision, docs/performance-log.md, "Long comment blocks").
// Suppression comments (`shardlens`, `noqa`) are never left out: they are read from the tree.
import type { Point, Range } from 'web-tree-sitter';
import { pointAfter, pointAt } from './points';
import { RecentTexts } from './recent-texts';

/** A run with fewer comment lines than this is parsed as it is (its look-aheads cost little). */
export const MIN_QUIET_RUN = 16;

/** Lines left out of the parse: `[start, end)` from a line start to the next line start, with tree-sitter's rows there. */
interface QuietSpan {
  start: number;
  end: number;
  startRow: number;
  endRow: number;
}

/**
 * What a comment line left out may not hold: the words of a suppression comment (read from the
 * tree, analysis/suppressions.ts), and what could end, continue or interpolate a string (the
 * line may be inside one: left out, its text is still the string's, as a parse shows).
 */
const MUST_STAY = /shardlens|noqa|["'\\{}]/i;

/** A text's spans, and the included ranges of a parse of all of it (made once, when it has spans). */
interface QuietText {
  spans: readonly QuietSpan[];
  whole?: Range[];
}

/** The last texts' spans: a version's text is parsed several times (chunks, groups, windows). */
const recent = new RecentTexts<QuietText>(2);

/** The lines of `text` left out of every parse of it (see the top of this file), in order. */
export function quietSpans(text: string): readonly QuietSpan[] {
  return quietText(text).spans;
}

function quietText(text: string): QuietText {
  return recent.get(text, () => ({ spans: scanQuietSpans(text) }));
}

/** A comment line: where it starts, where its `#` is, where the next line starts. */
interface CommentLine {
  start: number;
  hash: number;
  end: number;
}

/**
 * The runs of comment lines at one indentation (blank lines between them allowed), found from
 * one `#` to the next. No string or bracket is tracked: a comment line inside brackets is a
 * comment to tree-sitter too, and one inside a string holds nothing the string's parse reads.
 */
function scanQuietSpans(text: string): QuietSpan[] {
  const spans: QuietSpan[] = [];
  const rows = new RowCounter(text);
  let run: CommentLine[] = [];
  const closeRun = () => {
    if (run.length >= MIN_QUIET_RUN) addRunSpans(text, run, spans, rows);
    run = [];
  };
  for (let hash = text.indexOf('#'); hash !== -1;) {
    const start = text.lastIndexOf('\n', hash - 1) + 1;
    const newline = text.indexOf('\n', hash);
    const end = newline === -1 ? text.length : newline + 1;
    if (onlyIndentation(text, start, hash)) {
      const last = run[run.length - 1];
      if (last && !(onlyBlankLines(text, last.end, start) && sameIndentation(text, run[0], start, hash)))
        closeRun();
      run.push({ start, hash, end });
    }
    hash = text.indexOf('#', end);
  }
  closeRun();
  return spans;
}

/** Whether `[from, to)` holds spaces and tabs only. */
function onlyIndentation(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const code = text.charCodeAt(k);
    if (code !== SPACE && code !== TAB) return false;
  }
  return true;
}

/** Whether `[from, to)`, whole lines, holds blank lines only. */
function onlyBlankLines(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const code = text.charCodeAt(k);
    if (code !== SPACE && code !== TAB && code !== NEWLINE && code !== CR) return false;
  }
  return true;
}

/** Whether the comment line from `start` to its `#` at `hash` is indented as `first` is. */
function sameIndentation(text: string, first: CommentLine, start: number, hash: number): boolean {
  return hash - start === first.hash - first.start && text.startsWith(text.slice(start, hash), first.start);
}

const SPACE = 32;
const TAB = 9;
const NEWLINE = 10;
const CR = 13;

/** tree-sitter's rows (it counts `\n` only) of offsets asked for in increasing order. */
class RowCounter {
  private offset = 0;
  private point: Point = { row: 0, column: 0 };
  constructor(private readonly text: string) {}

  rowAt(offset: number): number {
    this.point = pointAfter(this.text, this.offset, offset, this.point);
    this.offset = offset;
    return this.point.row;
  }
}

/**
 * The spans of one run: the lines after its first comment line and before its last, around
 * the comment lines that must stay (see {@link MUST_STAY}).
 */
function addRunSpans(text: string, run: readonly CommentLine[], spans: QuietSpan[], rows: RowCounter): void {
  const add = (start: number, end: number) => {
    if (end > start) spans.push({ start, end, startRow: rows.rowAt(start), endRow: rows.rowAt(end) });
  };
  let from = run[0].end;
  for (let k = 1; k + 1 < run.length; k++) {
    const line = run[k];
    if (!MUST_STAY.test(text.slice(line.hash, line.end))) continue;
    add(from, line.start);
    from = line.end;
  }
  add(from, run[run.length - 1].start);
}

/**
 * The included ranges for a parse of `text` (`requested`, or the whole text): the same less
 * the {@link quietSpans}. Undefined when none of those lies in them: the parse goes as asked.
 */
export function quietRanges(text: string, requested?: readonly Range[]): Range[] | undefined {
  const quiet = quietText(text);
  if (quiet.spans.length === 0) return undefined;
  if (!requested) return (quiet.whole ??= rangesLeavingOut(quiet.spans, [wholeText(text)]));
  return rangesLeavingOut(quiet.spans, requested);
}

/** `wanted` less `spans`; undefined when no span lies in them. */
function rangesLeavingOut(spans: readonly QuietSpan[], wanted: readonly Range[]): Range[] | undefined {
  const ranges: Range[] = [];
  let leftOut = false;
  let k = 0;
  for (const range of wanted) {
    while (k < spans.length && spans[k].end <= range.startIndex) k++;
    let from = range.startIndex;
    let fromPoint = range.startPosition;
    for (let s = k; s < spans.length && spans[s].start < range.endIndex; s++) {
      const quiet = spans[s];
      leftOut = true;
      if (quiet.start > from)
        ranges.push(piece(from, fromPoint, quiet.start, { row: quiet.startRow, column: 0 }));
      if (quiet.end >= range.endIndex) {
        from = range.endIndex;
        break;
      }
      if (quiet.end > from) {
        from = quiet.end;
        fromPoint = { row: quiet.endRow, column: 0 };
      }
    }
    if (from < range.endIndex) ranges.push(piece(from, fromPoint, range.endIndex, range.endPosition));
  }
  if (!leftOut) return undefined;
  // NOTE: no ranges at all would make tree-sitter parse the whole text; an empty range parses nothing, as asked.
  return ranges.length > 0
    ? ranges
    : [piece(wanted[0].startIndex, wanted[0].startPosition, wanted[0].startIndex, wanted[0].startPosition)];
}

function piece(start: number, startPosition: Point, end: number, endPosition: Point): Range {
  return { startIndex: start, endIndex: end, startPosition, endPosition };
}

function wholeText(text: string): Range {
  const start = { row: 0, column: 0 };
  return {
    startIndex: 0,
    endIndex: text.length,
    startPosition: start,
    endPosition: pointAt(text, text.length),
  };
}

/** Parses of part of a text with lines left out (chunks, groups, windows), for the tests. */
export const quietRangeCounts = { partParses: 0 };

/** Test-only fault: the parses of part of a text leave nothing out (the whole-text parse still does). */
let partsParsedWhole = false;
export function setQuietRangeFault(on: boolean): void {
  partsParsedWhole = on;
}

/** The included ranges for a parse of `requested` in `text`: {@link quietRanges}, or `requested` when nothing is left out. */
export function includedRangesOf(text: string, requested: Range[]): Range[] {
  const ranges = partsParsedWhole ? undefined : quietRanges(text, requested);
  if (ranges) quietRangeCounts.partParses++;
  return ranges ?? requested;
}

/** The parse options for the whole of `text`: its included ranges when some lines are left out. */
export function wholeTextOptions(text: string): { includedRanges?: Range[] } {
  const includedRanges = quietRanges(text);
  return includedRanges ? { includedRanges } : {};
}

// A cheap test for one sure syntax error: brackets that do not pair up outside strings and
// comments. Python requires them to, so tree-sitter reports an error for such a text. The
// incremental parser uses it to skip a re-parse whose result it would throw away, after an
// edit that could have changed a bracket (`mayChangeBrackets`); a text it passes may still
// have other errors (the re-parse then finds them), and one with brackets that only pair up
// in a way this scan cannot see (code inside an f-string's braces is read as string) is
// merely parsed afresh.
import type { TextSpan } from './lower-reuse';

const PAREN_OPEN = 40;
const PAREN_CLOSE = 41;
const SQUARE_OPEN = 91;
const SQUARE_CLOSE = 93;
const CURLY_OPEN = 123;
const CURLY_CLOSE = 125;
const HASH = 35;
const NEWLINE = 10;
const BACKSLASH = 92;
const QUOTE = 39;
const DOUBLE_QUOTE = 34;

/** What {@link hasUnpairedBracket} stops at: a bracket, a quote or a comment's `#`. */
const BRACKET_MARK = /[()[\]{}'"#]/g;

/** Whether `text` has a bracket, outside strings and comments, that does not pair up. */
export function hasUnpairedBracket(text: string): boolean {
  const expected: number[] = [];
  const length = text.length;
  let at = 0;
  while (at < length) {
    // The next bracket, quote or `#` (a regular expression finds it faster than a loop over every code unit).
    BRACKET_MARK.lastIndex = at;
    const found = BRACKET_MARK.exec(text);
    if (!found) break;
    at = found.index;
    const code = text.charCodeAt(at);
    switch (code) {
      case HASH: {
        const end = text.indexOf('\n', at);
        if (end === -1) return expected.length > 0;
        at = end + 1;
        continue;
      }
      case QUOTE:
      case DOUBLE_QUOTE:
        at = afterString(text, at, code);
        continue;
      case PAREN_OPEN:
        expected.push(PAREN_CLOSE);
        break;
      case SQUARE_OPEN:
        expected.push(SQUARE_CLOSE);
        break;
      case CURLY_OPEN:
        expected.push(CURLY_CLOSE);
        break;
      case PAREN_CLOSE:
      case SQUARE_CLOSE:
      case CURLY_CLOSE:
        if (expected.pop() !== code) return true;
        break;
    }
    at++;
  }
  return expected.length > 0;
}

/** The offset after the string starting with the quote at `at` (a line's end ends an unfinished short string). */
function afterString(text: string, at: number, quote: number): number {
  const triple = text.charCodeAt(at + 1) === quote && text.charCodeAt(at + 2) === quote;
  let k = at + (triple ? 3 : 1);
  while (k < text.length) {
    const code = text.charCodeAt(k);
    if (code === BACKSLASH) k += 2;
    else if (
      code === quote &&
      (!triple || (text.charCodeAt(k + 1) === quote && text.charCodeAt(k + 2) === quote))
    )
      return k + (triple ? 3 : 1);
    else if (code === NEWLINE && !triple) return k;
    else k++;
  }
  return text.length;
}

/** Code units that can open, close or hide a bracket (strings, comments, line joins). */
const BRACKET_OR_QUOTE = /[()[\]{}'"#\\\n]/;

/** Whether the edit `span` (of `before`, giving `after`) changed any of {@link BRACKET_OR_QUOTE}. */
export function mayChangeBrackets(before: string, after: string, span: TextSpan): boolean {
  return (
    BRACKET_OR_QUOTE.test(before.slice(span.start, span.oldEnd)) ||
    BRACKET_OR_QUOTE.test(after.slice(span.start, span.newEnd))
  );
}

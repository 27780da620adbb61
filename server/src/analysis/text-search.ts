// Searches of a whole document text that run on every version of it. A regex whose match
// must contain a literal is tried only where that literal occurs (found with `indexOf`),
// instead of at every position of a large file.

/**
 * Whether the sticky regex `pattern` matches `text` at some occurrence of `literal`, its
 * match starting `back` characters before the occurrence. Every match of the pattern must
 * contain `literal` at that distance from its start, or this misses it.
 */
export function matchesAtLiteral(text: string, literal: string, pattern: RegExp, back = 0): boolean {
  for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
    if (at < back) continue;
    pattern.lastIndex = at - back;
    if (pattern.test(text)) return true;
  }
  return false;
}

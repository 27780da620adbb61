// Searches of a whole document text that run on every version of it. A regex whose match
// must start with a literal is tried only where that literal occurs (found with `indexOf`),
// instead of at every position of a large file.

/**
 * Whether the sticky regex `pattern` matches `text` at some occurrence of `literal`. Every
 * match of the pattern must start with `literal`, or this misses it.
 */
export function matchesAtLiteral(text: string, literal: string, pattern: RegExp): boolean {
  for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + 1)) {
    pattern.lastIndex = at;
    if (pattern.test(text)) return true;
  }
  return false;
}

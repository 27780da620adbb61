// Fixture markers for hover tests (pyright fourslash style): a comment line `#   ^name`
// marks the column of its `^` on the line above; markers() returns every marker's position.
import { readFileSync } from 'node:fs';

/** Zero-based positions of the `^name` markers of a fixture file. */
export function markers(path: string): Map<string, { line: number; character: number }> {
  const found = new Map<string, { line: number; character: number }>();
  readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .forEach((text, line) => {
      const match = /^\s*#(\s*)\^(\w+)/.exec(text);
      if (match) found.set(match[2], { line: line - 1, character: text.indexOf('^') });
    });
  return found;
}

// Checks (or, with SHARDLENS_UPDATE_DOCS=1, rewrites) a table that a test generates into a
// docs page between two marker lines, so the page always holds what the last run measured.
import { readFileSync, writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';

/** `generated` starts with `start` and ends with `end`; `what` names the table in the failure. */
export function checkGeneratedSection(
  docsPath: string,
  start: string,
  end: string,
  generated: string,
  what: string,
): void {
  const docs = readFileSync(docsPath, 'utf8');
  const from = docs.indexOf(start);
  const to = docs.indexOf(end);
  if (process.env.SHARDLENS_UPDATE_DOCS === '1') {
    const next =
      from >= 0 && to > from
        ? docs.slice(0, from) + generated + docs.slice(to + end.length)
        : `${docs.trimEnd()}\n\n${generated}\n`;
    writeFileSync(docsPath, next);
    return;
  }
  assert.ok(from >= 0 && to > from, `${docsPath} has no ${what} markers`);
  assert.equal(
    docs.slice(from, to + end.length),
    generated,
    `${what} in ${docsPath} is stale (SHARDLENS_UPDATE_DOCS=1 rewrites it)`,
  );
}

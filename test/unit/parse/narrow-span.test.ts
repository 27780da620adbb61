// narrowSpan: the edit a document's base tree is given before a re-parse, narrowed from the
// span of every edit since the last re-parse to where the texts still differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { narrowSpan } from '../../../server/src/parse/edit-spans';

/** Applies `span` of `before` with the text it has in `after`, as tree-sitter's edit would. */
function apply(
  before: string,
  after: string,
  span: { start: number; oldEnd: number; newEnd: number },
): string {
  return before.slice(0, span.start) + after.slice(span.start, span.newEnd) + before.slice(span.oldEnd);
}

test('an edit typed and deleted elsewhere drops out of the span', () => {
  // `q` typed into `first` and deleted (a window re-parse each time), then `!` typed at the end.
  const before = 'def first():\n    pass\n\nx = {"a": 1}\n';
  const after = before.replace('1}', '1!}');
  const composed = { start: before.indexOf('pass'), oldEnd: before.indexOf('}'), newEnd: after.indexOf('}') };
  const narrowed = narrowSpan(before, after, composed);
  assert.deepEqual(narrowed, {
    start: before.indexOf('}'),
    oldEnd: before.indexOf('}'),
    newEnd: after.indexOf('}'),
  });
  assert.equal(apply(before, after, narrowed), after);
});

test('texts that differ nowhere leave an empty span', () => {
  const text = 'x = 1\ny = 2\n';
  assert.deepEqual(narrowSpan(text, text, { start: 2, oldEnd: 9, newEnd: 9 }), {
    start: 9,
    oldEnd: 9,
    newEnd: 9,
  });
});

test('repeated characters: the narrowed edit is a pure insertion or deletion, and still applies', () => {
  // Each pair differs by characters inserted or deleted in one place: the narrowed edit
  // replaces nothing, and applying it turns one text into the other.
  const cases: [string, string][] = [
    ['aa', 'aaa'],
    ['aaa', 'aa'],
    ['abab', 'ab'],
    ['x = [1, 2]', 'x = [1, 1, 2]'],
    ['', 'new'],
    ['old', ''],
  ];
  for (const [before, after] of cases) {
    const narrowed = narrowSpan(before, after, { start: 0, oldEnd: before.length, newEnd: after.length });
    assert.equal(apply(before, after, narrowed), after, `${before} → ${after}`);
    assert.equal(
      narrowed.oldEnd - narrowed.start,
      Math.max(0, before.length - after.length),
      `${before} → ${after}`,
    );
    assert.equal(
      narrowed.newEnd - narrowed.start,
      Math.max(0, after.length - before.length),
      `${before} → ${after}`,
    );
  }
});

test('the texts outside the span are not read (they agree there by construction)', () => {
  // Outside [2, 4) the texts differ, but the span says they agree: narrowing stays inside it.
  const narrowed = narrowSpan('XXabYY', 'ZZacWW', { start: 2, oldEnd: 4, newEnd: 4 });
  assert.deepEqual(narrowed, { start: 3, oldEnd: 4, newEnd: 4 });
});

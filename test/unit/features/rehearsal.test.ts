// The keystroke warm-up: its edits are typed and deleted again, spread over the document,
// and the rehearsal stops once its time budget is spent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rehearsalEdits, rehearse, worthRehearsing } from '../../../server/src/features/rehearsal';
import { generateTrainingFile } from '../../perf/generate';
import { initParser } from '../../../server/src/parse/parser';
import { wasmDir } from '../../helpers/paths';

const TEXT = generateTrainingFile({ lines: 1_200, seed: 3 });

test('the rehearsal types letters, syntax errors and a `#` into the text and deletes each, ending on the text', async () => {
  const parser = await initParser({ wasmDir });
  const edits = rehearsalEdits(TEXT);
  const typed = new Set<number>();
  const versionsWithErrors: number[] = [];
  let text = TEXT;
  for (const [i, edit] of edits.entries()) {
    text = text.slice(0, edit.start) + edit.newText + text.slice(edit.oldEnd);
    if (edit.newText) typed.add(text.slice(0, edit.start).split('\n').length);
    const tree = parser.parse(text)!;
    if (tree.rootNode.hasError) versionsWithErrors.push(i);
    tree.delete();
  }
  assert.equal(text, TEXT);
  assert.equal(edits.length, 20, 'four letters into words, five before indentation and a `#`, each deleted');
  const lines = [...typed].sort((a, b) => a - b);
  assert.ok(lines[0] > 100 && lines[lines.length - 1] < 1_100, `typed at lines ${lines}`);
  // The letters typed before indentation are syntax errors (the chunk path), each deleted
  // again, right after the first letter: the budget must not stop the rehearsal before them.
  // (A letter typed into a keyword, later, may be an error too.)
  for (const [i, error] of [2, 4, 6, 8, 10].entries()) {
    assert.ok(versionsWithErrors.includes(error), `error ${i + 1} (edit ${error}) parses without one`);
    assert.ok(!versionsWithErrors.includes(error + 1), `edit ${error + 1} leaves an error`);
  }
});

test('rehearse analyses the text and each version in order, and stops after its budget', () => {
  const edits = rehearsalEdits(TEXT);
  const seen: string[] = [];
  const all = rehearse(TEXT, edits, (text, change) => {
    if (change) assert.equal(seen[seen.length - 1], change.before, 'each edit applies to the last version');
    seen.push(text);
  });
  assert.equal(all, edits.length + 1);
  assert.equal(seen[0], TEXT);
  assert.equal(seen[seen.length - 1], TEXT);
  const slow = rehearse(
    TEXT,
    edits,
    () => {
      const until = performance.now() + 30;
      while (performance.now() < until);
    },
    50,
  );
  assert.equal(slow, 2, 'the version that passes the budget is the last one');
});

test('only a large torch document is worth a rehearsal, and not one too long to copy fast', () => {
  assert.equal(worthRehearsing(1_200, 40_000, true), true);
  assert.equal(worthRehearsing(999, 40_000, true), false);
  assert.equal(worthRehearsing(1_200, 40_000, false), false);
  assert.equal(worthRehearsing(60_000, 2_000_000, true), false);
});

// The server's incremental path (window re-parses, tree-sitter edits and re-parses with the
// old tree, reused analysis results) must give exactly what a fresh analysis gives: after
// each of 10,000 seeded random edits of real-like files, the lowered tree, every node's kind
// and the findings are compared with a fresh analysis of the same text. A deliberately
// broken reuse must fail the check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser } from '../../server/src/parse/parser';
import { setIncrementalFault, type IncrementalFault } from '../../server/src/parse/incremental';
import { pointAt } from '../../server/src/parse/points';
import { loweringReuseCounts } from '../../server/src/parse/lower-reuse';
import { KindCarry, kindCarryCounts } from '../../server/src/analysis/kind-carry';
import { LOADER_HELPERS, runEditEquivalence } from '../helpers/edit-equivalence';
import { wasmDir } from '../helpers/paths';

test(
  'after each of 10,000 random edits the incremental analysis equals a fresh one',
  { timeout: 900_000 },
  async () => {
    const parser = await initParser({ wasmDir });
    const before = { ...loweringReuseCounts };
    const carriedBefore = { ...kindCarryCounts };
    const run = runEditEquivalence({ parser, edits: 10_000, seed: 13 });
    const lowered = loweringReuseCounts.lowered - before.lowered;
    const reused = loweringReuseCounts.reused - before.reused;
    const errorsLowered = loweringReuseCounts.errorsLowered - before.errorsLowered;
    const errorsReused = loweringReuseCounts.errorsReused - before.errorsReused;
    assert.equal(
      run.divergence,
      undefined,
      `differs after edit ${run.divergence?.edit} of ${run.divergence?.file}:\n${run.divergence?.detail}`,
    );
    assert.equal(run.edits, 10_000);
    // Versions with syntax errors, and the versions after them, are parsed fresh (see
    // DocumentTrees.parse); the typing episodes must still exercise the window re-parse of
    // the statements around an edit and tree-sitter's re-parse (when no window applies), or
    // the check would be vacuous (163 re-parses with seed 13).
    assert.ok(run.windowParses >= 2_000, `only ${run.windowParses} window parses`);
    assert.ok(run.incrementalParses >= 100, `only ${run.incrementalParses} incremental parses`);
    // And the incremental lowering must have moved most nodes rather than lowering them again.
    assert.ok(reused > 5 * lowered, `${reused} nodes reused, ${lowered} lowered again`);
    // Versions with syntax errors are parsed afresh, but their lowering must move the
    // error-free subtrees over too (the hostile random edits leave many files in one ERROR).
    assert.ok(
      errorsReused > errorsLowered / 5,
      `after syntax errors ${errorsReused} nodes reused, ${errorsLowered} lowered again`,
    );
    // And more function analyses must have been carried from the previous version than
    // walked again, though half the episodes are hostile random edits (syntax errors, changed
    // signatures) after which every function is walked.
    const carried = kindCarryCounts.carried - carriedBefore.carried;
    const walked = kindCarryCounts.walked - carriedBefore.walked;
    assert.ok(carried > walked, `${carried} function analyses carried, ${walked} walked`);
  },
);

// (The context check, which random edits rarely reach, has its own test: kind-carry.test.ts.)
for (const fault of ['ignore-inputs', 'skip-evidence', 'ignore-definitions'] as const) {
  test(`a broken carry of function analyses (${fault}) is caught`, { timeout: 300_000 }, async () => {
    const parser = await initParser({ wasmDir });
    KindCarry.fault = fault;
    try {
      // Weak tensor facts, which the evidence calls decide, are in the loader script only.
      const only = fault === 'skip-evidence' ? [LOADER_HELPERS] : undefined;
      const run = runEditEquivalence({ parser, edits: 2_000, seed: 7, only });
      assert.ok(run.divergence, `${fault} went unnoticed over ${run.edits} edits`);
    } finally {
      KindCarry.fault = 'none';
    }
  });
}

for (const fault of [
  'skip-tree-edit',
  'keep-errors',
  'stale-offsets',
  'ignore-errors',
  'reuse-unverified',
  'window-comment-end',
  'restore-stale-base',
] satisfies IncrementalFault[]) {
  test(`a broken reuse (${fault}) is caught`, { timeout: 300_000 }, async () => {
    const parser = await initParser({ wasmDir });
    setIncrementalFault(fault);
    try {
      const run = runEditEquivalence({ parser, edits: 2_000, seed: 7 });
      assert.ok(run.divergence, `${fault} went unnoticed over ${run.edits} edits`);
    } finally {
      setIncrementalFault('none');
    }
  });
}

test('tree-sitter points count rows at \\n only and columns in UTF-16 units', () => {
  const text = 'a\r\nb😀c\rd\ne';
  assert.deepEqual(pointAt(text, 0), { row: 0, column: 0 });
  assert.deepEqual(pointAt(text, 3), { row: 1, column: 0 });
  // The astral character is two UTF-16 units; a lone \r is no row break to tree-sitter.
  assert.deepEqual(pointAt(text, 7), { row: 1, column: 4 });
  assert.deepEqual(pointAt(text, 8), { row: 1, column: 5 });
  assert.deepEqual(pointAt(text, text.length), { row: 2, column: 1 });
});

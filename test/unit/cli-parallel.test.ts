// `shardlens check` on worker threads: the bundled CLI gives byte-identical output (text,
// JSON, stderr, exit code) with one thread and with several, and findings come in file
// order, whichever worker finishes first. Also the choice of how many workers to start, and
// the CLI's V8 flags (cli/v8-flags.ts), which must change the speed only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIN_FILES_FOR_WORKERS, workerCount } from '../../server/src/cli/parallel';
import { BATCH_V8_FLAGS, tuneV8ForBatch } from '../../server/src/cli/v8-flags';
import { generateTrainingFile } from '../perf/generate';
import { repoRoot } from '../helpers/paths';

function runCli(cwd: string, jobs: number, format: string, v8Defaults = false) {
  const env = { ...process.env, SHARDLENS_JOBS: String(jobs), SHARDLENS_V8_DEFAULTS: v8Defaults ? '1' : '0' };
  const result = spawnSync(
    process.execPath,
    [join(repoRoot, 'dist', 'cli.js'), 'check', '.', '--format', format, '--fail-on', 'warning'],
    { cwd, encoding: 'utf8', env },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('one thread and four workers print the same findings in file order', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'shardlens-parallel-'));
  try {
    // Files of very different sizes, so workers finish out of order.
    for (let i = 0; i < 40; i++) {
      mkdirSync(join(dir, `pkg${i % 4}`), { recursive: true });
      const lines = i % 7 === 0 ? 900 : 40 + (i % 5) * 30;
      writeFileSync(
        join(dir, `pkg${i % 4}`, `train_${i}.py`),
        generateTrainingFile({ lines, seed: 100 + i }),
      );
    }
    writeFileSync(join(dir, 'broken.py'), 'def f(:\n  x = \x00\n');
    for (const format of ['json', 'text']) {
      const serial = runCli(dir, 1, format);
      const parallel = runCli(dir, 4, format);
      assert.equal(parallel.status, serial.status, parallel.stderr);
      assert.equal(parallel.stderr, serial.stderr);
      assert.equal(parallel.stdout, serial.stdout);
      const withV8Defaults = runCli(dir, 4, format, true);
      assert.equal(withV8Defaults.status, serial.status, withV8Defaults.stderr);
      assert.equal(withV8Defaults.stdout, serial.stdout, 'the batch V8 flags change the output');
      if (format === 'json') {
        const files = (JSON.parse(serial.stdout) as { file: string }[]).map((f) => f.file);
        assert.ok(new Set(files).size >= 30, `findings in ${new Set(files).size} files only`);
        const order = [...new Set(files)];
        assert.deepEqual(order, [...order].sort(), 'files appear in discovery (sorted path) order');
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('workers start only for large trees, or as SHARDLENS_JOBS says', () => {
  assert.equal(workerCount(MIN_FILES_FOR_WORKERS - 1, {}), 0);
  assert.equal(workerCount(3, { SHARDLENS_JOBS: '1' }), 0);
  assert.equal(workerCount(3, { SHARDLENS_JOBS: '0' }), 0);
  assert.equal(workerCount(3, { SHARDLENS_JOBS: '8' }), 3);
  assert.equal(workerCount(500, { SHARDLENS_JOBS: '2' }), 2);
  // Empty or not a whole number: as if unset.
  for (const jobs of ['', ' ', 'two', '1.5'])
    assert.equal(workerCount(500, { SHARDLENS_JOBS: jobs }), workerCount(500, {}), `'${jobs}'`);
});

test('the CLI sets its batch V8 flags unless SHARDLENS_V8_DEFAULTS=1', () => {
  assert.deepEqual(tuneV8ForBatch({ SHARDLENS_V8_DEFAULTS: '1' }), []);
  assert.deepEqual(tuneV8ForBatch({}), BATCH_V8_FLAGS);
  assert.ok(BATCH_V8_FLAGS.includes('--no-turbo-inlining'));
});

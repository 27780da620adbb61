// `# shardlens: ignore-file[SL101]` and a bare `# shardlens: ignore-file`: parsed apart from
// line-level `ignore` comments, and honoured by the analyzer and by the CLI (the bundled
// `dist/cli.js` run on a real file).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFileSuppression, parseSuppression } from '../../server/src/analysis/suppressions';
import { analyzeSource } from '../helpers/analyze';
import { hotLoopSource } from '../helpers/snippets';
import { repoRoot } from '../helpers/paths';

const scratch = mkdtempSync(join(tmpdir(), 'shardlens-ignore-file-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const SCRIPT = hotLoopSource('        print(loss.item(), torch.cuda.synchronize())');

test('ignore-file comments are file-wide, and not line-level ignores of every code', () => {
  assert.deepEqual(parseFileSuppression('# shardlens: ignore-file[SL101, sl2]'), ['SL101', 'SL2']);
  assert.deepEqual(parseFileSuppression('# shardlens: ignore-file'), ['*']);
  assert.equal(parseFileSuppression('# shardlens: ignore[SL101]'), undefined);
  assert.equal(parseSuppression('# shardlens: ignore-file[SL101]'), undefined);
  assert.deepEqual(parseSuppression('# shardlens: ignore[SL101]'), ['SL101']);
});

test('the analyzer drops only the codes an ignore-file comment names', async () => {
  const codes = async (text: string) => (await analyzeSource(text)).findings.map((f) => f.code).sort();
  assert.deepEqual(await codes(SCRIPT), ['SL101', 'SL107']);
  assert.deepEqual(await codes(`# shardlens: ignore-file[SL101]\n${SCRIPT}`), ['SL107']);
  assert.deepEqual(await codes(`${SCRIPT}# shardlens: ignore-file[SL1]\n`), []);
  assert.deepEqual(await codes(`# shardlens: ignore-file\n${SCRIPT}`), []);
});

test('suppression comments are read whatever their case (the analyzer reads only comments naming shardlens or noqa)', async () => {
  const codes = async (text: string) => (await analyzeSource(text)).findings.map((f) => f.code).sort();
  assert.deepEqual(await codes(`# SHARDLENS: IGNORE-FILE[sl101]\n${SCRIPT}`), ['SL107']);
  const lineLevel = hotLoopSource('        print(loss.item(), torch.cuda.synchronize())  # NoQA: SL107');
  assert.deepEqual(await codes(lineLevel), ['SL101']);
  const ours = hotLoopSource(
    '        print(loss.item(), torch.cuda.synchronize())  # ShardLens: Ignore[SL101]',
  );
  assert.deepEqual(await codes(ours), ['SL107']);
});

test('the CLI honours ignore-file comments', () => {
  const run = (name: string, text: string) => {
    const file = join(scratch, name);
    writeFileSync(file, text);
    const result = spawnSync(
      process.execPath,
      [join(repoRoot, 'dist', 'cli.js'), 'check', file, '--format', 'json', '--fail-on', 'never'],
      { encoding: 'utf8' },
    );
    assert.equal(result.status, 0, result.stderr);
    return (JSON.parse(result.stdout) as { code: string }[]).map((f) => f.code).sort();
  };
  assert.deepEqual(run('plain.py', SCRIPT), ['SL101', 'SL107']);
  assert.deepEqual(run('one.py', `# shardlens: ignore-file[SL107]\n${SCRIPT}`), ['SL101']);
  assert.deepEqual(run('all.py', `#!/usr/bin/env python\n# shardlens: ignore-file\n${SCRIPT}`), []);
});

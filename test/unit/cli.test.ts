// The `shardlens check` command: text, JSON and SARIF output, --select/--ignore/--exclude,
// --fail-on and exit codes, recursive discovery (skipping .git, venvs, node_modules and
// excludes), unreadable entries, and pyproject.toml settings. One case spawns dist/cli.js.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli } from '../../server/src/cli';
import { rules } from '../../server/src/rules/index';
import { fixturesDir, wasmDir, repoRoot } from '../helpers/paths';
import { hotLoopSource } from '../helpers/snippets';

const HOT_LINE = '        x = "😀é"; print(loss.item())';
const HOT = hotLoopSource(HOT_LINE);
/** 1-based position of the finding in HOT, columns in UTF-16 code units. */
const HOT_AT = { line: 9, column: HOT_LINE.indexOf('loss.item()') + 1 };
/** A sync only in a logging branch: an information-level finding. */
const LOGGING_ONLY = [
  'import torch',
  '',
  '',
  'def train(model, loader, optimizer):',
  '    for step, (x, y) in enumerate(loader):',
  '        loss = model(x, y)',
  '        loss.backward()',
  '        optimizer.step()',
  '        if step % 100 == 0:',
  '            print(loss.item())',
  '',
].join('\n');
const CLEAN = 'import torch\n\n\ndef f(x):\n    return torch.relu(x)\n';

let root: string;

function write(rel: string, text: string): void {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Runs the CLI in process in `cwd` (the project root by default). */
async function check(args: string[], cwd = root) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['check', ...args], {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    cwd,
    wasmDir,
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

interface JsonFinding {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  code: string;
  severity: string;
  message: string;
}

async function json(args: string[], cwd = root): Promise<{ code: number; findings: JsonFinding[] }> {
  const { code, stdout, stderr } = await check([...args, '--format', 'json'], cwd);
  assert.doesNotThrow(() => JSON.parse(stdout), `stdout: ${stdout}\nstderr: ${stderr}`);
  return { code, findings: JSON.parse(stdout) };
}

const files = (findings: JsonFinding[]) => [...new Set(findings.map((f) => f.file))].sort();

before(() => {
  root = mkdtempSync(join(tmpdir(), 'shardlens-cli-'));
  write('pyproject.toml', '[project]\nname = "demo"\n\n[tool.shardlens]\nexclude = ["generated"]\n');
  write('train.py', HOT);
  write('clean.py', CLEAN);
  write('pkg/util.py', HOT);
  write('pkg/notes.txt', HOT);
  write('.git/hooks/hook.py', HOT);
  write('env/pyvenv.cfg', 'home = /usr/bin\n');
  write('env/lib/site.py', HOT);
  write('node_modules/dep/x.py', HOT);
  write('generated/gen.py', HOT);
  write('scratch/tmp.py', HOT);
  write('logging/log.py', LOGGING_ONLY);
  write(
    'strict/pyproject.toml',
    '[tool.shardlens]\nexclude = ["skip_*.py"]\n[tool.shardlens.severity]\nSL101 = "error"\n',
  );
  write('strict/train.py', HOT);
  write('strict/skip_me.py', HOT);
  write('silenced/pyproject.toml', '[tool.shardlens]\nignore = ["SL1"]\n');
  write('silenced/train.py', HOT);
  write('broken-config/pyproject.toml', '[tool.shardlens\nselect = [');
  write('broken-config/train.py', HOT);
  write('space dir/a.py', HOT);
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('shardlens check', () => {
  test('text output is path:line:col: CODE message, one line a finding, then a summary', async () => {
    const { code, stdout, stderr } = await check(['train.py']);
    assert.equal(code, 1, stderr);
    const [finding, summary, ...rest] = stdout.split('\n');
    assert.deepEqual(rest, []);
    const prefix = `train.py:${HOT_AT.line}:${HOT_AT.column}: SL101 `;
    assert.ok(finding.startsWith(prefix), finding);
    const { findings } = await json(['train.py']);
    assert.equal(finding, `${prefix}${findings[0].message}`);
    assert.doesNotMatch(finding, /\[(warning|error|info|hint)\]/);
    assert.equal(summary, '1 finding in 1 file.');
  });

  test('--format json: flat objects, 1-based lines, UTF-16 columns, end exclusive', async () => {
    const { code, findings } = await json(['train.py']);
    assert.equal(code, 1);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.deepEqual(Object.keys(f).sort(), [
      'code',
      'column',
      'endColumn',
      'endLine',
      'file',
      'line',
      'message',
      'severity',
    ]);
    assert.deepEqual(
      { ...f, message: undefined },
      {
        file: 'train.py',
        line: HOT_AT.line,
        column: HOT_AT.column,
        endLine: HOT_AT.line,
        endColumn: HOT_AT.column + 'loss.item()'.length,
        code: 'SL101',
        severity: 'warning',
        message: undefined,
      },
    );
    // The column counts the emoji as two units: a code-point count would be one less.
    assert.equal([...HOT_LINE.slice(0, HOT_AT.column - 1)].length, HOT_AT.column - 2);
    assert.equal(HOT.split('\n')[f.line - 1].slice(f.column - 1, f.endColumn - 1), 'loss.item()');
    assert.ok(f.message.length > 20 && !f.message.includes('\n'));
  });

  test('--format json severities are error/warning/info/hint', async () => {
    const { findings } = await json(['logging/log.py']);
    assert.deepEqual(
      findings.map((f) => [f.code, f.line, f.severity]),
      [['SL101', 10, 'info']],
    );
    const strict = await json(['strict/train.py']);
    assert.deepEqual(
      strict.findings.map((f) => f.severity),
      ['error'],
    );
  });

  test('--format sarif is SARIF 2.1.0 with rule descriptors and located results', async () => {
    const { code, stdout } = await check(['train.py', 'logging', '--format', 'sarif']);
    assert.equal(code, 1);
    const sarif = JSON.parse(stdout);
    assert.equal(sarif.version, '2.1.0');
    assert.match(sarif.$schema, /sarif-2\.1\.0/);
    assert.equal(sarif.runs.length, 1);
    const [run] = sarif.runs;
    assert.equal(run.tool.driver.name, 'shardlens');
    assert.match(run.tool.driver.version, /^\d+\.\d+\.\d+$/);
    const ids = run.tool.driver.rules.map((r: { id: string }) => r.id);
    assert.deepEqual(
      ids,
      rules.map((r) => r.code),
    );
    for (const rule of run.tool.driver.rules) {
      assert.ok(rule.shortDescription.text, rule.id);
      assert.ok(['error', 'warning', 'note', 'none'].includes(rule.defaultConfiguration.level), rule.id);
    }
    assert.equal(run.results.length, 2);
    const levels = run.results.map((r: { level: string }) => r.level).sort();
    assert.deepEqual(levels, ['note', 'warning']);
    for (const result of run.results) {
      assert.equal(result.ruleId, 'SL101');
      assert.equal(ids[result.ruleIndex], result.ruleId);
      assert.ok(result.message.text);
      const { artifactLocation, region } = result.locations[0].physicalLocation;
      assert.ok(['train.py', 'logging/log.py'].includes(artifactLocation.uri), artifactLocation.uri);
      for (const key of ['startLine', 'startColumn', 'endLine', 'endColumn'])
        assert.ok(Number.isInteger(region[key]) && region[key] >= 1, key);
    }
    const hot = run.results.find((r: { level: string }) => r.level === 'warning');
    assert.deepEqual(hot.locations[0].physicalLocation.region, {
      startLine: HOT_AT.line,
      startColumn: HOT_AT.column,
      endLine: HOT_AT.line,
      endColumn: HOT_AT.column + 'loss.item()'.length,
    });
  });

  test('--select and --ignore by code or prefix', async () => {
    assert.deepEqual((await json(['train.py', '--select', 'SL4'])).findings, []);
    assert.equal((await json(['train.py', '--select', 'SL1'])).findings.length, 1);
    assert.equal((await json(['train.py', '--select=sl101'])).findings.length, 1);
    const ignored = await json(['train.py', '--ignore', 'SL101']);
    assert.deepEqual(ignored, { code: 0, findings: [] });
    assert.deepEqual((await json(['train.py', '--ignore', 'SL2,SL1'])).findings, []);
  });

  test('--fail-on decides exit code 1 (default warning)', async () => {
    assert.equal((await check(['train.py'])).code, 1);
    assert.equal((await check(['train.py', '--fail-on', 'warning'])).code, 1);
    assert.equal((await check(['train.py', '--fail-on', 'hint'])).code, 1);
    assert.equal((await check(['train.py', '--fail-on', 'error'])).code, 0);
    assert.equal((await check(['train.py', '--fail-on', 'never'])).code, 0);
    assert.equal((await check(['logging'])).code, 0);
    assert.equal((await check(['logging', '--fail-on', 'info'])).code, 1);
    assert.equal((await check(['strict/train.py', '--fail-on', 'error'])).code, 1);
    const clean = await check(['clean.py']);
    assert.deepEqual([clean.code, clean.stdout], [0, '0 findings in 1 file.']);
  });

  test('usage errors exit 2 with a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [[], /check needs at least one PATH/],
      [['train.py', '--format', 'xml'], /unknown format "xml"/],
      [['train.py', '--fail-on', 'loud'], /unknown --fail-on level "loud"/],
      [['train.py', '--frobnicate'], /unknown option --frobnicate/],
      [['train.py', '--select'], /--select needs a value/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await check(args);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, message);
      assert.match(stderr, /Usage:/);
      assert.equal(stdout, '');
    }
    const other = await runCli(['lint'], {
      stdout: () => undefined,
      stderr: () => undefined,
      cwd: root,
      wasmDir,
    });
    assert.equal(other, 2);
  });

  test('a missing path is an I/O error (exit 2) and the other paths are still checked', async () => {
    const { code, stdout, stderr } = await check(['nope.py', 'train.py']);
    assert.equal(code, 2);
    assert.match(stderr, /nope\.py: no such file or directory/);
    assert.match(stdout, /^train\.py:9:\d+: SL101 /m);
  });

  test('recursive discovery skips .git, venvs, node_modules, non-.py files and excludes', async () => {
    const all = await json(['.']);
    assert.equal(all.code, 2, 'broken-config/pyproject.toml is reported');
    assert.deepEqual(files(all.findings), [
      'broken-config/train.py',
      'logging/log.py',
      'pkg/util.py',
      'scratch/tmp.py',
      'space dir/a.py',
      'strict/train.py',
      'train.py',
    ]);
    // --exclude adds to the pyproject's `exclude`; a bare name matches at any depth.
    const excluded = await json([
      '.',
      '--exclude',
      'scratch',
      '--exclude',
      'pkg/*.py',
      '--exclude',
      'broken-config',
    ]);
    assert.equal(excluded.code, 1);
    assert.deepEqual(files(excluded.findings), [
      'logging/log.py',
      'space dir/a.py',
      'strict/train.py',
      'train.py',
    ]);
    // A path given explicitly is checked whatever its suffix.
    assert.deepEqual(files((await json(['pkg/notes.txt'])).findings), ['pkg/notes.txt']);
  });

  test('pyproject.toml [tool.shardlens] governs the files below it', async () => {
    // strict/: SL101 is an error and skip_*.py is excluded, relative to strict/.
    const strict = await json(['strict']);
    assert.deepEqual(
      strict.findings.map((f) => [f.file, f.severity]),
      [['strict/train.py', 'error']],
    );
    // The same from inside the folder.
    const inside = await json(['.'], join(root, 'strict'));
    assert.deepEqual(
      inside.findings.map((f) => [f.file, f.severity]),
      [['train.py', 'error']],
    );
    // silenced/: ignore = ["SL1"]; the command line still wins.
    assert.deepEqual((await json(['silenced'])).findings, []);
    assert.equal((await json(['silenced', '--select', 'SL1'])).findings.length, 0, 'ignore wins a tie');
    assert.equal((await json(['silenced', '--select', 'SL101'])).findings.length, 1, 'a longer prefix wins');
    assert.equal((await json(['silenced', '--ignore', 'SL2'])).findings.length, 1, '--ignore replaces it');
  });

  test('an invalid pyproject.toml is reported by path and exits 2, the files still checked', async () => {
    const { code, stdout, stderr } = await check(['broken-config']);
    assert.equal(code, 2);
    assert.match(stderr, /broken-config\/pyproject\.toml is not valid TOML/);
    assert.match(stdout, /^broken-config\/train\.py:9:/m);
  });

  test('unreadable files and folders are reported and the run goes on', async (t) => {
    const dir = mkdtempSync(join(root, 'unreadable-'));
    const rel = dir.slice(root.length + 1);
    writeFileSync(join(dir, 'ok.py'), HOT);
    symlinkSync(join(dir, 'missing.py'), join(dir, 'dangling.py'));
    symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
    symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
    symlinkSync(dir, join(dir, 'self'));
    const isRoot = process.getuid?.() === 0;
    if (!isRoot) {
      writeFileSync(join(dir, 'secret.py'), HOT);
      chmodSync(join(dir, 'secret.py'), 0);
      mkdirSync(join(dir, 'locked'));
      writeFileSync(join(dir, 'locked', 'x.py'), HOT);
      chmodSync(join(dir, 'locked'), 0);
    } else {
      t.diagnostic('running as root: chmod 000 does not block reads, so only symlinks are used');
    }
    try {
      const { code, stdout, stderr } = await check([rel]);
      assert.equal(code, 2);
      assert.match(stderr, /dangling\.py: cannot read \(ENOENT\)/);
      assert.match(stderr, /loop-a: cannot read \(ELOOP\)/);
      if (!isRoot) {
        assert.match(stderr, /secret\.py: cannot read \(EACCES\)/);
        assert.match(stderr, /locked: cannot read directory \(EACCES\)/);
      }
      // The folder's own symlink to itself does not list ok.py twice.
      assert.equal(stdout.match(/ok\.py:9:/g)?.length, 1, stdout);
      assert.match(stdout, /1 finding in 1 file\./);
    } finally {
      if (!isRoot) chmodSync(join(dir, 'locked'), 0o755);
    }
  });

  test('a call from the hot step into another workspace file reports the sync there at the call', async () => {
    const folder = join(fixturesDir, 'workspaces', 'cross_file_sync');
    const text = readFileSync(join(folder, 'train_loop.py'), 'utf8').split('\n');
    const callLine = text.findIndex((l) => l.includes('record_step(loss, step)')) + 1;
    const { findings } = await json(['.'], folder);
    const syncs = findings.filter((f) => f.code.startsWith('SL1'));
    // One: `record_step` reads the loss every step; `record_every` only once per interval.
    assert.deepEqual(
      syncs.map((f) => [f.file, f.line, f.code, f.severity]),
      [['train_loop.py', callLine, 'SL101', 'warning']],
    );
    assert.match(syncs[0].message, /`record_step`.*step_logging\.py:8\b/);
  });

  test('node dist/cli.js check runs the bundle: output and exit code', () => {
    const result = spawnSync(
      process.execPath,
      [join(repoRoot, 'dist', 'cli.js'), 'check', 'train.py', 'clean.py'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stdout, new RegExp(`^train\\.py:${HOT_AT.line}:${HOT_AT.column}: SL101 \\S`));
    assert.match(result.stdout, /\n1 finding in 2 files\.\n$/);
    const usage = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'check'], {
      encoding: 'utf8',
    });
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /check needs at least one PATH/);
  });
});

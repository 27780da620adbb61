// `--help` on the CLI and on every subcommand (exit 0, the command's own options), `--version`
// from package.json, and no option the parsers accept left out of the help.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../server/src/cli';
import { CHECK_HELP, MAIN_HELP } from '../../server/src/cli/help';
import { repoRoot, wasmDir } from '../helpers/paths';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    cwd: repoRoot,
    wasmDir,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The `--flag` string literals in a source file: the options its parser accepts. */
function flagsIn(relPath: string): string[] {
  const text = readFileSync(join(repoRoot, relPath), 'utf8');
  return [...new Set([...text.matchAll(/'(--[a-z][a-z-]*)'/g)].map((m) => m[1]))];
}

describe('CLI help and version', () => {
  for (const command of ['check', 'estimate', 'rules']) {
    test(`shardlens ${command} --help prints its own usage and exits 0`, async () => {
      for (const flag of ['--help', '-h']) {
        const { code, out, err } = await cli([command, flag]);
        assert.equal(code, 0, err);
        assert.match(out, new RegExp(`^Usage: shardlens ${command}`, 'i'));
      }
      const viaHelp = await cli(['help', command]);
      assert.equal(viaHelp.code, 0);
      assert.match(viaHelp.out, new RegExp(`^Usage: shardlens ${command}`, 'i'));
    });
  }

  test('shardlens estimate --help wins over other arguments (no "unknown option")', async () => {
    const { code, out, err } = await cli(['estimate', 'model.py', '--gpus', '8', '--help']);
    assert.equal(code, 0);
    assert.equal(err, '');
    assert.match(out, /--precision P/);
  });

  test('shardlens --help lists every command; an unknown command still fails', async () => {
    const { code, out } = await cli(['--help']);
    assert.equal(code, 0);
    for (const command of ['check', 'estimate', 'rules', '--version'])
      assert.ok(out.includes(command), command);
    const unknown = await cli(['frobnicate', '--help']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "frobnicate"/);
  });

  test('every option the parsers accept is in the help', async () => {
    const checkFlags = flagsIn('server/src/cli.ts').filter((f) => f !== '--help');
    const estimateFlags = flagsIn('server/src/cli-estimate.ts');
    assert.ok(checkFlags.includes('--fail-on') && estimateFlags.includes('--strategy'));
    assert.deepEqual(
      checkFlags.filter((f) => !CHECK_HELP.includes(f) && !MAIN_HELP.includes(f)),
      [],
    );
    const estimateHelp = (await cli(['estimate', '--help'])).out;
    assert.deepEqual(
      estimateFlags.filter((f) => !estimateHelp.includes(f)),
      [],
    );
  });

  test('shardlens --version prints package.json’s version, also from the built CLI', async () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    assert.equal((await cli(['--version'])).out, version);
    const built = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), '--version'], {
      encoding: 'utf8',
    });
    assert.equal(built.status, 0, built.stderr);
    assert.equal(built.stdout.trim(), version);
  });
});

// The rule docs are generated from each rule's doc comment (scripts/rule-docs.mjs): the pages,
// the README table and the `summary` fields must be up to date, the generator must read the
// same metadata the registry holds, and a stale page must make the check fail.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rules } from '../../server/src/rules/index';
import { repoRoot } from '../helpers/paths';

const script = join(repoRoot, 'scripts', 'rule-docs.mjs');

interface ParsedRule {
  code: string;
  name: string;
  category: string;
  severity: string;
  optIn: boolean;
  summary: string;
  path: string;
}

function runGenerator(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A copy of the files the generator reads and writes, to break on purpose. */
function scratchCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'shardlens-rule-docs-'));
  cpSync(join(repoRoot, 'server', 'src', 'rules'), join(root, 'server', 'src', 'rules'), { recursive: true });
  cpSync(join(repoRoot, 'docs', 'rules'), join(root, 'docs', 'rules'), { recursive: true });
  cpSync(join(repoRoot, 'README.md'), join(root, 'README.md'));
  cpSync(join(repoRoot, '.prettierrc.json'), join(root, '.prettierrc.json'));
  return root;
}

describe('generated rule docs', () => {
  test('docs/rules/*.md, the README table and the summary fields match the doc comments', () => {
    const { status, output } = runGenerator(['--check']);
    assert.equal(status, 0, output);
  });

  test('the generator reads the metadata the registry holds, for every rule', async () => {
    const generator = await import(pathToFileURL(script).href);
    const parsed: ParsedRule[] = generator.readRules(repoRoot);
    assert.deepEqual(
      parsed.map((r) => [r.code, r.name, r.category, r.severity, r.optIn, r.summary]),
      rules.map((r) => [r.code, r.name, r.category, r.severity, r.optIn === true, r.summary]),
    );
  });

  test('a doc comment edited without regenerating fails the check; regenerating fixes page and summary', () => {
    const root = scratchCopy();
    try {
      const ruleFile = join(root, 'server', 'src', 'rules', 'sl101-item-in-hot-loop.ts');
      const source = readFileSync(ruleFile, 'utf8');
      const summary = '`.item()` in a hot training step waits for the GPU every step.';
      const edited = source
        .replace(/\/\*\*\n \* [^\n]*\n/, `/**\n * ${summary}\n`)
        .replace('## Why is this bad?\n', '## Why is this bad?\n * A sentence added for the test.\n');
      assert.notEqual(edited, source);
      writeFileSync(ruleFile, edited);

      const stale = runGenerator(['--check', '--root', root]);
      assert.equal(stale.status, 1);
      assert.match(stale.output, /stale: .*SL101\.md/);
      assert.match(stale.output, /stale: .*README\.md/);
      assert.match(stale.output, /stale: .*sl101-item-in-hot-loop\.ts/);

      assert.equal(runGenerator(['--root', root]).status, 0);
      assert.match(
        readFileSync(join(root, 'docs', 'rules', 'SL101.md'), 'utf8'),
        /A sentence added for the test\./,
      );
      assert.ok(readFileSync(ruleFile, 'utf8').includes(`summary: '${summary}',`));
      assert.ok(readFileSync(join(root, 'README.md'), 'utf8').includes(summary));
      assert.equal(runGenerator(['--check', '--root', root]).status, 0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

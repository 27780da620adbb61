// The .vsix allowlist: `vsce ls` (what `npm run package` would put in the .vsix) lists
// only the bundles, the wasm files, the webview assets, the harness, docs and the
// metadata files; nothing from node_modules, sources, tests or examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';

const ALLOWED = [
  /^dist\/(extension|server|cli)\.js$/,
  /^dist\/tree-sitter(-python)?\.wasm$/,
  /^dist\/media\/panel\.js$/,
  /^media\/panel\.css$/,
  /^media\/screenshots\/[\w-]+\.png$/,
  /^grammars\/(tree-sitter-python\.wasm|VERSIONS)$/,
  /^bench\/shardlens_bench\/[\w]+\.py$/,
  /^bench\/shardlens_bench\/presets\.json$/,
  /^bench\/shardlens_bench\/schema\/[\w.]+\.json$/,
  /^docs\/([\w-]+\/)?[\w-]+\.md$/,
  /^(README\.md|LICENSE|CHANGELOG\.md|package\.json)$/,
];

const REQUIRED = [
  'dist/extension.js',
  'dist/server.js',
  'dist/cli.js',
  'dist/tree-sitter.wasm',
  'dist/tree-sitter-python.wasm',
  'dist/media/panel.js',
  'media/panel.css',
  'bench/shardlens_bench/__main__.py',
  'bench/shardlens_bench/presets.json',
  'docs/rules/SL101.md',
  'README.md',
  'LICENSE',
  'package.json',
];

test('the .vsix holds exactly the allowlisted files', () => {
  const vsce = join(repoRoot, 'node_modules', '.bin', 'vsce');
  const listing = execFileSync(vsce, ['ls', '--no-dependencies'], { cwd: repoRoot, encoding: 'utf8' });
  const files = listing
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const stray = files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file)));
  assert.deepEqual(stray, [], 'files outside the allowlist would be packaged');
  for (const file of REQUIRED) assert.ok(files.includes(file), `${file} is missing from the package`);
});

// `npm run corpus -- DIR...`: bundles test/corpus/triage.ts and runs it over the given
// folders of public training code (kept outside the repository; see docs/accuracy.md).
// Not part of CI: the corpus needs a network fetch.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const root = join(dirname(new URL(import.meta.url).pathname), '..');
const treeSitterCjs = require.resolve('web-tree-sitter').replace(/tree-sitter\.js$/, 'tree-sitter.cjs');
const outfile = join(root, 'out', 'corpus', 'triage.js');
await esbuild.build({
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
  alias: { 'web-tree-sitter': treeSitterCjs },
  entryPoints: [join(root, 'test', 'corpus', 'triage.ts')],
  outfile,
});
const result = spawnSync(
  process.execPath,
  [outfile, '--wasm', join(root, 'dist'), ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
process.exitCode = result.status ?? 2;

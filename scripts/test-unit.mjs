// `npm run test:unit -- [PATTERN...]`: bundles the node tests whose path contains a PATTERN
// (every test when none is given) into a fresh out/, then runs exactly those with `node --test`.
// Example: `npm run test:unit -- rule-docs test/unit/estimate`.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const patterns = process.argv.slice(2);

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const build = spawnSync(process.execPath, ['esbuild.mjs', '--tests', ...patterns], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
const files = testFiles(join(root, 'out', 'test'));
if (files.length === 0) {
  console.error(`test:unit: no node test (*.test.ts) path contains ${patterns.join(' or ')}`);
  process.exit(1);
}
const run = spawnSync(process.execPath, ['--test', ...files], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);

// Paths shared by the tests: the repository root and the folder holding the wasm files
// (dist/, filled by `node esbuild.mjs`, which every test run does first).
import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'esbuild.mjs'))) {
    const parent = resolve(dir, '..');
    if (parent === dir) throw new Error(`repository root not found above ${start}`);
    dir = parent;
  }
  return dir;
}

/** The repository root. */
export const repoRoot = findRoot(__dirname);
/** Where `tree-sitter.wasm` and `tree-sitter-python.wasm` are after a build. */
export const wasmDir = join(repoRoot, 'dist');
/** Test fixtures. */
export const fixturesDir = join(repoRoot, 'test', 'fixtures');
/** Debian's Python with python3-torch installed. */
export const torchPython = process.env.SHARDLENS_TORCH_PYTHON ?? '/usr/bin/python3';
/** Where Debian's python3-torch and python3-torchvision put their sources (npm test installs them). */
export const debianDistPackages = '/usr/lib/python3/dist-packages';

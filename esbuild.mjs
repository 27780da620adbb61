// Builds every bundle: the extension client, the language server, the CLI, the webview
// script, and (with --tests) each test file; copies the wasm files beside the server.
// Usage: node esbuild.mjs [--tests] [--watch]
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync, readdirSync, statSync, rmSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = new Set(process.argv.slice(2));
const root = dirname(new URL(import.meta.url).pathname);

// NOTE: web-tree-sitter's ESM entry calls createRequire(import.meta.url), which is empty
// in a CommonJS bundle; its .cjs build works, so every bundle is pointed at it.
const treeSitterCjs = require.resolve('web-tree-sitter').replace(/tree-sitter\.js$/, 'tree-sitter.cjs');
const nodeCommon = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  alias: { 'web-tree-sitter': treeSitterCjs },
};

function copyWasm() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  cpSync(join(dirname(treeSitterCjs), 'tree-sitter.wasm'), join(root, 'dist', 'tree-sitter.wasm'));
  cpSync(join(root, 'grammars', 'tree-sitter-python.wasm'), join(root, 'dist', 'tree-sitter-python.wasm'));
}

const productBuilds = [
  {
    ...nodeCommon,
    entryPoints: ['client/src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
  },
  { ...nodeCommon, entryPoints: ['server/src/server.ts'], outfile: 'dist/server.js' },
  {
    ...nodeCommon,
    entryPoints: ['server/src/cli.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: true,
    logLevel: 'warning',
    entryPoints: ['media/src/panel.ts'],
    outfile: 'dist/media/panel.js',
  },
];

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures' || name === '.cache') continue;
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.ts') || path.endsWith(join('test', 'perf', 'bench.ts'))) found.push(path);
  }
  return found;
}

/**
 * Bundles test files into a fresh out/ (so no stale bundle of another run is left to be run);
 * extra arguments after --tests limit it to test paths containing one of them.
 */
async function buildTests(filters) {
  rmSync(join(root, 'out'), { recursive: true, force: true });
  const entryPoints = findTests(join(root, 'test'))
    .map((p) => relative(root, p))
    .filter((p) => filters.length === 0 || filters.some((f) => p.includes(f)));
  if (entryPoints.length === 0) throw new Error(`no test file path contains ${filters.join(' or ')}`);
  await esbuild.build({
    ...nodeCommon,
    entryPoints,
    outdir: 'out',
    outbase: '.',
    packages: 'external',
    alias: {},
  });
}

async function main() {
  process.chdir(root);
  const existing = productBuilds.filter((b) => {
    try {
      statSync(b.entryPoints[0]);
      return true;
    } catch {
      return false;
    }
  });
  if (args.has('--watch')) {
    for (const options of existing) await (await esbuild.context(options)).watch();
    copyWasm();
    return;
  }
  await Promise.all(existing.map((options) => esbuild.build(options)));
  copyWasm();
  if (args.has('--tests')) await buildTests(process.argv.slice(2).filter((a) => !a.startsWith('--')));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

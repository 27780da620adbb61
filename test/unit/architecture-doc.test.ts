// docs/architecture.md matches the tree: every folder and file it names in backticks exists, and
// every source folder (top level, and one level under server/src, client/src, test, media,
// docs and the harness) is in its map. Also: no user-facing file cites FACTS.md, the steering
// notes users do not have; shipped text cites primary sources instead.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';

const doc = readFileSync(join(repoRoot, 'docs', 'architecture.md'), 'utf8');
const SKIP = new Set(['node_modules', 'dist', 'out', 'test-output', '__pycache__']);

function subfolders(dir: string): string[] {
  const abs = join(repoRoot, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).filter(
    (name) => !name.startsWith('.') && !SKIP.has(name) && statSync(join(abs, name)).isDirectory(),
  );
}

/** Table rows of the folder map: the folder in the first column, the row's text. */
function mapRows(): { folder: string; text: string }[] {
  return [...doc.matchAll(/^\| `([^`]+\/)` \|(.*)$/gm)].map((m) => ({ folder: m[1], text: m[0] }));
}

/** Text files users get or read: docs, README, the shipped harness, sources, scripts, examples. */
function userFacingFiles(dir = ''): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((name) => {
    const rel = dir ? `${dir}/${name}` : name;
    if (name.startsWith('.') || SKIP.has(name) || rel === 'test') return [];
    if (statSync(join(repoRoot, rel)).isDirectory()) return userFacingFiles(rel);
    return /\.(md|ts|mjs|js|py|json|toml|css|html)$/.test(name) && name !== 'package-lock.json' ? [rel] : [];
  });
}

describe('docs/architecture.md', () => {
  test('every folder and file it names exists', () => {
    const rows = mapRows();
    assert.ok(rows.length >= 20, 'the folder map table was not found');
    const missing: string[] = [];
    for (const line of doc.split('\n')) {
      const rowFolder = /^\| `([^`]+\/)` \|/.exec(line)?.[1];
      for (const [, token] of line.matchAll(/`([\w./-]+)`/g)) {
        const looksLikePath =
          token.endsWith('/') || /^[\w-]+(\/[\w.-]+)*\.(ts|mjs|py|json|md|css|wasm)$/.test(token);
        if (!looksLikePath || token.startsWith('dist/') || token.startsWith('.')) continue;
        const candidates = [token, ...(rowFolder ? [`${rowFolder}${token}`] : [])];
        if (!candidates.some((path) => existsSync(join(repoRoot, path)))) missing.push(token);
      }
    }
    assert.deepEqual(missing, [], 'named in docs/architecture.md but not in the tree');
  });

  test('every source folder is in the map', () => {
    const rows = mapRows();
    const listed = (path: string) => rows.some((r) => r.folder === `${path}/`);
    const unlisted: string[] = [];
    for (const top of subfolders('')) {
      if (!doc.includes(`\`${top}/`)) unlisted.push(`${top}/`);
    }
    for (const parent of ['server/src', 'client/src', 'test', 'media', 'docs', 'bench/shardlens_bench']) {
      const parentRow = rows.find((r) => r.folder === `${parent}/`);
      for (const child of subfolders(parent)) {
        const path = `${parent}/${child}`;
        if (!listed(path) && !doc.includes(`\`${path}/\``) && !parentRow?.text.includes(`\`${child}/\``)) {
          unlisted.push(`${path}/`);
        }
      }
    }
    assert.deepEqual(unlisted, [], 'folders missing from the map in docs/architecture.md');
  });
});

describe('citations', () => {
  test('no user-facing file mentions FACTS.md', () => {
    const files = userFacingFiles();
    assert.ok(files.includes('README.md') && files.some((f) => f.startsWith('docs/rules/')));
    const citing = files.filter((file) => readFileSync(join(repoRoot, file), 'utf8').includes('FACTS.md'));
    assert.deepEqual(citing, [], 'cite the primary source (paper, PyTorch docs, data sheet) instead');
  });
});

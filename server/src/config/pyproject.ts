// Finds the pyproject.toml that governs a file (the nearest one above it, as Ruff does)
// and caches its parsed `[tool.shardlens]` section by path and modification time.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { settingsFromPyproject, type PyprojectSettings } from './settings';

interface CacheEntry {
  mtimeMs: number;
  value: PyprojectSettings & { path: string };
}

const cache = new Map<string, CacheEntry>();

/** The nearest pyproject.toml at or above `startDir`, stopping at `stopAt` (inclusive) or the root. */
export function findPyproject(
  startDir: string,
  stopAt?: string,
  /** Folder → what this lookup found from it, shared by the lookups of one CLI run. */
  known?: Map<string, string | undefined>,
): string | undefined {
  const visited: string[] = [];
  let dir = startDir;
  let found: string | undefined;
  for (;;) {
    if (known?.has(dir)) {
      found = known.get(dir);
      break;
    }
    visited.push(dir);
    const candidate = join(dir, 'pyproject.toml');
    try {
      if (statSync(candidate).isFile()) {
        found = candidate;
        break;
      }
    } catch {
      // not here; keep walking up
    }
    const parent = dirname(dir);
    if ((stopAt && dir === stopAt) || parent === dir) break;
    dir = parent;
  }
  for (const folder of visited) known?.set(folder, found);
  return found;
}

/** Reads `[tool.shardlens]` for a file, or undefined when no pyproject.toml governs it. */
export function loadPyprojectFor(
  filePath: string,
  stopAt?: string,
  known?: Map<string, string | undefined>,
): (PyprojectSettings & { path: string }) | undefined {
  const path = findPyproject(dirname(filePath), stopAt, known);
  if (!path) return undefined;
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
  const cached = cache.get(path);
  if (cached && cached.mtimeMs === mtimeMs) return cached.value;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { path, settings: {}, error: `cannot read ${path}: ${(error as Error).message}` };
  }
  const parsed = settingsFromPyproject(text);
  // Name the file in the error: the user may have several pyproject.toml files.
  const value = {
    path,
    ...parsed,
    ...(parsed.error && { error: parsed.error.replace(/^pyproject\.toml/, path) }),
  };
  cache.set(path, { mtimeMs, value });
  return value;
}

/** Forgets cached pyproject files (called when the client reports file changes). */
export function clearPyprojectCache(): void {
  cache.clear();
}

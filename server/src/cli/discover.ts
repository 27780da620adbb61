// Finds the Python files the CLI checks: recursive discovery under each path, skipping
// .git, virtual environments, node_modules and configured glob excludes; unreadable files
// and folders are reported and skipped, never fatal.
import { readdirSync, statSync, existsSync, realpathSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const SKIPPED_DIRECTORIES = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.nox',
  '.mypy_cache',
  '.ruff_cache',
  '.pytest_cache',
  'site-packages',
  '.eggs',
]);

/** Converts a glob (`**`, `*`, `?`) into a regular expression over `/`-separated paths. */
export function globToRegExp(glob: string): RegExp {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === '*' && glob[i + 1] === '*') {
      pattern += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') pattern += '[^/]*';
    else if (char === '?') pattern += '[^/]';
    else pattern += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A pattern without a slash matches a name at any depth, as in .gitignore.
  return glob.includes('/') ? new RegExp(`^${pattern}(?:/.*)?$`) : new RegExp(`(?:^|/)${pattern}(?:/.*)?$`);
}

/** The result of discovery: files to check and problems to report. */
export interface Discovery {
  files: string[];
  errors: string[];
}

/** Lists `.py` files under `paths` (files given explicitly are kept whatever their suffix). */
export function discoverPythonFiles(input: { paths: string[]; cwd: string; exclude: string[] }): Discovery {
  const excludes = input.exclude.map(globToRegExp);
  const files: string[] = [];
  const errors: string[] = [];
  const isExcluded = (path: string) => {
    const rel = relative(input.cwd, path).split(sep).join('/');
    return excludes.some((re) => re.test(rel));
  };
  // NOTE: real paths of the folders already listed: a symlink back up the tree (or two
  // paths naming one folder) would otherwise list the same files again, dozens of times.
  const visited = new Set<string>();
  const seenFiles = new Set<string>();
  for (const given of input.paths) {
    const start = resolve(input.cwd, given);
    if (!existsSync(start)) {
      errors.push(`${given}: no such file or directory`);
      continue;
    }
    const stack = [start];
    while (stack.length) {
      const path = stack.pop()!;
      let stats;
      try {
        stats = statSync(path);
      } catch (error) {
        errors.push(
          `${relative(input.cwd, path) || path}: cannot read (${(error as NodeJS.ErrnoException).code ?? error})`,
        );
        continue;
      }
      if (stats.isFile()) {
        if ((path === start || path.endsWith('.py')) && !isExcluded(path) && !seenFiles.has(path)) {
          seenFiles.add(path);
          files.push(path);
        }
        continue;
      }
      if (!stats.isDirectory() || isExcluded(path)) continue;
      if (path !== start && (SKIPPED_DIRECTORIES.has(pathName(path)) || existsSync(join(path, 'pyvenv.cfg'))))
        continue;
      let names: string[];
      try {
        const real = realpathSync(path);
        if (visited.has(real)) continue;
        visited.add(real);
        names = readdirSync(path).sort().reverse();
      } catch (error) {
        errors.push(
          `${relative(input.cwd, path) || path}: cannot read directory (${(error as NodeJS.ErrnoException).code ?? error})`,
        );
        continue;
      }
      for (const name of names) stack.push(join(path, name));
    }
  }
  return { files, errors };
}

function pathName(path: string): string {
  return path.slice(path.lastIndexOf(sep) + 1);
}

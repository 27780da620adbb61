// Lists the Python files under a folder, recursively, in directory order (none when it is missing).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function pythonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return pythonFiles(path);
    return name.endsWith('.py') ? [path] : [];
  });
}

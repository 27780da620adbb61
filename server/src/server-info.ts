// What the server says about itself in the log and in `serverInfo`: its version (from the
// shipped package.json, the one source of the version) and the grammar it loads (from the
// shipped grammars/VERSIONS), read once from the extension folder.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The server's version and grammar description; `unknown` when a file cannot be read. */
export interface ServerInfo {
  version: string;
  grammar: string;
}

/** Reads the version and grammar line under `root` (the extension or repository folder). */
export function readServerInfo(root: string): ServerInfo {
  let version = 'unknown';
  let grammar = 'unknown grammar';
  try {
    const parsed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof parsed.version === 'string') version = parsed.version;
  } catch {
    // Not shipped beside the server (an unusual layout): say so in the log rather than fail.
  }
  try {
    const line = readFileSync(join(root, 'grammars', 'VERSIONS'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('grammar:'));
    if (line) grammar = line.slice('grammar:'.length).trim();
  } catch {
    // As above.
  }
  return { version, grammar };
}

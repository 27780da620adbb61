// Contracts between parts that drift apart silently: rule codes and their docs pages,
// settings contributed in package.json and the settings the server and client read (with
// equal defaults), and commands contributed and commands registered.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { rules } from '../../server/src/rules/index';
import { defaultSettings, mergeSettings, settingsFromEditor } from '../../server/src/config/settings';
import { repoRoot } from '../helpers/paths';

interface ContributedSetting {
  default?: unknown;
  type?: string;
}
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const contributed: Record<string, ContributedSetting> = manifest.contributes.configuration.properties;
const contributedKeys = Object.keys(contributed);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}
const clientFiles = sources(join(repoRoot, 'client', 'src')).map((path) => ({
  path: relative(repoRoot, path),
  text: readFileSync(path, 'utf8'),
}));

/** The string value of a literal (`'x'`) or of a `const NAME = 'x'` declared in the same file. */
function resolveString(expression: string, fileText: string): string | undefined {
  const literal = /^(['"])([^'"]*)\1$/.exec(expression.trim());
  if (literal) return literal[2];
  const constant = new RegExp(`const\\s+${expression.trim()}\\s*=\\s*(['"])([^'"]*)\\1`).exec(fileText);
  return constant?.[2];
}

/**
 * The dotted keys `settingsFromEditor` reads from the `shardlens` section, found by giving
 * it a proxy that records every property path read (leaves only).
 */
function keysReadBySettingsFromEditor(): string[] {
  const read = new Set<string>();
  const proxy = (path: string): object =>
    new Proxy(
      {},
      {
        get(_target, key) {
          if (typeof key !== 'string') return undefined;
          const full = path ? `${path}.${key}` : key;
          read.add(full);
          return proxy(full);
        },
      },
    );
  settingsFromEditor(proxy(''));
  const all = [...read];
  return all.filter((key) => !all.some((other) => other.startsWith(`${key}.`))).sort();
}

/** package.json defaults as VS Code would send the `shardlens` section (nested objects). */
function contributedDefaultsSection(keys: string[]): Record<string, unknown> {
  const section: Record<string, unknown> = {};
  for (const key of keys) {
    const parts = key.replace(/^shardlens\./, '').split('.');
    let node = section;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1]] = contributed[key].default;
  }
  return section;
}

describe('contracts', () => {
  test('every rule has docs/rules/CODE.md and every docs page has a rule', () => {
    const docsDir = join(repoRoot, 'docs', 'rules');
    const pages = existsSync(docsDir)
      ? readdirSync(docsDir)
          .filter((n) => n.endsWith('.md'))
          .map((n) => n.slice(0, -3))
      : [];
    const codes = rules.map((r) => r.code);
    assert.ok(codes.length > 0);
    assert.deepEqual(
      codes.filter((c) => !pages.includes(c)),
      [],
      'rules without a docs page',
    );
    assert.deepEqual(
      pages.filter((p) => !codes.includes(p)),
      [],
      'docs pages without a rule',
    );
  });

  test('rule codes are unique, in code order, and follow SLnnn by family', () => {
    const codes = rules.map((r) => r.code);
    assert.equal(new Set(codes).size, codes.length);
    assert.deepEqual([...codes].sort(), codes);
    const family: Record<string, string> = {
      '1': 'sync',
      '2': 'layout',
      '3': 'memory',
      '4': 'distributed',
      '5': 'pipeline',
    };
    for (const rule of rules) {
      assert.match(rule.code, /^SL[1-5]\d\d$/);
      assert.equal(rule.category, family[rule.code[2]], rule.code);
      assert.match(rule.name, /^[a-z0-9]+(-[a-z0-9]+)*$/, rule.code);
    }
  });

  test('every setting the server reads is contributed in package.json, and vice versa', () => {
    const serverKeys = keysReadBySettingsFromEditor().map((k) => `shardlens.${k}`);
    assert.ok(serverKeys.includes('shardlens.diagnostics.debounceMs'), serverKeys.join(', '));
    assert.deepEqual(
      serverKeys.filter((k) => !contributedKeys.includes(k)),
      [],
      'read by settingsFromEditor but not in package.json',
    );
    // Keys the server does not read must be read by the client (or by vscode-languageclient).
    const clientOnly = contributedKeys.filter((k) => !serverKeys.includes(k));
    const unread = clientOnly.filter((key) => {
      if (key === 'shardlens.trace.server')
        return !clientFiles.some((f) => /new LanguageClient\(\s*'shardlens'/.test(f.text));
      const tail = key.replace(/^shardlens\./, '');
      return !clientFiles.some((f) => f.text.includes(`'${tail}'`) || f.text.includes(`'${key}'`));
    });
    assert.deepEqual(unread, [], 'contributed but read by nobody');
  });

  test('every setting the client reads is contributed in package.json', () => {
    const problems: string[] = [];
    let found = 0;
    for (const file of clientFiles) {
      const sections = [...file.text.matchAll(/getConfiguration\(\s*([^,)]+)/g)]
        .map((m) => resolveString(m[1], file.text))
        .filter((s): s is string => !!s);
      if (sections.length === 0) continue;
      for (const m of file.text.matchAll(/\.(?:get|inspect)(?:<[^>]*>)?\(\s*(['"])([\w.]+)\1/g)) {
        found++;
        const candidates = sections.map((s) => `${s}.${m[2]}`);
        if (!candidates.some((c) => contributedKeys.includes(c)))
          problems.push(`${file.path}: ${candidates.join(' or ')}`);
      }
    }
    assert.ok(found > 0, 'no configuration reads found in client/src: the scanner is broken');
    assert.deepEqual(problems, []);
  });

  test('package.json defaults equal defaultSettings()', () => {
    const serverKeys = keysReadBySettingsFromEditor().map((k) => `shardlens.${k}`);
    for (const key of serverKeys) {
      assert.ok('default' in contributed[key], `${key} has no default`);
      const alone = settingsFromEditor(contributedDefaultsSection([key]));
      assert.notDeepEqual(
        alone,
        {},
        `${key}: its default ${JSON.stringify(contributed[key].default)} is ignored`,
      );
    }
    assert.deepEqual(
      mergeSettings(settingsFromEditor(contributedDefaultsSection(serverKeys))),
      defaultSettings(),
    );
  });

  test('client-side fallbacks in .get(key, fallback) equal the package.json defaults', () => {
    const problems: string[] = [];
    for (const file of clientFiles) {
      const section = [...file.text.matchAll(/getConfiguration\(\s*([^,)]+)/g)]
        .map((m) => resolveString(m[1], file.text))
        .find(Boolean);
      if (!section) continue;
      for (const m of file.text.matchAll(/\.get(?:<[^>]*>)?\(\s*'([\w.]+)',\s*([^)]+)\)/g)) {
        const key = `${section}.${m[1]}`;
        let fallback: unknown;
        try {
          fallback = JSON.parse(m[2].trim().replace(/'/g, '"'));
        } catch {
          continue;
        }
        if (key in contributed && JSON.stringify(contributed[key].default) !== JSON.stringify(fallback))
          problems.push(
            `${file.path}: ${key} falls back to ${m[2]}, package.json says ${JSON.stringify(contributed[key].default)}`,
          );
      }
    }
    assert.deepEqual(problems, []);
  });

  test('every contributed command is registered by the client, and vice versa', () => {
    const contributedCommands: string[] = manifest.contributes.commands.map(
      (c: { command: string }) => c.command,
    );
    const registered = clientFiles.flatMap((file) =>
      [...file.text.matchAll(/registerCommand\(\s*([^,)]+)/g)]
        .map((m) => resolveString(m[1], file.text))
        .filter((id): id is string => !!id),
    );
    assert.ok(registered.length > 0);
    assert.deepEqual([...contributedCommands].sort(), [...new Set(registered)].sort());
    const menus: Record<string, { command: string }[]> = manifest.contributes.menus ?? {};
    for (const [where, items] of Object.entries(menus))
      for (const item of items)
        assert.ok(contributedCommands.includes(item.command), `${where}: ${item.command}`);
  });
});

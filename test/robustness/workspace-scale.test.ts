// Workspace scale: with a 20,000-file workspace folder the server touches only the open
// document, the files it imports and configuration on its path, never the whole tree.
// Counts the server's file-system calls under the workspace (fs hooked in this process),
// and compares initialize + first diagnostics with an empty workspace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileUri, startInProcess } from '../helpers/lsp-client';
import { generateTrainingFile } from '../perf/generate';

const HOOKED = [
  'readFileSync',
  'statSync',
  'lstatSync',
  'existsSync',
  'readdirSync',
  'opendirSync',
  'accessSync',
  'openSync',
  'watch',
] as const;

/** Wraps fs functions to record every path under `prefix`; returns the log and an undo. */
function hookFs(prefix: string): { calls: string[]; restore: () => void } {
  const calls: string[] = [];
  const fsAny = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const name of HOOKED) {
    const original = fsAny[name];
    originals.set(name, original);
    fsAny[name] = function (this: unknown, ...args: unknown[]) {
      const path = String(args[0]);
      if (path.startsWith(prefix)) calls.push(`${name} ${path.slice(prefix.length)}`);
      return original.apply(this, args);
    };
  }
  return {
    calls,
    restore: () => {
      for (const [name, original] of originals) fsAny[name] = original;
    },
  };
}

const MAIN = [
  'import torch',
  'from models.net import Net',
  '',
  'model = Net().cuda()',
  'for x in loader:',
  '    loss = model(x).sum()',
  '    loss.backward()',
  '    opt.step()',
  '    print(loss.item())',
  '',
].join('\n');

async function openAndDiagnose(workspace: string): Promise<{ ms: number; codes: string[] }> {
  const { client, dispose } = startInProcess();
  try {
    const started = Date.now();
    await client.initialize({ settings: { diagnostics: { debounceMs: 0 } }, workspaceFolders: [workspace] });
    const uri = fileUri(join(workspace, 'main.py'));
    await client.open(uri, MAIN);
    const diagnostics = await client.diagnostics(uri, 1, 0, 30_000);
    await client.hover(uri, { line: 3, character: 9 });
    return { ms: Date.now() - started, codes: diagnostics.map((d) => String(d.code)) };
  } finally {
    await dispose();
  }
}

test(
  'a 20,000-file workspace is not scanned: only the open file, its imports and config are touched',
  { timeout: 170_000 },
  async () => {
    const big = mkdtempSync(join(tmpdir(), 'shardlens-ws-big-'));
    const empty = mkdtempSync(join(tmpdir(), 'shardlens-ws-empty-'));
    try {
      const filler = generateTrainingFile({ lines: 30, seed: 4 });
      for (let d = 0; d < 200; d++) {
        const folder = join(big, `pkg${d}`);
        mkdirSync(folder);
        for (let f = 0; f < 100; f++) writeFileSync(join(folder, `mod${f}.py`), filler);
      }
      mkdirSync(join(big, 'models'));
      writeFileSync(join(big, 'models', '__init__.py'), '');
      writeFileSync(
        join(big, 'models', 'net.py'),
        'import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n',
      );
      writeFileSync(join(big, 'pyproject.toml'), '[tool.shardlens]\nignore = ["SL999"]\n');
      writeFileSync(join(big, 'main.py'), MAIN);
      writeFileSync(join(empty, 'main.py'), MAIN);

      await openAndDiagnose(empty); // warm-up: grammar load and JIT
      const baseline = await openAndDiagnose(empty);
      const hook = hookFs(big);
      let result;
      try {
        result = await openAndDiagnose(big);
      } finally {
        hook.restore();
      }
      const touched = new Set(hook.calls.map((c) => c.split(' ')[1]));
      assert.ok(
        hook.calls.some((c) => c.endsWith('/pyproject.toml')),
        `the hook sees the server's reads (pyproject.toml lookup): ${hook.calls.join(', ')}`,
      );
      assert.deepEqual(
        hook.calls.filter((c) => /^(readdirSync|opendirSync|watch) /.test(c)),
        [],
        'no directory listing',
      );
      assert.ok(
        [...touched].every((p) => !/^\/pkg\d+\//.test(p)),
        `files outside the import graph were touched: ${[...touched].filter((p) => /^\/pkg/.test(p)).slice(0, 5)}`,
      );
      assert.ok(touched.size <= 20, `touched ${touched.size} paths: ${[...touched].join(', ')}`);
      assert.deepEqual(result.codes, baseline.codes, 'same diagnostics as in an empty workspace');
      assert.ok(
        result.ms <= baseline.ms * 3 + 1_000,
        `initialize + first diagnostics took ${result.ms} ms vs ${baseline.ms} ms in an empty workspace`,
      );
    } finally {
      rmSync(big, { recursive: true, force: true });
      rmSync(empty, { recursive: true, force: true });
    }
  },
);

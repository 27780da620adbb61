// Editor features over a real JSON-RPC connection: inlay-hint and code-lens refreshes when
// settings change, short inlay labels with tooltips, the finding hover, docs links (shipped
// page through the client's command, or hosted), fix-all, "Disable for this line / file",
// `ignore-file` comments, the interpreter's torch version, and what the server logs.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver';
import {
  startInProcess,
  fileUri,
  waitFor,
  type InProcessPair,
  type InitializeOptions,
} from '../helpers/lsp-client';
import { hotLoopSource } from '../helpers/snippets';
import { fixturesDir } from '../helpers/paths';

const scratch = mkdtempSync(join(tmpdir(), 'shardlens-editor-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;
const newUri = (name = 'train.py') => fileUri(join(scratch, `doc${counter++}`, name));
const everything = { start: { line: 0, character: 0 }, end: { line: 10_000, character: 0 } };
const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.code);

async function withServer(body: (pair: InProcessPair) => Promise<void>, options: InitializeOptions = {}) {
  const pair = startInProcess();
  await pair.client.initialize(options);
  try {
    await body(pair);
  } finally {
    await pair.dispose();
  }
}

const MODEL = readFileSync(join(fixturesDir, 'models', 'gpt2_model.py'), 'utf8');
const AMP = `import torch
from torch.utils.checkpoint import checkpoint


def fit(model, optimizer, loader, block):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        with torch.cuda.amp.autocast(dtype=torch.float16):
            h = checkpoint(block, x)
            loss = model(h, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        print(loss.item())
`;

describe('editor features over LSP', () => {
  test('a settings change sends workspace/inlayHint/refresh and workspace/codeLens/refresh, and hints follow it', () =>
    withServer(async ({ client }) => {
      const uri = newUri('model.py');
      await client.open(uri, MODEL);
      await client.diagnostics(uri, 1);
      const before = (await client.inlayHints(uri, everything)) ?? [];
      assert.ok(before.length > 0);
      const tooltipBefore = (before[0].tooltip as { value: string }).value;
      assert.match(tooltipBefore, /H100/);
      const refreshesBefore = client.refreshes.length;
      await client.changeSettings({ cluster: { gpu: 'a100-40gb' } });
      await waitFor('both refreshes', () =>
        client.refreshes.length >= refreshesBefore + 2 ? true : undefined,
      );
      assert.deepEqual(client.refreshes.slice(refreshesBefore).sort(), [
        'workspace/codeLens/refresh',
        'workspace/inlayHint/refresh',
      ]);
      const afterChange = (await client.inlayHints(uri, everything)) ?? [];
      const tooltipAfter = (afterChange[0].tooltip as { value: string }).value;
      assert.match(tooltipAfter, /A100/);
      assert.notEqual(tooltipAfter, tooltipBefore);
    }));

  test('a client without refresh support is not sent refresh requests', () =>
    withServer(
      async ({ client }) => {
        await client.changeSettings({ estimate: { precision: 'fp32' } });
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(client.refreshes, []);
      },
      { refreshSupport: false },
    ));

  test('inlay labels are at most 43 characters and the tooltip has the full text', () =>
    withServer(async ({ client }) => {
      const uri = newUri('model.py');
      await client.open(uri, MODEL);
      for (const hint of (await client.inlayHints(uri, everything)) ?? []) {
        const label = String(hint.label);
        assert.ok(label.length <= 43, label);
        const tooltip = (hint.tooltip as { value: string }).value;
        assert.match(tooltip, /Assumptions: /);
        assert.ok(tooltip.length > label.length, tooltip);
      }
    }));

  test('the finding hover explains the short message and links the docs through the client command', () =>
    withServer(
      async ({ client }) => {
        const uri = newUri();
        await client.open(uri, hotLoopSource());
        const [d] = await client.diagnostics(uri, 1);
        assert.ok(String(d.message).length < 100, String(d.message));
        assert.equal(
          d.codeDescription?.href,
          `command:shardlens.openRuleDocs?${encodeURIComponent('["SL101"]')}`,
        );
        const hover = await client.hover(uri, d.range.start);
        const value = (hover?.contents as { value: string }).value;
        assert.match(value, /\*\*SL101\*\* `item-in-hot-loop`: `\.item\(\)` on `loss` waits for the GPU/);
        assert.ok(value.includes(`[SL101 documentation](${d.codeDescription?.href})`));
      },
      { opensRuleDocs: true },
    ));

  test('with shardlens.docs.baseUrl the docs link is the hosted page', () =>
    withServer(
      async ({ client }) => {
        const uri = newUri();
        await client.open(uri, hotLoopSource());
        const [d] = await client.diagnostics(uri, 1);
        assert.equal(d.codeDescription?.href, 'https://example.org/shardlens/rules/SL101.md');
      },
      { settings: { docs: { baseUrl: 'https://example.org/shardlens/rules/' } }, opensRuleDocs: true },
    ));

  test('"Disable SL101 for this file" adds an ignore-file comment that silences only SL101', () =>
    withServer(async ({ client }) => {
      const uri = newUri();
      await client.open(uri, AMP);
      const diagnostics = await client.diagnostics(uri, 1);
      assert.ok(codes(diagnostics).includes('SL101'), JSON.stringify(codes(diagnostics)));
      const sl101 = diagnostics.find((d) => d.code === 'SL101')!;
      const actions = (await client.codeActions(uri, sl101.range, [sl101])) ?? [];
      assert.deepEqual(
        actions.map((a) => a.title).filter((t) => t.startsWith('Disable')),
        ['Disable SL101 for this line', 'Disable SL101 for this file'],
      );
      const disable = actions.find((a) => a.title === 'Disable SL101 for this file')!;
      const version = await client.applyEdits(uri, disable.edit!.changes![uri]);
      assert.equal(client.document(uri).getText().split('\n')[0], '# shardlens: ignore-file[SL101]');
      const remaining = await client.diagnostics(uri, version);
      assert.ok(!codes(remaining).includes('SL101'));
      assert.ok(codes(remaining).includes('SL504') && codes(remaining).includes('SL302'));
      // A bare ignore-file silences everything.
      const bare = await client.insert(uri, { line: 0, character: 0 }, '# shardlens: ignore-file\n');
      assert.deepEqual(await client.diagnostics(uri, bare), []);
    }));

  test('source.fixAll.shardlens applies every safe fix in one edit, and needs a known torch for GradScaler', () =>
    withServer(
      async ({ client }) => {
        const uri = newUri();
        await client.open(uri, AMP);
        const diagnostics = await client.diagnostics(uri, 1);
        const onSave = (await client.codeActions(uri, everything, [], ['source.fixAll.shardlens'])) ?? [];
        assert.equal(onSave.length, 1, JSON.stringify(onSave));
        assert.equal(onSave[0].kind, 'source.fixAll.shardlens');
        // Quick-fix requests do not get it, source requests do.
        const quick = (await client.codeActions(uri, everything, diagnostics, ['quickfix'])) ?? [];
        assert.ok(quick.every((a) => a.kind === 'quickfix'));
        assert.equal(((await client.codeActions(uri, everything, [], ['source'])) ?? []).length, 1);
        const version = await client.applyEdits(uri, onSave[0].edit!.changes![uri]);
        const text = client.document(uri).getText();
        assert.match(text, /checkpoint\(block, x, use_reentrant=False\)/);
        // The torch version is unknown: the torch.amp spellings need 2.3 (GradScaler) and 1.13
        // (autocast), so fix-all leaves them to the quick fixes, whose titles say so.
        assert.match(text, /scaler = torch\.cuda\.amp\.GradScaler\(\)/);
        assert.match(text, /with torch\.cuda\.amp\.autocast\(dtype=torch\.float16\):/);
        const left = codes(await client.diagnostics(uri, version));
        assert.deepEqual(left.sort(), ['SL101', 'SL504', 'SL504']);
        // Once the interpreter reports torch 2.5, fix-all rewrites both.
        await client.connection.sendNotification('shardlens/environment', {
          interpreter: '/usr/bin/python3',
          torchVersion: '2.5.1',
        });
        await waitFor('PyTorch logged', () => client.messages.find((m) => m.includes('PyTorch 2.5.1 found')));
        const second = await waitForFixAll(client, uri);
        await client.applyEdits(uri, second.edit!.changes![uri]);
        assert.match(client.document(uri).getText(), /scaler = torch\.amp\.GradScaler\("cuda"\)/);
        assert.match(
          client.document(uri).getText(),
          /with torch\.amp\.autocast\("cuda", dtype=torch\.float16\):/,
        );
      },
      { settings: {} },
    ));

  test('an interpreter with an older torch silences SL504; a setting overrides the probe', () =>
    withServer(async ({ client }) => {
      const uri = newUri();
      await client.open(uri, AMP);
      assert.ok(codes(await client.diagnostics(uri, 1)).includes('SL504'));
      const seen = client.publishes.length;
      await client.connection.sendNotification('shardlens/environment', {
        interpreter: 'python3',
        torchVersion: '2.1.2',
      });
      await waitFor('republished diagnostics without SL504', () => {
        const latest = client.publishes.filter((p) => p.uri === uri && p.sequence >= seen).pop();
        return latest && !codes(latest.diagnostics).includes('SL504') ? true : undefined;
      });
      const again = client.publishes.length;
      await client.changeSettings({ torchVersion: '2.4' });
      await waitFor('SL504 back with the explicit setting', () => {
        const latest = client.publishes.filter((p) => p.uri === uri && p.sequence >= again).pop();
        return latest && codes(latest.diagnostics).includes('SL504') ? true : undefined;
      });
    }));

  test('the log names the server version, the grammar and configuration problems', () => {
    const folder = join(scratch, `project${counter++}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'pyproject.toml'), '[tool.shardlens\nselect = [');
    return withServer(
      async ({ client }) => {
        const version = (
          JSON.parse(readFileSync(join(fixturesDir, '..', '..', 'package.json'), 'utf8')) as {
            version: string;
          }
        ).version;
        await waitFor('grammar log', () =>
          client.messages.find((m) => m.startsWith('Python grammar loaded in')),
        );
        assert.ok(client.messages.some((m) => m.startsWith(`Shardlens language server ${version} starting`)));
        assert.ok(client.messages.some((m) => /tree-sitter-python \d+\.\d+/.test(m)));
        await client.open(fileUri(join(folder, 'train.py')), hotLoopSource());
        await waitFor('the configuration problem in the log', () =>
          client.messages.find((m) => /^Configuration problem: .*pyproject\.toml is not valid TOML/.test(m)),
        );
      },
      { workspaceFolders: [folder] },
    );
  });
});

async function waitForFixAll(client: InProcessPair['client'], uri: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const actions = (await client.codeActions(uri, everything, [], ['source.fixAll.shardlens'])) ?? [];
    if (actions.length === 1) return actions[0];
    if (Date.now() > deadline) throw new Error('no fix-all action after the torch version arrived');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

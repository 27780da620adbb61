// The language server over a real JSON-RPC connection in this process: capabilities,
// diagnostics and their updates on incremental edits, UTF-16 columns, CRLF, code actions,
// settings from the editor and pyproject.toml, debounce, bad input and cancellation.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiagnosticSeverity, TextDocumentSyncKind, type Diagnostic } from 'vscode-languageserver';
import { startInProcess, fileUri, waitFor, type InProcessPair } from '../helpers/lsp-client';
import { hotLoopSource } from '../helpers/snippets';
import { generateTrainingFile } from '../perf/generate';
import { processParseCounts } from '../../server/src/parse/incremental';

const HOT_LOOP = hotLoopSource();
const ITEM_LINE = 8;
const ITEM_COLUMN = HOT_LOOP.split('\n')[ITEM_LINE].indexOf('loss.item()');

const scratch = mkdtempSync(join(tmpdir(), 'shardlens-lsp-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;
/** A URI in a folder with no pyproject.toml (the files need not exist). */
const newUri = (name = 'train.py') => fileUri(join(scratch, `doc${counter++}`, name));

/** Starts a server and client with `settings`; the caller disposes of it. */
async function started(settings: Record<string, unknown> = {}, workspaceFolders: string[] = []) {
  const pair = startInProcess();
  const result = await pair.client.initialize({ settings, workspaceFolders });
  return { ...pair, result };
}

/** Runs `body` with a fresh server, always disposing of it. */
async function withServer(
  body: (pair: InProcessPair) => Promise<void>,
  settings: Record<string, unknown> = {},
  workspaceFolders: string[] = [],
): Promise<void> {
  const pair = await started(settings, workspaceFolders);
  try {
    await body(pair);
  } finally {
    await pair.dispose();
  }
}

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.code);

describe('language server in process', () => {
  test('initialize announces incremental sync, hover and quick fixes', async () => {
    const { result, dispose } = await started();
    try {
      assert.equal(result.capabilities.textDocumentSync, TextDocumentSyncKind.Incremental);
      assert.equal(result.capabilities.hoverProvider, true);
      assert.deepEqual(result.capabilities.codeActionProvider, {
        codeActionKinds: ['quickfix', 'source.fixAll.shardlens'],
      });
      assert.equal(result.serverInfo?.name, 'shardlens');
    } finally {
      await dispose();
    }
  });

  test('didOpen publishes SL101 for .item() in a hot loop', () =>
    withServer(async ({ client }) => {
      const uri = newUri();
      await client.open(uri, HOT_LOOP);
      const diagnostics = await client.diagnostics(uri, 1);
      assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
      const [d] = diagnostics;
      assert.equal(d.code, 'SL101');
      assert.equal(d.source, 'shardlens');
      assert.equal(d.severity, DiagnosticSeverity.Warning);
      assert.match(d.codeDescription?.href ?? '', /^file:\/\/.*\/docs\/rules\/SL101\.md$/);
      assert.deepEqual(d.range, {
        start: { line: ITEM_LINE, character: ITEM_COLUMN },
        end: { line: ITEM_LINE, character: ITEM_COLUMN + 'loss.item()'.length },
      });
      assert.match(String(d.message), /\.item\(\)/);
    }));

  test('the first large torch document: the keystroke warm-up runs on a copy and publishes nothing of its own', () =>
    withServer(async ({ client }) => {
      const text = generateTrainingFile({ lines: 1_200, seed: 4 });
      const uri = newUri('large.py');
      await client.open(uri, text);
      const diagnostics = await client.diagnostics(uri, 1);
      assert.ok(diagnostics.length > 10, `${diagnostics.length} diagnostics`);
      assert.ok(
        client.messages.some((m) =>
          /^Warmed up the keystroke analysis on a copy of large\.py: \d+ versions/.test(m),
        ),
        client.messages.join('\n'),
      );
      assert.deepEqual(
        client.publishes.map((p) => `${p.uri}@${p.version}`),
        [`${uri}@1`],
        'only the document itself is published, once',
      );
      // The same text in a new document (no warm-up any more) gets the same diagnostics.
      const again = newUri('again.py');
      await client.open(again, text);
      assert.deepEqual(await client.diagnostics(again, 1), diagnostics);
      assert.equal(client.messages.filter((m) => m.startsWith('Warmed up')).length, 1, 'once per server');
    }));

  test('incremental changes move the finding, then deleting the loop clears it', () =>
    withServer(async ({ client }) => {
      const uri = newUri();
      await client.open(uri, HOT_LOOP);
      assert.equal((await client.diagnostics(uri, 1))[0].range.start.line, ITEM_LINE);

      const inserted = await client.insert(uri, { line: 1, character: 0 }, 'import os\nimport sys\n');
      const moved = await client.diagnostics(uri, inserted);
      assert.deepEqual(codes(moved), ['SL101']);
      assert.equal(moved[0].range.start.line, ITEM_LINE + 2);
      assert.equal(moved[0].range.start.character, ITEM_COLUMN);

      // Delete from the `for` line to the end of the file: the hot loop is gone.
      const forLine = ITEM_LINE + 2 - 4;
      const lines = client.document(uri).lineCount;
      const deleted = await client.change(uri, [
        {
          range: { start: { line: forLine, character: 0 }, end: { line: lines - 1, character: 0 } },
          text: '    pass\n',
        },
      ]);
      assert.match(client.document(uri).getText(), /def train\(model, loader, optimizer\):\n {4}pass\n$/);
      assert.deepEqual(await client.diagnostics(uri, deleted), []);
    }));

  test('a client that sends whole texts (full sync) gets incremental re-parses and the diagnostics of a fresh open', () =>
    withServer(async ({ client }) => {
      const uri = newUri();
      const original = generateTrainingFile({ lines: 400, seed: 7 });
      await client.open(uri, original);
      await client.diagnostics(uri, 1);
      const lines = original.split('\n');
      const at = lines.findIndex((line) => /^ {8}\w+ = /.test(line));
      assert.ok(at > 0, 'the generated file has an indented assignment');
      const withLine = (line: string) => [...lines.slice(0, at + 1), line, ...lines.slice(at + 1)].join('\n');
      // Error-free versions, then one with a syntax error, then error-free again.
      const versions = [
        withLine('        scale = loss.item()'),
        withLine('        scale = loss.item('),
        withLine('        scale = loss.item() + 1'),
        original.replace('import torch', 'import torch\nimport os'),
      ];
      for (const [i, text] of versions.entries()) {
        const before = { ...processParseCounts };
        const version = await client.replace(uri, text);
        const published = await client.diagnostics(uri, version);
        const parses = {
          fresh: processParseCounts.fresh - before.fresh,
          reused:
            processParseCounts.incremental + processParseCounts.windows - before.incremental - before.windows,
        };
        // No version is parsed whole afresh: the first is re-parsed from the last tree, the one
        // with the error and the next lowered from their changed chunks (as after ranged changes).
        assert.equal(parses.fresh, 0, `version ${i}: fresh parses`);
        if (i === 0) assert.ok(parses.reused >= 1, `version ${i}: re-parsed from the last tree`);
        const fresh = newUri();
        await client.open(fresh, text);
        assert.deepEqual(published, await client.diagnostics(fresh, 1), `version ${i}: diagnostics`);
        await client.close(fresh);
      }
    }));

  test('columns count UTF-16 code units on a line with non-ASCII and astral characters', () =>
    withServer(async ({ client }) => {
      const line = '        x = "😀é"; print(loss.item())';
      const text = HOT_LOOP.replace('        print(loss.item())', line);
      const column = line.indexOf('loss.item()');
      // The astral character is two UTF-16 units, one code point and four UTF-8 bytes.
      assert.equal([...line.slice(0, column)].length, column - 1);
      const uri = newUri();
      await client.open(uri, text);
      const [d] = await client.diagnostics(uri, 1);
      assert.equal(d?.code, 'SL101');
      assert.deepEqual(d.range, {
        start: { line: ITEM_LINE, character: column },
        end: { line: ITEM_LINE, character: column + 'loss.item()'.length },
      });
    }));

  test('CRLF files get the same positions, and their suppression fix works', () =>
    withServer(async ({ client }) => {
      const uri = newUri();
      await client.open(uri, HOT_LOOP.replace(/\n/g, '\r\n'));
      const diagnostics = await client.diagnostics(uri, 1);
      assert.deepEqual(codes(diagnostics), ['SL101']);
      assert.deepEqual(diagnostics[0].range.start, { line: ITEM_LINE, character: ITEM_COLUMN });
      const actions = (await client.codeActions(uri, diagnostics[0].range, diagnostics)) ?? [];
      const suppress = actions.find((a) => a.title === 'Disable SL101 for this line');
      assert.ok(suppress?.edit?.changes?.[uri], JSON.stringify(actions));
      const version = await client.applyEdits(uri, suppress.edit.changes[uri]);
      assert.equal(
        client.document(uri).getText().split('\r\n')[ITEM_LINE],
        '        print(loss.item())  # shardlens: ignore[SL101]',
      );
      assert.deepEqual(await client.diagnostics(uri, version), []);
    }));

  test('"Disable SL101 for this line" applied and reanalysed leaves no diagnostic', () =>
    withServer(async ({ client }) => {
      const uri = newUri();
      await client.open(uri, HOT_LOOP);
      const diagnostics = await client.diagnostics(uri, 1);
      const actions = (await client.codeActions(uri, diagnostics[0].range, diagnostics)) ?? [];
      const suppress = actions.find((a) => a.title === 'Disable SL101 for this line');
      assert.ok(suppress, `actions: ${actions.map((a) => a.title).join(', ')}`);
      assert.equal(suppress.kind, 'quickfix');
      const edits = suppress.edit?.changes?.[uri];
      assert.ok(edits && edits.length > 0);
      const version = await client.applyEdits(uri, edits);
      assert.match(client.document(uri).getText().split('\n')[ITEM_LINE], /# shardlens: ignore\[SL101\]$/);
      assert.deepEqual(await client.diagnostics(uri, version), []);
    }));

  test('editor settings from workspace/configuration: ignore by prefix, then changed', () =>
    withServer(
      async ({ client }) => {
        const uri = newUri();
        await client.open(uri, HOT_LOOP);
        assert.deepEqual(await client.diagnostics(uri, 1), []);
        const before = client.publishes.length;
        await client.changeSettings({});
        assert.deepEqual(codes(await client.diagnostics(uri, 1, before)), ['SL101']);
      },
      { ignore: ['SL1'] },
    ));

  test('initialization options stay in force when workspace/configuration answers null', async () => {
    const pair = startInProcess();
    try {
      const { client } = pair;
      await client.initialize({ settings: { ignore: ['SL101'] }, configurationAnswer: null });
      // The server asks for refreshes once it has applied the pulled configuration.
      await waitFor('the refresh after the configuration pull', () =>
        client.refreshes.length > 0 ? true : undefined,
      );
      const uri = newUri();
      await client.open(uri, HOT_LOOP);
      assert.deepEqual(codes(await client.diagnostics(uri, 1)), []);
    } finally {
      await pair.dispose();
    }
  });

  test('severity override per code', () =>
    withServer(
      async ({ client }) => {
        const uri = newUri();
        await client.open(uri, HOT_LOOP);
        const [d] = await client.diagnostics(uri, 1);
        assert.equal(d?.code, 'SL101');
        assert.equal(d.severity, DiagnosticSeverity.Error);
        const before = client.publishes.length;
        await client.changeSettings({ severity: { SL101: 'off' } });
        assert.deepEqual(await client.diagnostics(uri, 1, before), []);
      },
      { severity: { SL101: 'error' } },
    ));

  test('select by prefix', () =>
    withServer(
      async ({ client }) => {
        const uri = newUri();
        await client.open(uri, HOT_LOOP);
        assert.deepEqual(await client.diagnostics(uri, 1), []);
        const before = client.publishes.length;
        await client.changeSettings({ select: ['SL1'] });
        assert.deepEqual(codes(await client.diagnostics(uri, 1, before)), ['SL101']);
      },
      { select: ['SL4'] },
    ));

  test('pyproject.toml [tool.shardlens] in a workspace folder applies, and wins over the editor', async () => {
    const folder = mkdtempSync(join(scratch, 'workspace-'));
    const write = (toml: string) => writeFileSync(join(folder, 'pyproject.toml'), toml);
    const uri = fileUri(join(folder, 'pkg', 'train.py'));

    write('[project]\nname = "demo"\n\n[tool.shardlens]\nignore = ["SL101"]\n');
    await withServer(
      async ({ client }) => {
        await client.open(uri, HOT_LOOP);
        assert.deepEqual(await client.diagnostics(uri, 1), []);
      },
      {},
      [folder],
    );

    // The editor ignores SL1 and raises SL101 to error; pyproject says otherwise.
    write('[tool.shardlens]\nignore = []\n\n[tool.shardlens.severity]\nSL101 = "hint"\n');
    await withServer(
      async ({ client }) => {
        await client.open(uri, HOT_LOOP);
        const diagnostics = await client.diagnostics(uri, 1);
        assert.deepEqual(codes(diagnostics), ['SL101']);
        assert.equal(diagnostics[0].severity, DiagnosticSeverity.Hint);
      },
      { ignore: ['SL1'], severity: { SL101: 'error' } },
      [folder],
    );
  });

  test('an invalid pyproject.toml is reported, and editor settings still apply', async () => {
    const folder = mkdtempSync(join(scratch, 'broken-'));
    writeFileSync(join(folder, 'pyproject.toml'), '[tool.shardlens\nselect = [');
    const uri = fileUri(join(folder, 'train.py'));
    await withServer(
      async ({ client }) => {
        await client.open(uri, HOT_LOOP);
        const [d] = await client.diagnostics(uri, 1);
        assert.equal(d?.severity, DiagnosticSeverity.Error);
        // Shown once, not again on every edit.
        const version = await client.insert(uri, { line: 1, character: 0 }, '# edited\n');
        assert.equal((await client.diagnostics(uri, version))[0]?.code, 'SL101');
        const shown = client.shown.filter((m) => /pyproject\.toml is not valid TOML/.test(m));
        assert.equal(shown.length, 1, client.shown.join('\n'));
      },
      { severity: { SL101: 'error' } },
      [folder],
    );
  });

  test('debounce: rapid changes publish for the final version only', () =>
    withServer(
      async ({ client }) => {
        const uri = newUri();
        await client.open(uri, HOT_LOOP);
        await client.diagnostics(uri, 1);
        let version = 1;
        for (let i = 0; i < 10; i++) {
          version = await client.insert(uri, { line: 1, character: 0 }, `# edit ${i}\n`);
        }
        const final = await client.diagnostics(uri, version);
        assert.equal(final[0]?.range.start.line, ITEM_LINE + 10);
        const published = client.publishedVersions(uri);
        assert.deepEqual(
          published.filter((v) => v !== 1),
          [version],
          `published versions: ${published.join(', ')}`,
        );
        // Another round trip, then nothing stale may have arrived after the final version.
        assert.equal(await client.hover(uri, { line: 0, character: 0 }), null);
        const after = client.publishedVersions(uri);
        assert.deepEqual(after.slice(after.indexOf(version)), [version]);
      },
      { diagnostics: { debounceMs: 50 } },
    ));

  test('empty, broken, 5 MB and random-byte files: no crash, the server keeps answering', () =>
    withServer(async ({ client }) => {
      let seed = 42;
      const random = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const bytes = Buffer.from(Array.from({ length: 64 * 1024 }, () => Math.floor(random() * 256)));
      const inputs: [string, string][] = [
        ['empty', ''],
        ['broken', 'import torch\ndef train(:\n    for x in (loader:\n        loss.item(\n  ]] """\n'],
        ['5 MB', `import torch\n${'x = torch.zeros(3).sum().item()  # padding\n'.repeat(130_000)}`],
        ['random bytes', bytes.toString('latin1')],
        ['random utf8', bytes.toString('utf8')],
      ];
      assert.ok(inputs[2][1].length > 5 * 1024 * 1024);
      for (const [name, text] of inputs) {
        const uri = newUri(`${name.replace(/\W/g, '-')}.py`);
        await client.open(uri, text);
        const diagnostics = await client.diagnostics(uri, 1, 0, 30_000);
        assert.ok(Array.isArray(diagnostics), name);
        const hover = await client.hover(uri, { line: 0, character: 0 });
        assert.ok(hover === null || typeof hover === 'object', name);
        const actions = await client.codeActions(
          uri,
          { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          [],
        );
        assert.deepEqual(actions, [], name);
        await client.close(uri);
      }
      assert.deepEqual(
        client.messages.filter((m) => /analysing|rule SL|hover:|code actions:|uncaught/.test(m)),
        [],
      );
      // And it still analyses ordinary files.
      const uri = newUri();
      await client.open(uri, HOT_LOOP);
      assert.deepEqual(codes(await client.diagnostics(uri, 1)), ['SL101']);
    }));

  test('a request cancelled right after it is sent fails with RequestCancelled (-32800)', () =>
    withServer(async ({ client }) => {
      const uri = newUri();
      await client.open(uri, HOT_LOOP);
      await client.diagnostics(uri, 1);
      for (let i = 0; i < 20; i++) {
        const outcome = await client.requestThenCancel('textDocument/hover', {
          textDocument: { uri },
          position: { line: ITEM_LINE, character: ITEM_COLUMN },
        });
        assert.ok('errorCode' in outcome, `attempt ${i}: answered ${JSON.stringify(outcome)}`);
        assert.equal(outcome.errorCode, -32800);
      }
      // Uncancelled requests still succeed.
      const actions = await client.codeActions(
        uri,
        { start: { line: ITEM_LINE, character: 0 }, end: { line: ITEM_LINE, character: 0 } },
        [],
      );
      assert.deepEqual(actions, []);
    }));
});

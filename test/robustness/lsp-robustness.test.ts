// Robustness of the language server over a real JSON-RPC connection: hostile documents
// (deep nesting, random bytes, 5 MB, CRLF/BOM/astral, mutated code) never crash it and
// every request is answered; 1,000 random incremental edits end in the same diagnostics
// as a fresh open; a cancelled request answers RequestCancelled; the spawned bundle copes too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver';
import { LspClient, fileUri, spawnServer, startInProcess } from '../helpers/lsp-client';
import { wasmDir } from '../helpers/paths';
import { RandomEditor } from '../perf/edits';
import { generateTrainingFile } from '../perf/generate';
import { awkwardText, deepInputs, mutatedFiles, randomByteTexts } from './inputs';

const FAST = { diagnostics: { debounceMs: 0 } };
const REQUEST_TIMEOUT_MS = 20_000;

function hostileDocuments(): Record<string, string> {
  const line = 'x = torch.zeros(8).view(2, 4)  # padding to make a long line of text\n';
  const documents: Record<string, string> = {
    'five-megabytes': `import torch\n${line.repeat(Math.ceil((5 * 1024 * 1024) / line.length))}`,
    awkward: awkwardText().text,
    empty: '',
  };
  for (const [name, text] of Object.entries(deepInputs())) if (name !== 'nested ifs') documents[name] = text;
  documents['nested ifs'] = deepInputs(1_400)['nested ifs'];
  randomByteTexts(4, 3).forEach((text, i) => (documents[`bytes-${i}`] = text));
  mutatedFiles(6, 31).forEach((text, i) => (documents[`mutated-${i}`] = text));
  return documents;
}

function within<T>(what: string, promise: Promise<T>, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
    }),
  ]);
}

/** Sends every request the server offers at a few positions; each must be answered without an error. */
async function askEverything(client: LspClient, uri: string, text: string): Promise<void> {
  const lines = text.split(/\r\n|\r|\n/);
  const positions = [
    { line: 0, character: 0 },
    { line: Math.floor(lines.length / 2), character: 3 },
    { line: lines.length - 1, character: lines[lines.length - 1].length },
  ];
  const whole = { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } };
  for (const position of positions) {
    await within(`hover on ${uri}`, client.hover(uri, position));
    await within(
      `layerAt on ${uri}`,
      client.connection.sendRequest('shardlens/layerAt', { textDocument: { uri }, position }),
    );
  }
  await within(
    `inlay hints on ${uri}`,
    client.connection.sendRequest('textDocument/inlayHint', { textDocument: { uri }, range: whole }),
  );
  await within(
    `code lens on ${uri}`,
    client.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } }),
  );
  await within(`code actions on ${uri}`, client.codeActions(uri, whole, []));
}

test(
  'hostile documents never crash the in-process server, and every request is answered',
  { timeout: 150_000 },
  async () => {
    const { client, dispose } = startInProcess();
    try {
      await client.initialize({ settings: FAST });
      for (const [name, text] of Object.entries(hostileDocuments())) {
        const uri = fileUri(`/tmp/shardlens-robustness/${name.replace(/\W+/g, '_')}.py`);
        await client.open(uri, text);
        await client.diagnostics(uri, 1, 0, REQUEST_TIMEOUT_MS);
        await askEverything(client, uri, text);
        await client.close(uri);
      }
      const uri = fileUri('/tmp/shardlens-robustness/after.py');
      await client.open(
        uri,
        'import torch\nfor x in loader:\n    loss = model(x)\n    loss.backward()\n    opt.step()\n    print(loss.item())\n',
      );
      const diagnostics = await client.diagnostics(uri, 1);
      assert.ok(
        diagnostics.some((d) => d.code === 'SL101'),
        'the server still analyses after the hostile inputs',
      );
      const uncaught = client.messages.filter((m) => /uncaught|unhandled/i.test(m));
      assert.deepEqual(uncaught, []);
    } finally {
      await dispose();
    }
  },
);

function comparable(diagnostics: Diagnostic[]): string[] {
  return diagnostics
    .map(
      (d) =>
        `${d.code} ${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.severity} ${d.message}`,
    )
    .sort();
}

test(
  'after 1,000 random incremental edits the diagnostics equal a fresh open of the final text',
  { timeout: 120_000 },
  async () => {
    const { client, dispose } = startInProcess();
    try {
      await client.initialize({ settings: FAST });
      const uri = fileUri('/tmp/shardlens-robustness/edited.py');
      const initial = generateTrainingFile({ lines: 150, seed: 21 });
      await client.open(uri, initial);
      await client.diagnostics(uri, 1);
      const editor = new RandomEditor(22, initial);
      let version = 1;
      for (let i = 0; i < 1_000; i++) {
        version = await client.change(uri, [editor.next()]);
        // Let the server analyse some intermediate versions too, not only the last one.
        if (i % 50 === 0) await client.diagnostics(uri, version, 0, REQUEST_TIMEOUT_MS);
      }
      assert.equal(client.document(uri).getText(), editor.text, 'the UTF-16 ranges were applied as computed');
      const edited = await client.diagnostics(uri, version, 0, REQUEST_TIMEOUT_MS);
      const freshUri = fileUri('/tmp/shardlens-robustness/fresh.py');
      await client.open(freshUri, editor.text);
      const fresh = await client.diagnostics(freshUri, 1, 0, REQUEST_TIMEOUT_MS);
      assert.deepEqual(comparable(edited), comparable(fresh));
      const published = client.publishedVersions(uri).filter((v): v is number => typeof v === 'number');
      assert.deepEqual(
        published,
        [...published].sort((a, b) => a - b),
        'versions are published in order',
      );
    } finally {
      await dispose();
    }
  },
);

test('a cancelled slow request answers RequestCancelled (-32800)', { timeout: 60_000 }, async () => {
  const { client, dispose } = startInProcess();
  try {
    await client.initialize({ settings: { diagnostics: { debounceMs: 5_000 } } });
    const uri = fileUri('/tmp/shardlens-robustness/slow.py');
    await client.open(uri, generateTrainingFile({ lines: 5_000, seed: 3 }));
    // A new version: the hover would have to analyse 5,000 lines first.
    await client.insert(uri, { line: 0, character: 0 }, '# edit\n');
    const outcome = await client.requestThenCancel('textDocument/hover', {
      textDocument: { uri },
      position: { line: 100, character: 8 },
    });
    assert.ok('errorCode' in outcome, `expected an error, got ${JSON.stringify(outcome)}`);
    assert.equal(outcome.errorCode, -32800);
    // The server still answers afterwards.
    await within('hover after cancellation', client.hover(uri, { line: 100, character: 8 }));
    // NOTE: closing cancels the pending 5 s validation, which would otherwise publish on a disposed connection.
    await client.close(uri);
    await client.hover(uri, { line: 0, character: 0 });
  } finally {
    await dispose();
  }
});

test('the spawned bundle survives hostile documents and exits cleanly', { timeout: 120_000 }, async () => {
  const server = spawnServer(join(wasmDir, 'server.js'));
  const { client, exited, stderr } = server;
  try {
    await client.initialize({ settings: FAST });
    const documents = hostileDocuments();
    for (const name of [
      'parentheses',
      'boolean chain',
      'method chain',
      'bytes-0',
      'awkward',
      'five-megabytes',
      'mutated-0',
    ]) {
      const uri = fileUri(`/tmp/shardlens-robustness/spawned_${name.replace(/\W+/g, '_')}.py`);
      await client.open(uri, documents[name]);
      await client.diagnostics(uri, 1, 0, REQUEST_TIMEOUT_MS);
      await askEverything(client, uri, documents[name]);
    }
    await client.shutdown(true);
    assert.equal(await exited, 0, `stderr: ${stderr()}`);
    assert.doesNotMatch(client.messages.join('\n'), /uncaught|unhandled/i);
  } finally {
    server.stop();
  }
});

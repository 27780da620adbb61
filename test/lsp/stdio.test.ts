// Spawns the bundled server (`node server.js --stdio`) from a temporary folder outside the
// repository holding only the bundle and the two wasm files, so nothing can be found in
// node_modules: initialize, didOpen, diagnostics, shutdown and exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileUri, spawnServer } from '../helpers/lsp-client';
import { wasmDir } from '../helpers/paths';

test('the bundled server runs alone over stdio', { timeout: 60_000 }, async () => {
  const folder = mkdtempSync(join(tmpdir(), 'shardlens-stdio-'));
  for (const name of ['server.js', 'tree-sitter.wasm', 'tree-sitter-python.wasm'])
    copyFileSync(join(wasmDir, name), join(folder, name));
  const server = spawnServer(join(folder, 'server.js'), {
    cwd: folder,
    env: { ...process.env, NODE_PATH: '' },
  });
  const { client, exited, stderr } = server;
  try {
    // A client without workspace folder support, unlike VS Code: the server must cope.
    const result = await client.initialize({ workspaceFolderSupport: false });
    assert.equal(result.serverInfo?.name, 'shardlens');
    const uri = fileUri(join(folder, 'train.py'));
    await client.open(
      uri,
      [
        'import torch',
        'for x, y in loader:',
        '    loss = model(x).sum()',
        '    loss.backward()',
        '    opt.step()',
        '    print(loss.item())',
        '',
      ].join('\n'),
    );
    const diagnostics = await client.diagnostics(uri, 1, 0, 20_000);
    assert.deepEqual(
      diagnostics.filter((d) => d.code === 'SL101').map((d) => [d.code, d.range.start.line]),
      [['SL101', 5]],
      `stderr: ${stderr()}\nlog: ${client.messages.join('\n')}`,
    );
    assert.deepEqual(
      // The success line ("Python grammar loaded in N ms: ...") is the only grammar message allowed.
      client.messages.filter(
        (m) => /grammar|Error|failed/.test(m) && !m.startsWith('Python grammar loaded in '),
      ),
      [],
    );
    await client.shutdown(true);
    const code = await exited;
    assert.equal(code, 0, `stderr: ${stderr()}`);
  } finally {
    server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

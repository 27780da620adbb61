// Syncs reached through calls from the hot step into other workspace files, over a real
// JSON-RPC connection: the finding sits at the call site with the callee's code and
// `file:line`; a callee that syncs only once per interval gives none; editing the callee on
// disk updates the caller; missing, cyclic and oversize callees never break the server.
// SL301 on a model file stays silent when a trainer elsewhere imports and checkpoints it.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import { startInProcess, fileUri } from '../helpers/lsp-client';
import { fixturesDir } from '../helpers/paths';
import { MAX_MESSAGE_CHARS } from '../../server/src/rules/messages/common';

const FIXTURE = join(fixturesDir, 'workspaces', 'cross_file_sync');
const scratch = mkdtempSync(join(tmpdir(), 'shardlens-cross-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the two-file fixture in a fresh folder (tests may edit it). */
function workspaceCopy(fixture = FIXTURE): string {
  const folder = mkdtempSync(join(scratch, 'ws-'));
  cpSync(fixture, folder, { recursive: true });
  return folder;
}

/** A diagnostic's message as plain text. */
const messageOf = (d: Diagnostic) => (typeof d.message === 'string' ? d.message : d.message.value);

/** 0-based line of the first line of `text` containing `needle`. */
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle));

/** Opens `file` of `folder` in a server whose workspace is `folder`; returns its diagnostics. */
async function diagnosticsIn(
  folder: string,
  file: string,
  body?: (client: ReturnType<typeof startInProcess>['client'], uri: string) => Promise<Diagnostic[]>,
): Promise<Diagnostic[]> {
  const pair = startInProcess();
  try {
    await pair.client.initialize({ settings: {}, workspaceFolders: [folder] });
    const uri = fileUri(join(folder, file));
    await pair.client.open(uri, readFileSync(join(folder, file), 'utf8'));
    const first = await pair.client.diagnostics(uri, 1);
    return body ? await body(pair.client, uri) : first;
  } finally {
    await pair.dispose();
  }
}

describe('calls from the hot step into workspace files', () => {
  test('SL101 at the call whose callee reads the loss every step; none for the interval-guarded one', async () => {
    const folder = workspaceCopy();
    const text = readFileSync(join(folder, 'train_loop.py'), 'utf8');
    const diagnostics = (await diagnosticsIn(folder, 'train_loop.py')).filter((d) =>
      String(d.code).startsWith('SL1'),
    );
    assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
    const [found] = diagnostics;
    assert.equal(found.code, 'SL101');
    assert.equal(found.severity, DiagnosticSeverity.Warning);
    assert.equal(found.range.start.line, lineOf(text, 'record_step(loss, step)'));
    const calleeLine = lineOf(readFileSync(join(folder, 'step_logging.py'), 'utf8'), 'value.item()') + 1;
    assert.match(messageOf(found), new RegExp(`record_step.*step_logging\\.py:${calleeLine}\\b`));
    assert.ok(messageOf(found).length < MAX_MESSAGE_CHARS, messageOf(found));
  });

  test('the callee file itself reports nothing (it has no step of its own)', async () => {
    assert.deepEqual(await diagnosticsIn(workspaceCopy(), 'step_logging.py'), []);
  });

  test('editing the callee on disk (watched-file change) clears the finding at the call site', async () => {
    const folder = workspaceCopy();
    const callee = join(folder, 'step_logging.py');
    const remaining = await diagnosticsIn(folder, 'train_loop.py', async (client, uri) => {
      const before = client.publishes.length;
      // The per-step read becomes a device-side append: no host read left.
      writeFileSync(
        callee,
        readFileSync(callee, 'utf8').replace(
          'history.append((step, value.item()))',
          'history.append(value.detach())',
        ),
      );
      await client.filesChanged([fileUri(callee)]);
      return client.diagnostics(uri, 1, before);
    });
    assert.deepEqual(
      remaining.filter((d) => String(d.code).startsWith('SL1')),
      [],
    );
  });

  test('missing, oversize and cyclic callees: no finding, no crash, the server keeps answering', async () => {
    const folder = mkdtempSync(join(scratch, 'odd-'));
    writeFileSync(
      join(folder, 'train.py'),
      [
        'import torch',
        'from absent_module import log_it',
        'from big_module import big_log',
        'from ping import ping',
        '',
        '',
        'def train(model, loader, optimizer):',
        '    for x, y in loader:',
        '        loss = torch.nn.functional.mse_loss(model(x), y)',
        '        loss.backward()',
        '        optimizer.step()',
        '        log_it(loss)',
        '        big_log(loss)',
        '        ping(loss, 3)',
        '',
      ].join('\n'),
    );
    // 2.5 MB: over the size a followed file may have, though its function syncs.
    writeFileSync(
      join(folder, 'big_module.py'),
      `def big_log(value):\n    print(value.item())\n${'# padding line of the big module\n'.repeat(80_000)}`,
    );
    // ping and pong call each other; neither syncs.
    writeFileSync(
      join(folder, 'ping.py'),
      'from pong import pong\n\n\ndef ping(value, n):\n    return pong(value, n - 1)\n',
    );
    writeFileSync(
      join(folder, 'pong.py'),
      'from ping import ping\n\n\ndef pong(value, n):\n    return ping(value, n) if n > 0 else value\n',
    );
    const diagnostics = await diagnosticsIn(folder, 'train.py');
    assert.deepEqual(
      diagnostics.filter((d) => String(d.code).startsWith('SL1')),
      [],
    );
  });

  test('a sync two files away is reported at the first call, naming where it is', async () => {
    const folder = mkdtempSync(join(scratch, 'deep-'));
    writeFileSync(
      join(folder, 'train.py'),
      [
        'import torch',
        'from hooks import after_step',
        '',
        '',
        'def train(model, loader, optimizer):',
        '    for x, y in loader:',
        '        loss = torch.nn.functional.mse_loss(model(x), y)',
        '        loss.backward()',
        '        optimizer.step()',
        '        after_step(loss)',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(folder, 'hooks.py'),
      'from meters import push\n\n\ndef after_step(loss):\n    push(loss)\n',
    );
    writeFileSync(
      join(folder, 'meters.py'),
      'values = []\n\n\ndef push(value):\n    values.append(float(value))\n',
    );
    const diagnostics = (await diagnosticsIn(folder, 'train.py')).filter((d) =>
      String(d.code).startsWith('SL1'),
    );
    assert.deepEqual(
      diagnostics.map((d) => [d.code, d.range.start.line]),
      [['SL103', 9]],
    );
    // The location named is where the sync itself is, two files down.
    assert.match(messageOf(diagnostics[0]), /`after_step`.*meters\.py:5\b/);
  });
});

describe('SL301 with evidence from the workspace', () => {
  const CHECKPOINTED = join(fixturesDir, 'workspaces', 'checkpointed_elsewhere');
  const sl301 = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.code === 'SL301');

  test('a trainer that imports the model and wraps its blocks with checkpoint_wrapper: silent', async () => {
    assert.deepEqual(sl301(await diagnosticsIn(workspaceCopy(CHECKPOINTED), 'nets.py')), []);
  });

  test('without that trainer the deep loop is reported', async () => {
    const folder = workspaceCopy(CHECKPOINTED);
    unlinkSync(join(folder, 'fit.py'));
    const found = sl301(await diagnosticsIn(folder, 'nets.py'));
    const text = readFileSync(join(folder, 'nets.py'), 'utf8');
    assert.deepEqual(
      found.map((d) => d.range.start.line),
      [lineOf(text, 'for layer in self.layers:')],
    );
  });

  test('a trainer that checkpoints a model of another file is no evidence for this one', async () => {
    const folder = workspaceCopy(CHECKPOINTED);
    const fit = join(folder, 'fit.py');
    writeFileSync(join(folder, 'other_nets.py'), readFileSync(join(folder, 'nets.py'), 'utf8'));
    writeFileSync(
      fit,
      readFileSync(fit, 'utf8').replace(
        'from nets import MixerBlock, StackedNet',
        'from other_nets import MixerBlock, StackedNet',
      ),
    );
    assert.equal(sl301(await diagnosticsIn(folder, 'nets.py')).length, 1);
    assert.deepEqual(sl301(await diagnosticsIn(folder, 'other_nets.py')), []);
  });

  test("a package's __init__.py, imported by a trainer beside it with `from . import`: silent", async () => {
    // The trainer's text never names the model's module: only the package does.
    const folder = workspaceCopy(CHECKPOINTED);
    const fit = readFileSync(join(folder, 'fit.py'), 'utf8');
    mkdirSync(join(folder, 'models'));
    renameSync(join(folder, 'nets.py'), join(folder, 'models', '__init__.py'));
    unlinkSync(join(folder, 'fit.py'));
    writeFileSync(
      join(folder, 'models', 'fit.py'),
      fit.replace('from nets import MixerBlock, StackedNet', 'from . import MixerBlock, StackedNet'),
    );
    assert.deepEqual(sl301(await diagnosticsIn(folder, join('models', '__init__.py'))), []);
    // The same package without the trainer: the deep loop is reported.
    unlinkSync(join(folder, 'models', 'fit.py'));
    assert.equal(sl301(await diagnosticsIn(folder, join('models', '__init__.py'))).length, 1);
  });
});

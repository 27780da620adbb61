// Extension-host tests in an untrusted workspace (Restricted Mode): diagnostics still work,
// and the benchmark command explains that it needs a trusted workspace instead of running.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { files, open, waitFor, waitForDiagnostic } from './helpers';

describe('Shardlens in an untrusted workspace @untrusted', () => {
  it('opens the folder untrusted', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('still reports diagnostics', async () => {
    await open(files.train);
    await waitForDiagnostic(files.train, 'SL101');
  });

  it('explains why Benchmark This Layer is disabled', async () => {
    await open(files.train);
    const shown: string[] = [];
    const window = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
    const originals: Record<string, (...args: unknown[]) => Thenable<unknown>> = {};
    // NOTE: the suite shares the extension's `vscode` API object (same extension folder), so
    // wrapping the message functions records what the user would see without clicking it away.
    for (const name of ['showInformationMessage', 'showWarningMessage', 'showErrorMessage']) {
      originals[name] = window[name];
      window[name] = (...args: unknown[]) => {
        shown.push(String(args[0]));
        return Promise.resolve(undefined);
      };
    }
    try {
      await vscode.commands.executeCommand('shardlens.benchmarkLayer');
      const message = await waitFor(
        'a message about workspace trust',
        () => shown.find((m) => /trust/i.test(m)),
        15_000,
      );
      assert.match(message, /trust/i);
    } finally {
      Object.assign(window, originals);
    }
  });
});

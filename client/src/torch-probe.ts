// Asks the workspace interpreter for its PyTorch version (`python -c "import torch;
// print(torch.__version__)"`) and tells the server, so version-dependent rules and fixes
// (SL504's `torch.amp.GradScaler`, PyTorch ≥ 2.3) fit the user's torch. Runs only in
// trusted workspaces (the interpreter path may come from workspace settings), with a
// timeout, and again when the interpreter setting changes.
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import { resolvePython } from './benchmark/python';
import { EnvironmentNotification } from '../../server/src/protocol';

const PROBE = 'import torch; print(torch.__version__)';
const TIMEOUT_MS = 20_000;

/** `torch.__version__` of `python`, or null when it has no torch or cannot run. */
export function probeTorchVersion(python: string): Promise<{ version: string | null; error?: string }> {
  return new Promise((resolve) => {
    execFile(python, ['-c', PROBE], { timeout: TIMEOUT_MS, windowsHide: true }, (error, stdout, stderr) => {
      const version = /^\s*(\d+\.\d+\S*)\s*$/m.exec(stdout)?.[1] ?? null;
      if (version) resolve({ version });
      else
        resolve({ version: null, error: (error?.message ?? stderr).split('\n').slice(-2).join(' ').trim() });
    });
  });
}

/** Probes now (trusted workspaces only) and on interpreter changes; sends the result to the server. */
export function registerTorchProbe(input: {
  context: vscode.ExtensionContext;
  output: vscode.LogOutputChannel;
  send: (params: EnvironmentNotification.Params) => void;
}): () => Promise<void> {
  const { context, output, send } = input;
  const probe = async () => {
    if (!vscode.workspace.isTrusted) {
      output.info('Not asking the interpreter for its PyTorch version: the workspace is not trusted.');
      return;
    }
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const { python, source } = await resolvePython(resource, output);
    const { version, error } = await probeTorchVersion(python);
    if (version) output.info(`Interpreter ${python} (${source}) has PyTorch ${version}.`);
    else
      output.warn(
        `Interpreter ${python} (${source}) has no usable PyTorch: ${error ?? 'no version printed'}`,
      );
    send({ interpreter: python, torchVersion: version });
  };
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => void probe()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (
        e.affectsConfiguration('shardlens.benchmark.pythonPath') ||
        e.affectsConfiguration('python.defaultInterpreterPath')
      )
        void probe();
    }),
  );
  return probe;
}

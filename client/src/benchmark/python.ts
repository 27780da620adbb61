// Picks the Python interpreter for benchmarks: the Python extension's selected one,
// else the `shardlens.benchmark.pythonPath` setting, else `python3`.
import * as vscode from 'vscode';

interface PythonEnvironmentsApi {
  environments?: {
    getActiveEnvironmentPath?: (resource?: vscode.Uri) => { path?: string } | undefined;
    resolveEnvironment?: (
      env: { path?: string } | string,
    ) => Promise<{ executable?: { uri?: vscode.Uri } } | undefined> | undefined;
  };
}

function withTimeout<T>(promise: Thenable<T>, ms: number): Promise<T | undefined> {
  return Promise.race([
    Promise.resolve(promise),
    new Promise<undefined>((r) => setTimeout(() => r(undefined), ms)),
  ]);
}

/** The interpreter from ms-python.python, or undefined when it is absent, inactive or fails. */
async function fromPythonExtension(
  resource: vscode.Uri | undefined,
  log: vscode.OutputChannel,
): Promise<string | undefined> {
  try {
    const ext = vscode.extensions.getExtension<PythonEnvironmentsApi>('ms-python.python');
    if (!ext) return undefined;
    const api = ext.isActive ? ext.exports : await withTimeout(ext.activate(), 5000);
    const envs = api?.environments;
    const active = envs?.getActiveEnvironmentPath?.(resource);
    if (!active?.path) return undefined;
    // NOTE: for some environments (conda) the active "path" is the environment folder;
    // resolveEnvironment gives the executable.
    const resolved = envs?.resolveEnvironment
      ? await withTimeout(envs.resolveEnvironment(active) ?? Promise.resolve(undefined), 5000)
      : undefined;
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch (error) {
    log.appendLine(`[benchmark] the Python extension's interpreter could not be read: ${String(error)}`);
    return undefined;
  }
}

/** The interpreter benchmarks run with, and where it came from. */
export async function resolvePython(
  resource: vscode.Uri | undefined,
  log: vscode.OutputChannel,
): Promise<{ python: string; source: string }> {
  const fromExt = await fromPythonExtension(resource, log);
  if (fromExt) return { python: fromExt, source: 'the Python extension' };
  const setting = vscode.workspace
    .getConfiguration('shardlens', resource)
    .get<string>('benchmark.pythonPath', '')
    .trim();
  if (setting) return { python: setting, source: 'shardlens.benchmark.pythonPath' };
  return { python: 'python3', source: 'the default' };
}

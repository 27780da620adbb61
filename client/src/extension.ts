// The Shardlens extension: starts the bundled language server over stdio, shows its
// state in the status bar (Python editors only), logs to the "Shardlens" output channel,
// passes settings, file changes and the interpreter's torch version through, and registers
// the commands (benchmark panel, cluster profile picker, rule docs, restart, output).
import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { registerBenchmarkCommands } from './benchmark/commands';
import { registerClusterPicker } from './cluster-picker';
import { showForPythonEditors } from './python-status';
import { registerRuleDocs } from './rule-docs';
import { registerTorchProbe } from './torch-probe';
import {
  EnvironmentNotification,
  StatusNotification,
  type ClientInitOptions,
} from '../../server/src/protocol';
import { OPEN_RULE_DOCS_COMMAND } from '../../server/src/rules/docs';

let client: LanguageClient | undefined;

function createClient(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): LanguageClient {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.stdio },
    debug: { module, transport: TransportKind.stdio, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ],
    synchronize: {
      configurationSection: 'shardlens',
      fileEvents: vscode.workspace.createFileSystemWatcher('**/{pyproject.toml,*.py}'),
    },
    initializationOptions: {
      settings: vscode.workspace.getConfiguration('shardlens'),
      opensRuleDocs: true,
    } satisfies ClientInitOptions,
    // NOTE: hovers link rule docs through a command; only that command may run from them.
    markdown: { isTrusted: { enabledCommands: [OPEN_RULE_DOCS_COMMAND] } },
    outputChannel: output,
  };
  return new LanguageClient('shardlens', 'Shardlens', serverOptions, clientOptions);
}

/** Called by VS Code when a Python file opens. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Shardlens', { log: true });
  const status = vscode.window.createStatusBarItem('shardlens.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'Shardlens';
  status.text = '$(loading~spin) Shardlens';
  status.tooltip = 'Shardlens: starting the language server';
  status.command = 'shardlens.showOutput';
  context.subscriptions.push(output, status);
  const version = (context.extension.packageJSON as { version?: string }).version ?? 'unknown';
  output.info(`Shardlens ${version} activating (VS Code ${vscode.version}, ${process.platform}).`);
  const probeTorch = registerTorchProbe({
    context,
    output,
    send: (params) => void client?.sendNotification(EnvironmentNotification.method, params),
  });

  const start = async () => {
    output.info(`Starting the language server: ${context.asAbsolutePath('dist/server.js')}`);
    client = createClient(context, output);
    client.onNotification(StatusNotification.method, (params: StatusNotification.Params) => {
      status.text = params.state === 'error' ? '$(error) Shardlens' : '$(pulse) Shardlens';
      status.tooltip = params.message ? `Shardlens: ${params.message}` : 'Shardlens';
    });
    try {
      await client.start();
      status.text = '$(pulse) Shardlens';
      status.tooltip = 'Shardlens is analysing Python files. Click for the log.';
      output.info(`Language server ${client.initializeResult?.serverInfo?.version ?? ''} is running.`);
      void probeTorch();
    } catch (error) {
      status.text = '$(error) Shardlens';
      status.tooltip = `Shardlens: the language server failed to start: ${String(error)}`;
      output.error(`The language server failed to start: ${String(error)}`);
    }
  };

  // NOTE: commands get a forwarding object, so a restarted server is used without re-registering.
  const forwardingClient = {
    sendRequest: (method: string, params: unknown): Promise<unknown> =>
      client
        ? client.sendRequest(method, params)
        : Promise.reject(new Error('the Shardlens server is not running')),
  };
  registerBenchmarkCommands(context, forwardingClient, output);
  const clusterItem = registerClusterPicker(context, output);
  showForPythonEditors(context, [status, clusterItem]);
  registerRuleDocs(context, output);
  context.subscriptions.push(
    vscode.commands.registerCommand('shardlens.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('shardlens.restartServer', async () => {
      await client?.stop().catch(() => undefined);
      await start();
    }),
    { dispose: () => void client?.stop() },
  );
  await start();
}

/** Called by VS Code on shutdown. */
export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

// Registers "Shardlens: Benchmark This Layer" and "Shardlens: Benchmark Collectives":
// asks the server which layer is under the cursor (or at the code lens's position),
// opens the benchmark panel, and refuses to run anything in an untrusted workspace.
import * as vscode from 'vscode';
import { LayerAtRequest, type LayerAtResult } from '../../../server/src/protocol';
import { BenchmarkPanel, type PanelTarget } from './panel';
import { BenchmarkRunner } from './runner';
import { defaultCollectivesForm, defaultLayerForm, layerInfoFrom } from './spec';
import { isObject } from './guards';

/** The part of the LanguageClient the commands use. */
export interface LayerAtClient {
  sendRequest: (method: string, params: unknown) => Promise<unknown>;
}

const UNTRUSTED =
  'Shardlens benchmarks run code from this workspace, so they are disabled until the folder is trusted ' +
  '(Workspaces: Manage Workspace Trust).';

/** Arguments the code lens passes: `{uri, line, character}` (uri as a string or a Uri). */
function positionFromArgs(arg: unknown): { uri: vscode.Uri; position: vscode.Position } | undefined {
  if (isObject(arg) && typeof arg.line === 'number' && typeof arg.character === 'number') {
    const uri =
      typeof arg.uri === 'string'
        ? vscode.Uri.parse(arg.uri)
        : arg.uri instanceof vscode.Uri
          ? arg.uri
          : undefined;
    if (uri) return { uri, position: new vscode.Position(arg.line, arg.character) };
  }
  const editor = vscode.window.activeTextEditor;
  if (editor) return { uri: editor.document.uri, position: editor.selection.active };
  return undefined;
}

function isLayerAtResult(v: unknown): v is LayerAtResult {
  return (
    isObject(v) &&
    typeof v.name === 'string' &&
    typeof v.file === 'string' &&
    typeof v.constructorExpression === 'string' &&
    Array.isArray(v.inputs) &&
    isObject(v.dims)
  );
}

async function askServer(
  client: LayerAtClient | undefined,
  at: { uri: vscode.Uri; position: vscode.Position } | undefined,
  log: vscode.OutputChannel,
): Promise<{ layer: LayerAtResult | null; reason?: string }> {
  if (!at)
    return { layer: null, reason: 'No editor is active: type the constructor expression and input shapes.' };
  if (!client)
    return {
      layer: null,
      reason: 'The Shardlens language server is not running: fill in the layer by hand.',
    };
  try {
    const params: LayerAtRequest.Params = {
      textDocument: { uri: at.uri.toString() },
      position: { line: at.position.line, character: at.position.character },
    };
    const result = await client.sendRequest(LayerAtRequest.method, params);
    if (result === null || result === undefined)
      return {
        layer: null,
        reason: 'No nn.Module was found under the cursor: type the constructor expression and input shapes.',
      };
    if (!isLayerAtResult(result)) {
      log.appendLine(
        `[benchmark] layerAt returned an unexpected value: ${JSON.stringify(result)?.slice(0, 300)}`,
      );
      return {
        layer: null,
        reason: 'The server answered with something unexpected: fill in the layer by hand.',
      };
    }
    return { layer: result };
  } catch (error) {
    log.appendLine(`[benchmark] layerAt failed: ${String(error)}`);
    return {
      layer: null,
      reason: `The server could not tell which layer is under the cursor (${String(error)}).`,
    };
  }
}

/**
 * Registers `shardlens.benchmarkLayer` and `shardlens.benchmarkCollectives`. `client` is the
 * started LanguageClient (or undefined when the server is not running).
 */
export function registerBenchmarkCommands(
  context: vscode.ExtensionContext,
  client: LayerAtClient | undefined,
  log: vscode.OutputChannel,
): void {
  const storage = context.storageUri ?? context.globalStorageUri;
  const runner = new BenchmarkRunner({
    storageDir: storage.fsPath,
    benchDir: context.asAbsolutePath('bench'),
    log,
  });
  context.subscriptions.push(runner);

  const target = (
    partial: Omit<PanelTarget, 'collectivesForm'> & { collectivesForm?: PanelTarget['collectivesForm'] },
  ): PanelTarget => ({
    collectivesForm: defaultCollectivesForm(),
    ...partial,
  });

  context.subscriptions.push(
    vscode.commands.registerCommand('shardlens.benchmarkLayer', async (arg?: unknown) => {
      if (!vscode.workspace.isTrusted) {
        void vscode.window.showWarningMessage(UNTRUSTED);
        return;
      }
      const at = positionFromArgs(arg);
      const { layer, reason } = await askServer(client, at, log);
      const file = layer?.file ?? (at?.uri.scheme === 'file' ? at.uri.fsPath : null);
      BenchmarkPanel.show({
        context,
        runner,
        log,
        target: target({
          layer: layerInfoFrom(layer, file),
          form: defaultLayerForm(layer),
          file,
          resource: at?.uri,
          ...(reason ? { notice: reason } : {}),
        }),
      }).showTab('layer');
    }),
    vscode.commands.registerCommand('shardlens.benchmarkCollectives', async () => {
      if (!vscode.workspace.isTrusted) {
        void vscode.window.showWarningMessage(UNTRUSTED);
        return;
      }
      const answer = await vscode.window.showInputBox({
        title: 'Shardlens: Benchmark Collectives',
        prompt: 'Number of processes (one per GPU, or CPU processes with gloo; 1 checks NCCL on one GPU)',
        value: '2',
        validateInput: (v) =>
          /^\d+$/.test(v.trim()) && +v >= 1 && +v <= 64 ? undefined : 'A whole number from 1 to 64',
      });
      if (answer === undefined) return;
      const form = defaultCollectivesForm(Number(answer.trim()));
      const resource = vscode.window.activeTextEditor?.document.uri;
      const panel = BenchmarkPanel.showForCollectives({
        context,
        runner,
        log,
        target: target({
          layer: null,
          form: defaultLayerForm(null),
          collectivesForm: form,
          file: null,
          resource,
        }),
      });
      panel.showTab('collectives');
      await panel
        .runCollectives(form)
        .catch((e) => vscode.window.showErrorMessage(String(e instanceof Error ? e.message : e)));
    }),
  );
}

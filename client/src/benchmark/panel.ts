// The benchmark webview panel (one singleton panel, retargeted to the layer last asked
// for): builds the HTML, validates every message from the webview, starts runs through
// the runner, keeps run history and writes exports.
import * as vscode from 'vscode';
import * as crypto from 'node:crypto';
import { buildPanelHtml } from './html';
import {
  isFromWebview,
  type CollectivesForm,
  type FromWebview,
  type LayerForm,
  type LayerInfo,
  type RunRecord,
  type ToWebview,
} from './messages';
import { buildCollectivesSpec, buildLayerSpec, cpuSizedForm, newRunId } from './spec';
import { describeProbe, probeInterpreter, type ProbeResult } from './probe';
import { RunHistory } from './history';
import { BenchmarkRunner } from './runner';
import { resolvePython } from './python';
import { runToCsv, runToJson, peakBusBandwidthGBps } from './export';
import { storeBusBandwidth } from './store-bus-bandwidth';

/** History key of collectives runs. */
export const COLLECTIVES_KEY = 'collectives';

/** What the panel is opened for. */
export interface PanelTarget {
  layer: LayerInfo | null;
  form: LayerForm;
  collectivesForm: CollectivesForm;
  file: string | null;
  resource: vscode.Uri | undefined;
  notice?: string;
}

/** The singleton benchmark panel. */
export class BenchmarkPanel {
  private static current: BenchmarkPanel | undefined;
  private readonly history: RunHistory;
  private target: PanelTarget;
  private runs = new Map<string, RunRecord>();
  private ready = false;
  private queue: ToWebview[] = [];
  /** Successful probes by interpreter path (failures are probed again, the user may install torch). */
  private probes = new Map<string, ProbeResult>();

  /** Shows the panel for `target`, creating it or retargeting the open one. */
  static show(args: {
    context: vscode.ExtensionContext;
    runner: BenchmarkRunner;
    log: vscode.OutputChannel;
    target: PanelTarget;
  }): BenchmarkPanel {
    if (BenchmarkPanel.current) {
      BenchmarkPanel.current.retarget(args.target);
      BenchmarkPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      return BenchmarkPanel.current;
    }
    const { context } = args;
    const panel = vscode.window.createWebviewPanel(
      'shardlens.benchmark',
      'Shardlens Benchmark',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [
          vscode.Uri.joinPath(context.extensionUri, 'media'),
          vscode.Uri.joinPath(context.extensionUri, 'dist'),
        ],
      },
    );
    BenchmarkPanel.current = new BenchmarkPanel(panel, args.context, args.runner, args.log, args.target);
    return BenchmarkPanel.current;
  }

  /**
   * Shows the panel for a collectives run: an open panel keeps its layer, its form and its
   * results (only the collectives form changes); a new one opens with an empty layer form.
   */
  static showForCollectives(args: {
    context: vscode.ExtensionContext;
    runner: BenchmarkRunner;
    log: vscode.OutputChannel;
    target: PanelTarget;
  }): BenchmarkPanel {
    const open = BenchmarkPanel.current;
    if (!open) return BenchmarkPanel.show(args);
    open.target = { ...open.target, collectivesForm: args.target.collectivesForm };
    open.post({ type: 'collectivesForm', form: args.target.collectivesForm });
    open.panel.reveal(vscode.ViewColumn.Beside, true);
    return open;
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly context: vscode.ExtensionContext,
    private readonly runner: BenchmarkRunner,
    private readonly log: vscode.OutputChannel,
    target: PanelTarget,
  ) {
    this.target = target;
    this.history = new RunHistory(context.workspaceState);
    const webview = panel.webview;
    webview.html = buildPanelHtml({
      scriptUri: webview
        .asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'dist', 'media', 'panel.js'))
        .toString(),
      styleUri: webview
        .asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'media', 'panel.css'))
        .toString(),
      cspSource: webview.cspSource,
      nonce: crypto.randomBytes(16).toString('base64'),
    });
    const subs = [
      webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('shardlens.benchmark.pythonPath')) {
          this.probes.clear();
          void this.checkInterpreter();
        }
      }),
      panel.onDidDispose(() => {
        subs.forEach((d) => d.dispose());
        if (BenchmarkPanel.current === this) BenchmarkPanel.current = undefined;
      }),
    ];
  }

  /** Switches to another layer; a run in progress keeps streaming. */
  retarget(target: PanelTarget): void {
    this.target = target;
    if (this.ready) {
      this.sendInit();
      void this.checkInterpreter();
    }
  }

  /**
   * Probes the interpreter and tells the webview what it has; with no GPU the webview gets a
   * CPU-sized form (used while the user has not edited the form). Returns the probe and path.
   */
  private async checkInterpreter(): Promise<{ python: string; source: string; probe: ProbeResult }> {
    const { python, source } = await resolvePython(this.target.resource, this.log);
    const probe = this.probes.get(python) ?? (await probeInterpreter(python));
    if (probe.status === 'ok') this.probes.set(python, probe);
    else
      this.log.appendLine(
        `[benchmark] interpreter ${python} (from ${source}): ${probe.status}, ${probe.message}`,
      );
    const cpu = probe.status === 'ok' && probe.backend === 'cpu';
    this.post({
      type: 'interpreter',
      status: probe.status,
      backend: probe.status === 'ok' ? probe.backend : null,
      text: describeProbe(python, probe),
      ...(cpu ? { cpuForm: cpuSizedForm(this.target.form) } : {}),
    });
    return { python, source, probe };
  }

  /** Opens the Python extension's interpreter picker, or else the Shardlens interpreter setting. */
  private async chooseInterpreter(): Promise<void> {
    if (vscode.extensions.getExtension('ms-python.python')) {
      await vscode.commands.executeCommand('python.setInterpreter');
      this.probes.clear();
      await this.checkInterpreter();
      return;
    }
    await vscode.commands.executeCommand('workbench.action.openSettings', 'shardlens.benchmark.pythonPath');
  }

  /** Shows a tab in the webview. */
  showTab(tab: 'layer' | 'collectives' | 'history'): void {
    this.post({ type: 'showTab', tab });
  }

  /** Starts a collectives run as the command does. */
  runCollectives(form: CollectivesForm): Promise<void> {
    return this.startCollectives(form);
  }

  private post(message: ToWebview): void {
    if (!this.ready) {
      this.queue.push(message);
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  private sendInit(): void {
    const { layer, form, collectivesForm, notice } = this.target;
    this.post({ type: 'init', layer, form, collectivesForm, ...(notice ? { notice } : {}) });
    this.post({
      type: 'history',
      runs: [...this.history.forLayer(this.layerKey()), ...this.history.forLayer(COLLECTIVES_KEY)],
    });
  }

  private layerKey(): string {
    return this.target.layer?.key ?? `manual::${this.target.file ?? ''}`;
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isFromWebview(raw)) {
      this.log.appendLine(
        `[benchmark] dropped an invalid message from the webview: ${JSON.stringify(raw)?.slice(0, 200)}`,
      );
      return;
    }
    try {
      await this.handle(raw);
    } catch (error) {
      this.post({
        type: 'notice',
        level: 'error',
        text: String(error instanceof Error ? error.message : error),
      });
    }
  }

  private async handle(message: FromWebview): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.sendInit();
        this.queue.splice(0).forEach((m) => this.post(m));
        void this.checkInterpreter();
        return;
      case 'chooseInterpreter':
        return this.chooseInterpreter();
      case 'run':
        return this.startLayer(message.form);
      case 'runCollectives':
        return this.startCollectives(message.form);
      case 'cancel':
        this.runner.cancel();
        return;
      case 'export':
        return this.export(message.runId, message.format);
      case 'storeBusBandwidth': {
        const run = this.findRun(message.runId);
        const peak = run ? peakBusBandwidthGBps(run) : null;
        if (peak === null) throw new Error('That run has no bus bandwidth measurement.');
        const text = await storeBusBandwidth(peak, this.target.resource);
        this.post({ type: 'notice', level: 'info', text });
        return;
      }
      case 'deleteRun':
        await this.history.delete(message.runId);
        this.sendInit();
        return;
    }
  }

  private findRun(runId: string): RunRecord | undefined {
    return this.runs.get(runId) ?? this.history.get(runId);
  }

  private workspaceRoot(): string {
    const folder = this.target.resource
      ? vscode.workspace.getWorkspaceFolder(this.target.resource)
      : vscode.workspace.workspaceFolders?.[0];
    return folder?.uri.fsPath ?? this.context.extensionPath;
  }

  private async startLayer(form: LayerForm): Promise<void> {
    const built = buildLayerSpec({
      form,
      runId: newRunId('r'),
      workspaceRoot: this.workspaceRoot(),
      file: this.target.file,
    });
    if (!built.spec) {
      this.post({ type: 'notice', level: 'error', text: built.errors.join(' ') });
      return;
    }
    this.target = { ...this.target, form };
    const label = this.target.layer?.name ?? (form.constructorExpression.slice(0, 60) || 'layer');
    await this.launch({ spec: built.spec, kind: 'layer', layerKey: this.layerKey(), label, form });
  }

  private async startCollectives(form: CollectivesForm): Promise<void> {
    const built = buildCollectivesSpec({ form, runId: newRunId('c') });
    if (!built.spec) {
      this.post({ type: 'notice', level: 'error', text: built.errors.join(' ') });
      return;
    }
    this.target = { ...this.target, collectivesForm: form };
    const label = `collectives ×${form.worldSize}`;
    await this.launch({ spec: built.spec, kind: 'collectives', layerKey: COLLECTIVES_KEY, label, form });
  }

  private async launch(args: {
    spec: Parameters<BenchmarkRunner['start']>[0]['spec'];
    kind: RunRecord['kind'];
    layerKey: string;
    label: string;
    form: LayerForm | CollectivesForm;
  }): Promise<void> {
    if (this.runner.busy) throw new Error('A benchmark is already running; cancel it first.');
    const { python, source, probe } = await this.checkInterpreter();
    if (probe.status !== 'ok') {
      this.post({
        type: 'notice',
        level: 'error',
        text: describeProbe(python, probe),
        action: 'chooseInterpreter',
      });
      return;
    }
    const run: RunRecord = {
      runId: args.spec.runId,
      kind: args.kind,
      layerKey: args.layerKey,
      label: args.label,
      startedAt: Date.now(),
      status: 'running',
      python,
      form: args.form,
      events: [],
    };
    this.runs.set(run.runId, run);
    this.post({ type: 'runStarted', run });
    this.post({
      type: 'notice',
      level: 'info',
      text: `Running with ${python} (from ${source}) in the "Shardlens Benchmark" terminal.`,
    });
    await this.runner.start({
      spec: args.spec,
      python,
      handlers: {
        onEvent: (event) => {
          run.events.push(event);
          this.post({ type: 'event', runId: run.runId, event });
        },
        onNotice: (level, text) => this.post({ type: 'notice', level, text }),
        onEnd: (status, message) => {
          run.status = status;
          if (message) run.message = message;
          this.post({ type: 'runEnded', runId: run.runId, status, ...(message ? { message } : {}) });
          void this.history
            .save(run)
            .catch((e) => this.log.appendLine(`[benchmark] history not saved: ${String(e)}`));
        },
      },
    });
  }

  private async export(runId: string, format: 'csv' | 'json'): Promise<void> {
    const run = this.findRun(runId);
    if (!run) throw new Error(`Run ${runId} is not in the history any more.`);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `shardlens-${run.kind}-${run.runId}.${format}`;
    const uri = await vscode.window.showSaveDialog({
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: format === 'csv' ? { CSV: ['csv'] } : { JSON: ['json'] },
      saveLabel: `Export ${format.toUpperCase()}`,
    });
    if (!uri) return;
    const text = format === 'csv' ? runToCsv(run) : runToJson(run);
    await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
    this.post({ type: 'notice', level: 'info', text: `Exported to ${uri.fsPath}.` });
  }
}

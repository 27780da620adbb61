// Runs the Python harness in the "Shardlens Benchmark" terminal: writes the spec file,
// types a quoted command line (paths and fixed flags only), follows the events file and
// reports events, a missing harness start, cancellation and the end of the run.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EventsFollower } from './events-follower';
import { parseEventLine, type HarnessEvent } from './events';
import { detectShell, quoteCommandLine } from './quote';
import type { RunStatus } from './messages';
import type { CollectivesSpec, LayerSpec } from './spec';

/** The terminal's name; the terminal is reused while it is open. */
export const TERMINAL_NAME = 'Shardlens Benchmark';
/** After this long without a `started` event the panel says the harness did not start. */
export const NO_START_WARNING_MS = 20_000;
/** After this long without a `started` event the run is given up. */
export const NO_START_GIVE_UP_MS = 180_000;

export interface RunHandlers {
  onEvent: (event: HarnessEvent) => void;
  onNotice: (level: 'info' | 'warning' | 'error', text: string) => void;
  onEnd: (status: RunStatus, message?: string) => void;
}

interface ActiveRun {
  runId: string;
  follower: EventsFollower;
  handlers: RunHandlers;
  timers: ReturnType<typeof setTimeout>[];
  started: boolean;
}

/** Starts at most one harness run at a time. */
export class BenchmarkRunner implements vscode.Disposable {
  private active: ActiveRun | undefined;
  private terminal: vscode.Terminal | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly options: { storageDir: string; benchDir: string; log: vscode.OutputChannel }) {
    this.subscriptions.push(
      vscode.window.onDidCloseTerminal((t) => {
        if (t !== this.terminal) return;
        this.terminal = undefined;
        if (this.active) this.finish('failed', 'The benchmark terminal was closed before the run finished.');
      }),
    );
  }

  /** True while a run is in progress. */
  get busy(): boolean {
    return this.active !== undefined;
  }

  /** Writes the spec and starts the harness; throws when the command cannot be built. */
  async start(args: {
    spec: LayerSpec | CollectivesSpec;
    python: string;
    handlers: RunHandlers;
  }): Promise<void> {
    if (this.active) throw new Error('A benchmark is already running; cancel it first.');
    const { spec, python, handlers } = args;
    const dir = path.join(this.options.storageDir, 'benchmarks');
    await fs.promises.mkdir(dir, { recursive: true });
    const specPath = path.join(dir, `${spec.runId}.spec.json`);
    const eventsPath = path.join(dir, `${spec.runId}.events.jsonl`);
    await fs.promises.writeFile(specPath, JSON.stringify(spec, null, 2), 'utf8');
    await fs.promises.writeFile(eventsPath, '', 'utf8');

    const terminal = this.getTerminal(spec.kind === 'layer' ? spec.workspaceRoot : undefined);
    const opts = terminal.creationOptions as vscode.TerminalOptions;
    const shellPath = opts.shellPath ?? vscode.env.shell;
    const shell = detectShell(shellPath);
    const argv = [python, '-m', 'shardlens_bench', '--spec', specPath, '--events', eventsPath];
    const commandLine = quoteCommandLine(shell, argv);
    this.options.log.appendLine(`[benchmark] ${spec.runId}: (${shell}) ${commandLine}`);

    const run: ActiveRun = {
      runId: spec.runId,
      handlers,
      timers: [],
      started: false,
      follower: new EventsFollower({
        path: eventsPath,
        onLine: (line) => this.onLine(run, line),
        onError: (e) => this.options.log.appendLine(`[benchmark] reading ${eventsPath}: ${e.message}`),
      }),
    };
    this.active = run;
    run.timers.push(
      setTimeout(() => {
        if (!run.started && this.active === run)
          handlers.onNotice(
            'warning',
            `No events from the harness after ${NO_START_WARNING_MS / 1000} s: is PyTorch installed for ${python}? ` +
              `Look at the "${TERMINAL_NAME}" terminal for the error, or pick another interpreter.`,
          );
      }, NO_START_WARNING_MS),
      setTimeout(() => {
        if (!run.started && this.active === run)
          this.finish(
            'failed',
            `The harness did not start with ${python} (no events in ${NO_START_GIVE_UP_MS / 1000} s).`,
          );
      }, NO_START_GIVE_UP_MS),
    );
    run.follower.start();
    terminal.show(true);
    terminal.sendText(commandLine, true);
  }

  /** Sends Ctrl+C to the terminal and ends the run as cancelled. */
  cancel(): void {
    if (!this.active) return;
    this.terminal?.sendText('\u0003', false);
    this.finish('cancelled', 'Cancelled (Ctrl+C sent to the benchmark terminal).');
  }

  dispose(): void {
    if (this.active) this.finish('cancelled', 'The extension was deactivated.');
    this.subscriptions.forEach((d) => d.dispose());
  }

  private getTerminal(cwd: string | undefined): vscode.Terminal {
    const pythonPath = [this.options.benchDir, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter);
    const ours = (t: vscode.Terminal): boolean =>
      t.name === TERMINAL_NAME &&
      t.exitStatus === undefined &&
      ((t.creationOptions as vscode.TerminalOptions).env?.PYTHONPATH ?? '').startsWith(this.options.benchDir);
    if (this.terminal && ours(this.terminal)) return this.terminal;
    const existing = vscode.window.terminals.find(ours);
    if (existing) return (this.terminal = existing);
    // NOTE: a terminal with our name but without our PYTHONPATH (restored after a reload)
    // would fail to import the harness; it is left alone and a fresh one is created.
    this.terminal = vscode.window.createTerminal({
      name: TERMINAL_NAME,
      cwd,
      env: { PYTHONPATH: pythonPath },
    });
    return this.terminal;
  }

  private onLine(run: ActiveRun, line: string): void {
    if (this.active !== run) return;
    const { event, problem } = parseEventLine(line);
    if (problem) this.options.log.appendLine(`[benchmark] ${run.runId}: dropped line, ${problem}`);
    if (!event) return;
    if (event.runId !== run.runId) {
      this.options.log.appendLine(
        `[benchmark] dropped an event of run ${event.runId} (expected ${run.runId})`,
      );
      return;
    }
    if (event.type === 'started') run.started = true;
    run.handlers.onEvent(event);
    if (event.type === 'done') this.finish(event.ok ? 'done' : 'failed');
  }

  private finish(status: RunStatus, message?: string): void {
    const run = this.active;
    if (!run) return;
    this.active = undefined;
    run.timers.forEach(clearTimeout);
    run.follower.stop();
    run.handlers.onEnd(status, message);
  }
}

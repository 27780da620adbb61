// Test helper: a language client over a real JSON-RPC connection. `startInProcess` wires
// the server (`startServer`) and this client together with two PassThrough streams crossed
// over; `LspClient` alone drives any pair of streams (e.g. a spawned server's stdio).
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  CancellationTokenSource,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import {
  createConnection,
  StreamMessageReader as ServerReader,
  StreamMessageWriter as ServerWriter,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type {
  CodeAction,
  Diagnostic,
  Hover,
  InitializeResult,
  InlayHint,
  Position,
  PublishDiagnosticsParams,
  Range,
  TextEdit,
} from 'vscode-languageserver';
import { startServer } from '../../server/src/server';
import { repoRoot, wasmDir } from './paths';

/** One `textDocument/publishDiagnostics`, in arrival order. */
export interface Publish extends PublishDiagnosticsParams {
  /** Position in the order of all publishes this client received. */
  sequence: number;
}

/** A request's outcome: its result, or the JSON-RPC error code it failed with. */
export type Outcome<T> = { result: T } | { errorCode: number; message: string };

/** Options for {@link LspClient.initialize}. */
export interface InitializeOptions {
  /** The `shardlens` section answered to `workspace/configuration` (nested like VS Code's). */
  settings?: Record<string, unknown>;
  /** What `workspace/configuration` answers instead of `settings` (`null`: a client that knows no such section). */
  configurationAnswer?: Record<string, unknown> | null;
  /** Workspace folders as file-system paths. */
  workspaceFolders?: string[];
  /** Whether the client announces workspace folder support (default true, as VS Code does). */
  workspaceFolderSupport?: boolean;
  /** Whether the client announces inlay-hint and code-lens refresh support (default true, as VS Code does). */
  refreshSupport?: boolean;
  /** `initializationOptions.opensRuleDocs`: the client has the rendered docs command (default false). */
  opensRuleDocs?: boolean;
}

const POLL_MS = 5;

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A `file:` URI for a path. */
export function fileUri(path: string): string {
  return `file://${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** The LSP client side: initialize, document sync, diagnostics, hover, code actions, shutdown. */
export class LspClient {
  readonly connection: MessageConnection;
  /** Every publishDiagnostics received. */
  readonly publishes: Publish[] = [];
  /** Every `window/logMessage` and `window/showMessage` text. */
  readonly messages: string[] = [];
  /** Every `window/showMessage` and `window/showMessageRequest` text (what the user would see). */
  readonly shown: string[] = [];
  /** How many `workspace/configuration` requests were answered. */
  configurationRequests = 0;
  /** Every refresh request the server sent (`workspace/inlayHint/refresh`, `workspace/codeLens/refresh`). */
  readonly refreshes: string[] = [];
  private settings: Record<string, unknown> = {};
  private configurationAnswer: Record<string, unknown> | null | undefined;
  private readonly documents = new Map<string, TextDocument>();

  constructor(input: NodeJS.ReadableStream, output: NodeJS.WritableStream) {
    this.connection = createMessageConnection(
      new StreamMessageReader(input),
      new StreamMessageWriter(output),
    );
    this.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      this.publishes.push({ ...params, sequence: this.publishes.length });
    });
    this.connection.onNotification('window/logMessage', (p: { message: string }) => {
      this.messages.push(p.message);
    });
    this.connection.onNotification('window/showMessage', (p: { message: string }) => {
      this.shown.push(p.message);
    });
    this.connection.onNotification(() => undefined);
    this.connection.onRequest('workspace/configuration', (params: { items: { section?: string }[] }) => {
      this.configurationRequests++;
      const answer = this.configurationAnswer === undefined ? this.settings : this.configurationAnswer;
      return params.items.map((item) => (item.section === 'shardlens' ? answer : null));
    });
    this.connection.onRequest('window/showMessageRequest', (p: { message: string }) => {
      this.shown.push(p.message);
      return null;
    });
    this.connection.onRequest('client/registerCapability', () => null);
    for (const method of ['workspace/inlayHint/refresh', 'workspace/codeLens/refresh'])
      this.connection.onRequest(method, () => {
        this.refreshes.push(method);
        return null;
      });
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.listen();
  }

  /** Sends initialize and initialized, and waits until the server has pulled the settings. */
  async initialize(options: InitializeOptions = {}): Promise<InitializeResult> {
    this.settings = options.settings ?? {};
    this.configurationAnswer = options.configurationAnswer;
    const folders = options.workspaceFolders ?? [];
    const result = await this.connection.sendRequest<InitializeResult>('initialize', {
      processId: null,
      rootUri: folders[0] ? fileUri(folders[0]) : null,
      workspaceFolders: folders.map((path, i) => ({ uri: fileUri(path), name: `folder${i}` })),
      initializationOptions: { settings: this.settings, opensRuleDocs: options.opensRuleDocs ?? false },
      capabilities: {
        workspace: {
          configuration: true,
          inlayHint: { refreshSupport: options.refreshSupport ?? true },
          codeLens: { refreshSupport: options.refreshSupport ?? true },
          didChangeConfiguration: { dynamicRegistration: true },
          workspaceFolders: options.workspaceFolderSupport ?? true,
        },
        textDocument: {
          synchronization: { dynamicRegistration: false },
          publishDiagnostics: { versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          codeAction: { dataSupport: true },
        },
      },
    });
    await this.connection.sendNotification('initialized', {});
    await waitFor('the workspace/configuration request', () =>
      this.configurationRequests > 0 ? true : undefined,
    );
    return result;
  }

  /** Replaces the settings and tells the server they changed (it pulls them again). */
  async changeSettings(settings: Record<string, unknown>): Promise<void> {
    const before = this.configurationRequests;
    this.settings = settings;
    await this.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await waitFor('the configuration pull', () => (this.configurationRequests > before ? true : undefined));
  }

  /** Tells the server that files on disk changed (`workspace/didChangeWatchedFiles`, type 2: changed). */
  async filesChanged(uris: string[]): Promise<void> {
    await this.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: uris.map((uri) => ({ uri, type: 2 })),
    });
  }

  /** Opens a Python document at version 1. */
  async open(uri: string, text: string): Promise<void> {
    this.documents.set(uri, TextDocument.create(uri, 'python', 1, text));
    await this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'python', version: 1, text },
    });
  }

  /** Sends one incremental change (`range` replaced by `text`); resolves to the new version. */
  async change(uri: string, edits: { range: Range; text: string }[]): Promise<number> {
    const current = this.document(uri);
    const version = current.version + 1;
    const updated = TextDocument.update(current, edits, version);
    this.documents.set(uri, updated);
    await this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: edits.map((e) => ({ range: e.range, text: e.text })),
    });
    return version;
  }

  /** Sends the document's whole new text as one change without a range (a full-sync client). */
  async replace(uri: string, text: string): Promise<number> {
    const version = this.document(uri).version + 1;
    this.documents.set(uri, TextDocument.create(uri, 'python', version, text));
    await this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
    return version;
  }

  /** Inserts `text` at `position`. */
  insert(uri: string, position: Position, text: string): Promise<number> {
    return this.change(uri, [{ range: { start: position, end: position }, text }]);
  }

  /** Applies LSP text edits (e.g. from a code action) as one incremental change. */
  applyEdits(uri: string, edits: TextEdit[]): Promise<number> {
    // NOTE: LSP edits refer to the text before any of them; applying from the end keeps
    // the earlier ranges valid when they are sent as successive content changes.
    const sorted = [...edits].sort(
      (a, b) => b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character,
    );
    return this.change(
      uri,
      sorted.map((e) => ({ range: e.range, text: e.newText })),
    );
  }

  /** The client's copy of a document. */
  document(uri: string): TextDocument {
    const document = this.documents.get(uri);
    if (!document) throw new Error(`${uri} is not open`);
    return document;
  }

  /** Closes a document. */
  async close(uri: string): Promise<void> {
    this.documents.delete(uri);
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /**
   * Waits for the diagnostics published for `uri` at `version` (the latest such publish);
   * with `after`, only publishes whose sequence is at least `after` count.
   */
  async diagnostics(uri: string, version: number, after = 0, timeoutMs = 10_000): Promise<Diagnostic[]> {
    const publish = await waitFor(
      `diagnostics for ${uri} version ${version}`,
      () => this.publishes.filter((p) => p.uri === uri && p.version === version && p.sequence >= after).pop(),
      timeoutMs,
    );
    return publish.diagnostics;
  }

  /** Versions published for `uri`, in arrival order. */
  publishedVersions(uri: string): (number | undefined)[] {
    return this.publishes.filter((p) => p.uri === uri).map((p) => p.version);
  }

  /** Requests hover at a position. */
  hover(uri: string, position: Position): Promise<Hover | null> {
    return this.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position });
  }

  /** Requests code actions for diagnostics over a range (`only`: the kinds asked for, as on save). */
  codeActions(
    uri: string,
    range: Range,
    diagnostics: Diagnostic[],
    only?: string[],
  ): Promise<CodeAction[] | null> {
    return this.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range,
      context: { diagnostics, only },
    });
  }

  /** Requests inlay hints over a range. */
  inlayHints(uri: string, range: Range): Promise<InlayHint[] | null> {
    return this.connection.sendRequest('textDocument/inlayHint', { textDocument: { uri }, range });
  }

  /** Sends a request and cancels it right away; resolves to what the server answered. */
  async requestThenCancel<T>(method: string, params: unknown): Promise<Outcome<T>> {
    const source = new CancellationTokenSource();
    const pending = this.connection.sendRequest<T>(method, params, source.token);
    source.cancel();
    try {
      return { result: await pending };
    } catch (error) {
      const e = error as { code: number; message: string };
      return { errorCode: e.code, message: e.message };
    }
  }

  /** Sends shutdown (and `exit` when `exit` is true: only for a server in its own process). */
  async shutdown(exit = false): Promise<void> {
    await this.connection.sendRequest('shutdown');
    if (exit) await this.connection.sendNotification('exit');
  }

  /** Closes the client's side of the connection. */
  dispose(): void {
    this.connection.dispose();
  }
}

/** A server started in this process and a client connected to it. */
export interface InProcessPair {
  client: LspClient;
  /** Ends the streams and disposes of both sides. */
  dispose(): Promise<void>;
}

/** Starts `startServer` on one end of two crossed PassThrough streams and a client on the other. */
export function startInProcess(): InProcessPair {
  const clientToServer = new PassThrough();
  const serverToClient = new PassThrough();
  const serverConnection = createConnection(
    new ServerReader(clientToServer),
    new ServerWriter(serverToClient),
  );
  startServer({ connection: serverConnection, wasmDir, docsRoot: repoRoot });
  const client = new LspClient(serverToClient, clientToServer);
  return {
    client,
    async dispose() {
      try {
        await client.shutdown();
      } finally {
        client.dispose();
        serverConnection.dispose();
        clientToServer.end();
        serverToClient.end();
      }
    },
  };
}

/** A bundled server spawned as `node server.js --stdio`, with a client on its pipes. */
export interface SpawnedServer {
  client: LspClient;
  pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code when the process exits. */
  exited: Promise<number | null>;
  /** Disposes of the client and kills the process if it is still running. */
  stop(): void;
}

/** Spawns `serverJs` with `--stdio` (options go to `spawn`: `cwd`, `env`). */
export function spawnServer(
  serverJs: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): SpawnedServer {
  const child = spawn(process.execPath, [serverJs, '--stdio'], {
    ...options,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const client = new LspClient(child.stdout, child.stdin);
  return {
    client,
    pid: child.pid!,
    stderr: () => stderr,
    exited,
    stop() {
      client.dispose();
      if (child.exitCode === null) child.kill();
    },
  };
}

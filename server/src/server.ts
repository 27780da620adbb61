// Connection wiring for the Shardlens language server: capabilities, settings (with
// inlay-hint and code-lens refreshes when they change), debounced diagnostics, hover,
// inlay hints, code lenses, code actions and the custom `shardlens/layerAt` request. Every
// handler is isolated: an exception is logged and answered with an empty result.
import {
  createConnection,
  ProposedFeatures,
  CodeActionKind,
  TextDocuments,
  TextDocumentSyncKind,
  DidChangeConfigurationNotification,
  CodeLensRefreshRequest,
  ResponseError,
  LSPErrorCodes,
  MessageType,
  ShowMessageNotification,
  type CancellationToken,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { join } from 'node:path';
import { initParser } from './parse/parser';
import { settingsFromEditor, type PartialSettings } from './config/settings';
import { Session, editTrackingDocuments, filePathOf } from './session';
import { toDiagnostic, Debouncer } from './features/diagnostics';
import { rehearsalEdits, worthRehearsing } from './features/rehearsal';
import { provideCodeActions } from './features/code-actions';
import { FIX_ALL_KIND } from './features/fix-all';
import { provideHover } from './features/hover';
import { provideInlayHints } from './features/inlay-hints';
import { provideCodeLenses } from './features/code-lens';
import { provideLayerAt } from './features/layer-at';
import {
  EnvironmentNotification,
  LayerAtRequest,
  StatusNotification,
  type ClientInitOptions,
} from './protocol';
import { findingHoverMarkdown } from './features/finding-hover';
import { ruleDocsHref } from './rules/docs';
import { readServerInfo } from './server-info';
import { WorkspaceFiles } from './modules/workspace-files';

/** Options for {@link startServer}; tests pass their own connection and wasm folder. */
export interface ServerOptions {
  connection: Connection;
  /** Folder with the wasm files (dist/ when bundled). */
  wasmDir: string;
  /** Root under which `docs/rules/*.md` lives (the extension or repository folder). */
  docsRoot: string;
}

/** Starts serving on `connection`; resolves once handlers are registered. */
export function startServer({ connection, wasmDir, docsRoot }: ServerOptions): void {
  const debouncer = new Debouncer();
  /** Whether the keystroke path has been warmed up (once per process; see features/rehearsal.ts). */
  let rehearsed = false;
  const info = readServerInfo(docsRoot);
  const grammarStart = Date.now();
  const parserReady = initParser({ wasmDir });
  let session: Session | undefined;
  const documents = new TextDocuments(editTrackingDocuments(() => session));
  /** Parsed workspace files that open documents import (cross-file model evaluation). */
  let workspace: WorkspaceFiles | undefined;
  let workspaceRoots: string[] = [];
  let canPullConfiguration = false;
  let canWatchFolders = false;
  let canRefreshInlayHints = false;
  let canRefreshCodeLenses = false;
  let clientOpensDocs = false;
  /**
   * The settings in the client's initialization options. A `shardlens` section the client
   * later sends replaces them; a client that has no such section (answers `null`) keeps them.
   */
  let initialSettings: PartialSettings = {};
  const editorSettingsFrom = (section: unknown): PartialSettings =>
    section === null || section === undefined ? initialSettings : settingsFromEditor(section);

  const log = (message: string) => connection.console.log(message);
  const logInfo = (message: string) => connection.console.info(message);
  const logError = (context: string, error: unknown) =>
    connection.console.error(`${context}: ${(error as Error)?.stack ?? String(error)}`);

  /** Runs a handler; returns `fallback` on any error, and RequestCancelled when cancelled. */
  async function guarded<T>(
    name: string,
    token: CancellationToken | undefined,
    fallback: T,
    run: () => T,
  ): Promise<T> {
    // NOTE: yield once so a `$/cancelRequest` queued behind this request is seen first.
    await new Promise((resolve) => setImmediate(resolve));
    if (token?.isCancellationRequested)
      throw new ResponseError(LSPErrorCodes.RequestCancelled, `${name} cancelled`);
    try {
      await parserReady;
      if (!session) return fallback;
      const result = run();
      if (token?.isCancellationRequested)
        throw new ResponseError(LSPErrorCodes.RequestCancelled, `${name} cancelled`);
      return result;
    } catch (error) {
      if (error instanceof ResponseError) throw error;
      logError(name, error);
      return fallback;
    }
  }

  connection.onInitialize((params): InitializeResult => {
    canPullConfiguration = !!params.capabilities.workspace?.configuration;
    canWatchFolders = !!params.capabilities.workspace?.workspaceFolders;
    canRefreshInlayHints = !!params.capabilities.workspace?.inlayHint?.refreshSupport;
    canRefreshCodeLenses = !!params.capabilities.workspace?.codeLens?.refreshSupport;
    const options = (params.initializationOptions ?? {}) as ClientInitOptions;
    clientOpensDocs = options.opensRuleDocs === true;
    logInfo(
      `Shardlens language server ${info.version} starting (Node ${process.version}, ` +
        `${workspaceRootsOf(params).length} workspace folder(s))`,
    );
    workspaceRoots = (params.workspaceFolders ?? [])
      .map((folder) => filePathOf(folder.uri))
      .filter((p): p is string => !!p);
    if (workspaceRoots.length === 0 && params.rootUri) {
      const root = filePathOf(params.rootUri);
      if (root) workspaceRoots.push(root);
    }
    initialSettings = settingsFromEditor(options.settings);
    parserReady.then(
      (parser) => {
        logInfo(`Python grammar loaded in ${Date.now() - grammarStart} ms: ${info.grammar}`);
        session = new Session(
          parser,
          () => workspaceRoots,
          () => workspace,
        );
        workspace = new WorkspaceFiles({ roots: workspaceRoots, parser });
        session.setEditorSettings(initialSettings);
      },
      (error) => {
        logError('loading the Python grammar', error);
        connection.sendNotification(StatusNotification.method, {
          state: 'error',
          message: 'the Python grammar failed to load; see the Shardlens output',
        });
      },
    );
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        inlayHintProvider: true,
        codeLensProvider: { resolveProvider: false },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'shardlens', version: info.version },
    };
  });

  connection.onInitialized(async () => {
    if (canPullConfiguration) {
      connection.client.register(DidChangeConfigurationNotification.type, undefined).catch(() => undefined);
      await refreshSettings();
    }
    // NOTE: vscode-languageserver throws here when the client did not announce workspace
    // folder support, which failed the whole `initialized` handler for such clients.
    if (!canWatchFolders) return;
    connection.workspace.onDidChangeWorkspaceFolders((event) => {
      const removed = new Set(event.removed.map((f) => filePathOf(f.uri)));
      workspaceRoots = workspaceRoots.filter((r) => !removed.has(r));
      for (const folder of event.added) {
        const path = filePathOf(folder.uri);
        if (path) workspaceRoots.push(path);
      }
      parserReady
        .then((parser) => (workspace = new WorkspaceFiles({ roots: workspaceRoots, parser })))
        .catch(() => undefined);
    });
  });

  async function refreshSettings(): Promise<void> {
    try {
      await parserReady;
      const section = canPullConfiguration
        ? await connection.workspace.getConfiguration('shardlens')
        : undefined;
      session?.setEditorSettings(editorSettingsFrom(section));
    } catch (error) {
      logError('reading settings', error);
    }
    settingsChanged();
  }

  /** After settings change: new diagnostics, and ask the client to re-request hints and lenses. */
  function settingsChanged(): void {
    revalidateAll();
    if (canRefreshInlayHints) connection.languages.inlayHint.refresh().catch(() => undefined);
    if (canRefreshCodeLenses) connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
  }

  connection.onDidChangeConfiguration(async (change) => {
    if (canPullConfiguration) return refreshSettings();
    session?.setEditorSettings(
      editorSettingsFrom((change.settings as { shardlens?: unknown } | null)?.shardlens),
    );
    settingsChanged();
  });

  connection.onNotification(EnvironmentNotification.method, (params: EnvironmentNotification.Params) => {
    logInfo(
      params.torchVersion
        ? `PyTorch ${params.torchVersion} found with ${params.interpreter}`
        : `No PyTorch found with ${params.interpreter}; version-dependent fixes name the version they need`,
    );
    parserReady
      .then(() => {
        session?.setProbedTorchVersion(params.torchVersion);
        settingsChanged();
      })
      .catch(() => undefined);
  });

  connection.onDidChangeWatchedFiles((params) => {
    for (const change of params.changes) {
      const path = filePathOf(change.uri);
      if (path) workspace?.invalidate(path);
    }
    session?.invalidateAll();
    settingsChanged();
  });

  function revalidateAll(): void {
    for (const document of documents.all()) scheduleValidation(document, 0);
  }

  function scheduleValidation(document: TextDocument, delayMs?: number): void {
    const settingsDelay = session?.settingsFor(document.uri).debounceMs ?? 50;
    debouncer.schedule(document.uri, delayMs ?? settingsDelay, () =>
      validate(document.uri, document.version),
    );
  }

  function validate(uri: string, version: number): void {
    const document = documents.get(uri);
    // NOTE: a newer version is already scheduled; this result would be stale.
    if (!document || document.version !== version || !session) return;
    try {
      const analysis = session.analyse(document);
      for (const failure of analysis.failures) logError(`rule ${failure.code} on ${uri}`, failure.error);
      if (analysis.note) {
        log(`${uri}: ${analysis.note}`);
        connection.sendNotification(StatusNotification.method, {
          state: 'ready',
          message: `${basename(uri)}: ${analysis.note}`,
        });
      }
      for (const problem of session.configProblems) {
        // NOTE: `window.showWarningMessage` sends a window/showMessageRequest whose promise its
        // types hide; a client that declines it left an unhandled rejection. A notification
        // shows the same warning and needs no answer.
        void connection.sendNotification(ShowMessageNotification.type, {
          type: MessageType.Warning,
          message: `Shardlens: ${problem}`,
        });
        connection.console.warn(`Configuration problem: ${problem}`);
      }
      session.configProblems.clear();
      const href = docsHrefFor(uri);
      const diagnostics = analysis.findings.map((finding) => toDiagnostic(finding, href(finding.code)));
      // NOTE: before these diagnostics are sent, so the client's first keystrokes (often sent
      // the moment they arrive) never wait behind the warm-up.
      const usesTorch = analysis.model?.usesTorch === true;
      if (!rehearsed && worthRehearsing(document.lineCount, document.getText().length, usesTorch)) {
        rehearsed = true;
        rehearseTyping(uri);
      }
      connection.sendDiagnostics({ uri, version, diagnostics });
    } catch (error) {
      logError(`analysing ${uri}`, error);
    }
  }

  /** Warms up the keystroke path on a copy of `uri`, once (see features/rehearsal.ts). */
  function rehearseTyping(uri: string): void {
    const document = documents.get(uri);
    if (!document || !session) return;
    try {
      const started = Date.now();
      const versions = session.rehearse(document, rehearsalEdits(document.getText()));
      log(
        `Warmed up the keystroke analysis on a copy of ${basename(uri)}: ${versions} versions, ${Date.now() - started} ms`,
      );
    } catch (error) {
      logError(`rehearsing on ${uri}`, error);
    }
  }

  documents.onDidOpen((event) => {
    parserReady.then(() => scheduleValidation(event.document, 0)).catch(() => undefined);
  });
  documents.onDidChangeContent((event) => {
    if (session) scheduleValidation(event.document);
  });
  documents.onDidClose((event) => {
    debouncer.cancel(event.document.uri);
    session?.forget(event.document.uri);
    connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
  });

  /** The docs link of each rule code for a document (its settings may name hosted docs). */
  const docsHrefFor = (uri: string) => {
    const baseUrl = session?.settingsFor(uri).docsBaseUrl ?? '';
    return (code: string) => ruleDocsHref({ code, baseUrl, docsRoot, clientOpensDocs });
  };

  const modelOf = (uri: string) => {
    const document = documents.get(uri);
    return document && session
      ? { document, analysis: session.analyse(document), settings: session.settingsFor(uri) }
      : undefined;
  };

  connection.onHover((params, token) =>
    guarded('hover', token, null, () => {
      const state = modelOf(params.textDocument.uri);
      if (!state?.analysis.model) return null;
      const finding = findingHoverMarkdown({
        findings: state.analysis.findings,
        position: params.position,
        docsHref: docsHrefFor(params.textDocument.uri),
      });
      const model = provideHover({
        model: state.analysis.model,
        position: params.position,
        settings: state.settings,
        workspace,
      });
      const parts = [finding, model ? (model.contents as { value: string }).value : undefined].filter(
        Boolean,
      );
      return parts.length
        ? { contents: { kind: 'markdown' as const, value: parts.join('\n\n---\n\n') } }
        : null;
    }),
  );

  connection.languages.inlayHint.on((params, token) =>
    guarded('inlay hints', token, [], () => {
      const state = modelOf(params.textDocument.uri);
      if (!state?.analysis.model || !state.settings.inlayHints) return [];
      return provideInlayHints({
        model: state.analysis.model,
        range: params.range,
        settings: state.settings,
        workspace,
      });
    }),
  );

  connection.onCodeLens((params, token) =>
    guarded('code lens', token, [], () => {
      const state = modelOf(params.textDocument.uri);
      if (!state?.analysis.model || !state.settings.codeLens) return [];
      return provideCodeLenses({
        model: state.analysis.model,
        settings: state.settings,
        workspace,
        uri: params.textDocument.uri,
      });
    }),
  );

  connection.onCodeAction((params, token) =>
    guarded('code actions', token, [], () => {
      const state = modelOf(params.textDocument.uri);
      if (!state?.analysis.model) return [];
      return provideCodeActions({
        uri: params.textDocument.uri,
        diagnostics: params.context.diagnostics,
        source: state.analysis.model.source,
        only: params.context.only,
        findings: state.analysis.findings,
        torchVersion: state.settings.torchVersion,
      });
    }),
  );

  connection.onRequest(
    LayerAtRequest.method,
    (params: LayerAtRequest.Params, token): Promise<LayerAtRequest.Result> =>
      guarded('layerAt', token, null, () => {
        const state = modelOf(params.textDocument.uri);
        if (!state?.analysis.model) return null;
        return provideLayerAt({
          model: state.analysis.model,
          position: params.position,
          settings: state.settings,
          workspace,
        });
      }),
  );

  connection.onShutdown(() => {
    // NOTE: a debounced validation firing after shutdown would write to a disposed connection.
    for (const document of documents.all()) debouncer.cancel(document.uri);
  });

  documents.listen(connection);
  connection.listen();
}

function workspaceRootsOf(params: {
  workspaceFolders?: { uri: string }[] | null;
  rootUri?: string | null;
}): string[] {
  return params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
}

function basename(uri: string): string {
  return uri.slice(uri.lastIndexOf('/') + 1);
}

/** Entry point when run as `node dist/server.js --stdio` (bundled beside the wasm files). */
function main(): void {
  const connection = createConnection(ProposedFeatures.all);
  process.on('uncaughtException', (error) => connection.console.error(`uncaught: ${error.stack ?? error}`));
  process.on('unhandledRejection', (error) =>
    connection.console.error(`unhandled rejection: ${String(error)}`),
  );
  startServer({ connection, wasmDir: __dirname, docsRoot: join(__dirname, '..') });
}

// NOTE: in a bundle that imports this file (the LSP tests) `require.main === module` holds
// too, so also require that the running bundle is the server's own.
if (require.main === module && /(^|[\\/])server\.js$/.test(__filename)) main();

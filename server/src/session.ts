// The server's state for open documents: one analysis per document version (memoised,
// so diagnostics, hover and code actions share it), each document's last syntax tree
// (edited and re-parsed incrementally), and the settings that apply to each file (editor
// settings merged with the nearest pyproject.toml, which wins).
import type { Parser } from 'web-tree-sitter';
import { TextDocument, type TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import type { TextDocumentsConfiguration } from 'vscode-languageserver';
import { DocumentTrees } from './parse/incremental';
import { spanningEdit, type TextEdit } from './parse/edit-spans';
import { KindCarry } from './analysis/kind-carry';
import { URI } from 'vscode-uri';
import { analyzeText, type FileAnalysis } from './analyzer';
import { mergeSettings, type PartialSettings, type Settings } from './config/settings';
import { loadPyprojectFor, clearPyprojectCache } from './config/pyproject';
import type { WorkspaceFiles } from './modules/workspace-files';
import { rehearse } from './features/rehearsal';

interface CachedAnalysis {
  version: number;
  settings: Settings;
  analysis: FileAnalysis;
}

/** Open-document analyses and effective settings. */
export class Session {
  private readonly cache = new Map<string, CachedAnalysis>();
  /** Each open document's kind-inference memo, carried from one version to the next. */
  private readonly carries = new Map<string, KindCarry>();
  /**
   * Effective settings per document URI. Every keystroke and every hover asks for them, and
   * computing them walks up the folders looking for pyproject.toml; they change only with
   * the editor settings or a file event, which clear this cache.
   */
  private readonly settingsCache = new Map<string, Settings>();
  private editorSettings: PartialSettings = {};
  /** `torch.__version__` of the workspace interpreter, as the client probed it ('' if unknown). */
  private probedTorchVersion = '';
  /** Messages about configuration (e.g. an invalid pyproject.toml), reported once each. */
  readonly configProblems = new Set<string>();
  /** Every problem ever put in `configProblems`, so that each is reported once, not per edit. */
  private readonly reportedProblems = new Set<string>();
  /** The last wasm tree of each open document, for incremental re-parsing. */
  readonly trees: DocumentTrees;

  constructor(
    private readonly parser: Parser,
    private readonly workspaceRoots: () => string[],
    /** The workspace files hot-step calls are followed into (absent in tests and before init). */
    private readonly workspaceFiles: () => WorkspaceFiles | undefined = () => undefined,
  ) {
    this.trees = new DocumentTrees(parser);
  }

  /** Records the edits that turned `before` into a document's next text (see {@link editTrackingDocuments}). */
  noteEdits(uri: string, before: string, edits: readonly TextEdit[]): void {
    this.trees.edit(uri, before, edits);
  }

  /** Replaces the editor-side settings (initialization options, or the `shardlens` section). */
  setEditorSettings(settings: PartialSettings): void {
    this.editorSettings = settings;
    this.settingsCache.clear();
    this.cache.clear();
  }

  /** Records the interpreter's torch version (settings and pyproject.toml still win). */
  setProbedTorchVersion(version: string | null): void {
    if ((version ?? '') === this.probedTorchVersion) return;
    this.probedTorchVersion = version ?? '';
    this.settingsCache.clear();
    this.cache.clear();
  }

  /** Forgets cached configuration and analyses (after file or settings changes). */
  invalidateAll(): void {
    clearPyprojectCache();
    this.reportedProblems.clear();
    this.settingsCache.clear();
    this.cache.clear();
  }

  /** Drops the analysis of a closed document. */
  forget(uri: string): void {
    this.trees.forget(uri);
    this.cache.delete(uri);
    this.carries.delete(uri);
    this.settingsCache.delete(uri);
  }

  /** The settings that apply to a document: editor settings, then its pyproject.toml on top. */
  settingsFor(uri: string): Settings {
    let settings = this.settingsCache.get(uri);
    if (!settings) {
      settings = this.computeSettings(uri);
      this.settingsCache.set(uri, settings);
    }
    return settings;
  }

  private computeSettings(uri: string): Settings {
    const probed: PartialSettings = this.probedTorchVersion ? { torchVersion: this.probedTorchVersion } : {};
    const path = filePathOf(uri);
    if (!path) return mergeSettings(probed, this.editorSettings);
    const root = this.workspaceRoots().find((r) => path.startsWith(r));
    const pyproject = loadPyprojectFor(path, root);
    if (pyproject?.error && !this.reportedProblems.has(pyproject.error)) {
      this.reportedProblems.add(pyproject.error);
      this.configProblems.add(pyproject.error);
    }
    const pin: PartialSettings = pyproject?.torchPin ? { torchVersion: pyproject.torchPin } : {};
    return mergeSettings(pin, probed, this.editorSettings, pyproject?.settings ?? {});
  }

  /** The workspace files and the root a document's paths are shown from, if it is in a root. */
  private workspaceFor(uri: string): { files: WorkspaceFiles; root: string } | undefined {
    const files = this.workspaceFiles();
    const path = filePathOf(uri);
    const root = path && this.workspaceRoots().find((r) => path.startsWith(r));
    return files && root ? { files, root } : undefined;
  }

  private carryFor(uri: string): KindCarry {
    let carry = this.carries.get(uri);
    if (!carry) this.carries.set(uri, (carry = new KindCarry()));
    return carry;
  }

  /**
   * Types `edits` into a private copy of `document` and analyses each version as `analyse`
   * would, publishing and caching nothing (a warm-up: see features/rehearsal.ts); the copy's
   * tree and memo are dropped. Returns how many versions were analysed.
   */
  rehearse(document: TextDocument, edits: readonly TextEdit[]): number {
    const key = `${document.uri}#rehearsal`;
    const carry = new KindCarry();
    try {
      return rehearse(document.getText(), edits, (text, change) => {
        if (change) this.trees.edit(key, change.before, [change.edit]);
        this.analyseText(document.uri, text, key, carry);
      });
    } finally {
      this.trees.forget(key);
    }
  }

  /** The analysis of a document's current version (computed once per version and settings). */
  analyse(document: TextDocument): FileAnalysis {
    const settings = this.settingsFor(document.uri);
    const cached = this.cache.get(document.uri);
    if (cached && cached.version === document.version && cached.settings === settings) return cached.analysis;
    const analysis = this.analyseText(
      document.uri,
      document.getText(),
      document.uri,
      this.carryFor(document.uri),
    );
    this.cache.set(document.uri, { version: document.version, settings, analysis });
    return analysis;
  }

  /** Analyses `text` as the document `uri`, re-parsing the tree kept under `treeKey`. */
  private analyseText(uri: string, text: string, treeKey: string, carry: KindCarry): FileAnalysis {
    return analyzeText({
      parser: this.parser,
      text,
      filePath: filePathOf(uri),
      settings: this.settingsFor(uri),
      parse: (t) => this.trees.parse(treeKey, t),
      workspace: this.workspaceFor(uri),
      carry,
    });
  }
}

/**
 * The `TextDocuments` configuration of the server: applies each content change as
 * `TextDocument` does (one at a time, in order) and reports it, in offsets of the text
 * before it, to the session of the moment (so its tree is edited before the re-parse).
 */
export function editTrackingDocuments(
  session: () => Session | undefined,
): TextDocumentsConfiguration<TextDocument> {
  return {
    create: (uri, languageId, version, content) => TextDocument.create(uri, languageId, version, content),
    update(document, changes: TextDocumentContentChangeEvent[], version) {
      const target = session();
      if (!target) return TextDocument.update(document, changes, version);
      const before = document.getText();
      const edits: TextEdit[] = [];
      let incremental = true;
      for (const change of changes) {
        if ('range' in change && change.range) {
          const a = document.offsetAt(change.range.start);
          const b = document.offsetAt(change.range.end);
          edits.push({ start: Math.min(a, b), oldEnd: Math.max(a, b), newText: change.text });
        } else incremental = false;
        TextDocument.update(document, [change], version);
      }
      // A client that sends the whole text (full sync) still gets an incremental re-parse:
      // the change is the span where the old and new texts differ.
      const change = incremental ? undefined : spanningEdit(before, document.getText());
      target.noteEdits(document.uri, before, incremental ? edits : change ? [change] : []);
      return document;
    },
  };
}

/** The file-system path of a `file:` URI, or null for other schemes (untitled, ...). */
export function filePathOf(uri: string): string | null {
  try {
    const parsed = URI.parse(uri);
    return parsed.scheme === 'file' ? parsed.fsPath : null;
  } catch {
    return null;
  }
}

// The analyzer shared by the language server and the CLI: parse a document, build its
// FileModel, run the rules. It never throws for bad input: oversize, binary or broken
// text yields a result with a note and no findings (or the findings it could make).
import type { Parser } from 'web-tree-sitter';
import { parseSource, type ParsedSource } from './parse/parser';
import { buildFileModel, mayImportTorch, type FileModel } from './analysis/file-model';
import { runRules } from './rules/engine';
import type { KindCarry } from './analysis/kind-carry';
import type { Settings } from './config/settings';
import type { Finding } from './rules/types';
import type { WorkspaceFiles } from './modules/workspace-files';
import { crossFileSyncFindings } from './rules/cross-file-syncs';

/** Files above this size are not analysed (a clear note says so). */
export const MAX_ANALYSED_BYTES = 2 * 1024 * 1024;

/** The outcome of analysing one text. */
export interface FileAnalysis {
  model: FileModel | undefined;
  findings: Finding[];
  /** Why the file was not (fully) analysed, for the log, the status bar or the CLI. */
  note?: string;
  /** Rules or stages that threw, for the log. */
  failures: { code: string; error: string }[];
}

/** Analyses `text` with `settings`; never throws. */
export function analyzeText(input: {
  parser: Parser;
  text: string;
  filePath: string | null;
  settings: Settings;
  /** Parses the text instead of a fresh parse (the server's incremental parse of open documents). */
  parse?: (text: string) => ParsedSource;
  /** Workspace files the hot step's calls are followed into, and the folder paths are shown from. */
  workspace?: { files: WorkspaceFiles; root: string };
  /**
   * The caller wants the findings only (the CLI): a text with no import statement that can
   * name a PyTorch framework cannot have any (see `mayImportTorch`), so it is not parsed and
   * has no model.
   */
  findingsOnly?: boolean;
  /** The document's kind-inference memo (the server's open documents), carried across versions. */
  carry?: KindCarry;
}): FileAnalysis {
  const { parser, text, filePath, settings } = input;
  const parse = input.parse ?? ((source: string) => parseSource(parser, source));
  const sizeBytes = Buffer.byteLength(text, 'utf8');
  if (sizeBytes > MAX_ANALYSED_BYTES) {
    const megabytes = (sizeBytes / 1024 / 1024).toFixed(1);
    return {
      model: undefined,
      findings: [],
      failures: [],
      note: `not analysed: ${megabytes} MB is over the ${MAX_ANALYSED_BYTES / 1024 / 1024} MB limit`,
    };
  }
  if (input.findingsOnly && !mayImportTorch(text)) return { model: undefined, findings: [], failures: [] };
  let model: FileModel;
  try {
    model = buildFileModel({ parsed: parse(text), filePath, carry: input.carry });
  } catch (error) {
    return {
      model: undefined,
      findings: [],
      failures: [{ code: 'analysis', error: String((error as Error).stack ?? error) }],
      note: 'not analysed: the analysis failed',
    };
  }
  input.workspace?.files.beginRequest(filePath);
  const { findings, failures } = runRules(model, settings, undefined, input.workspace);
  if (input.workspace) {
    try {
      const seen = new Set(findings.map((f) => `${f.code}@${f.range.start.line}:${f.range.start.column}`));
      const extra = crossFileSyncFindings({
        model,
        settings,
        workspace: input.workspace.files,
        root: input.workspace.root,
      });
      for (const f of extra)
        if (!seen.has(`${f.code}@${f.range.start.line}:${f.range.start.column}`)) findings.push(f);
      findings.sort(
        (a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column,
      );
    } catch (error) {
      failures.push({ code: 'cross-file', error: String((error as Error).stack ?? error) });
    }
  }
  return { model, findings, failures };
}

// Code actions: the quick fixes precomputed in each diagnostic's `data` (a fix that needs a
// newer PyTorch than the workspace is known to have is never the preferred one), "Disable
// SLxxx for this line / for this file" as Ruff offers, and `source.fixAll.shardlens`.
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver';
import type { SourceText } from '../parse/syntax';
import type { Finding } from '../rules/types';
import type { DiagnosticData } from './diagnostics';
import { FIX_ALL_KIND, fixAllAction, isSafeToApply } from './fix-all';
import { disableForFileAction, disableForLineAction } from './suppress-actions';

/** Whether a request's `only` filter asks for actions of `kind` (LSP kinds are dot-separated prefixes). */
function wants(only: readonly string[] | undefined, kind: string): boolean {
  if (!only) return kind === CodeActionKind.QuickFix;
  return only.some((o) => kind === o || kind.startsWith(`${o}.`));
}

/** Quick fixes for the Shardlens diagnostics in a code-action request, and fix-all when asked. */
export function provideCodeActions(input: {
  uri: string;
  diagnostics: Diagnostic[];
  source: SourceText;
  /** `context.only` of the request. */
  only?: readonly string[];
  /** The file's findings, for fix-all (which may run with no diagnostic in the request). */
  findings?: readonly Finding[];
  torchVersion?: string;
}): CodeAction[] {
  const actions: CodeAction[] = [];
  const torchVersion = input.torchVersion ?? '';
  if (wants(input.only, CodeActionKind.QuickFix)) {
    for (const diagnostic of input.diagnostics) {
      if (diagnostic.source !== 'shardlens' || typeof diagnostic.code !== 'string') continue;
      const data = diagnostic.data as DiagnosticData | undefined;
      let preferred = false;
      for (const fix of data?.fixes ?? []) {
        const edits: TextEdit[] = fix.edits.map((edit) => ({
          range: {
            start: { line: edit.range.start.line, character: edit.range.start.column },
            end: { line: edit.range.end.line, character: edit.range.end.column },
          },
          newText: edit.newText,
        }));
        const safe = isSafeToApply(fix, torchVersion);
        actions.push({
          title: fix.title,
          kind: CodeActionKind.QuickFix,
          diagnostics: [diagnostic],
          isPreferred: safe && !preferred,
          edit: { changes: { [input.uri]: edits } },
        });
        preferred ||= safe;
      }
      actions.push(disableForLineAction(input.uri, diagnostic, input.source));
      actions.push(disableForFileAction(input.uri, diagnostic, input.source));
    }
  }
  if (input.only && wants(input.only, FIX_ALL_KIND) && input.findings) {
    const fixAll = fixAllAction({ uri: input.uri, findings: input.findings, torchVersion });
    if (fixAll) actions.push(fixAll);
  }
  return actions;
}

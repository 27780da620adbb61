// Code actions: the quick fixes precomputed in each diagnostic's `data`, plus "suppress
// this code on this line" (a `# shardlens: ignore[CODE]` comment), as Ruff offers.
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver';
import type { SourceText } from '../parse/syntax';
import type { DiagnosticData } from './diagnostics';

/** Quick fixes for the Shardlens diagnostics in a code-action request. */
export function provideCodeActions(input: {
  uri: string;
  diagnostics: Diagnostic[];
  source: SourceText;
}): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of input.diagnostics) {
    if (diagnostic.source !== 'shardlens' || typeof diagnostic.code !== 'string') continue;
    const data = diagnostic.data as DiagnosticData | undefined;
    for (const fix of data?.fixes ?? []) {
      const edits: TextEdit[] = fix.edits.map((edit) => ({
        range: {
          start: { line: edit.range.start.line, character: edit.range.start.column },
          end: { line: edit.range.end.line, character: edit.range.end.column },
        },
        newText: edit.newText,
      }));
      actions.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: actions.length === 0,
        edit: { changes: { [input.uri]: edits } },
      });
    }
    actions.push(suppressionAction(input.uri, diagnostic, input.source));
  }
  return actions;
}

function suppressionAction(uri: string, diagnostic: Diagnostic, source: SourceText): CodeAction {
  const line = diagnostic.range.start.line;
  const text = source.lineText(line);
  const code = diagnostic.code as string;
  const existing = /#\s*shardlens:\s*ignore\[([^\]]*)\]/.exec(text);
  let edit: TextEdit;
  if (existing) {
    const start = existing.index + existing[0].length - 1;
    edit = {
      range: { start: { line, character: start }, end: { line, character: start } },
      newText: `, ${code}`,
    };
  } else {
    const end = text.length;
    edit = {
      range: { start: { line, character: end }, end: { line, character: end } },
      newText: `  # shardlens: ignore[${code}]`,
    };
  }
  return {
    title: `Suppress ${code} on this line`,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    edit: { changes: { [uri]: [edit] } },
  };
}

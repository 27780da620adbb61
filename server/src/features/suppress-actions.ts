// "Disable SLxxx for this line" (a `# shardlens: ignore[SLxxx]` comment at the end of the
// line, or the code added to one already there) and "Disable SLxxx for this file" (a
// `# shardlens: ignore-file[SLxxx]` comment at the top, after a shebang or encoding line).
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver';
import type { SourceText } from '../parse/syntax';

const LINE_IGNORE = /#\s*shardlens:\s*ignore(?!-)\[([^\]]*)\]/;
const FILE_IGNORE = /^\s*#\s*shardlens:\s*ignore-file\[([^\]]*)\]/;

const insertAt = (line: number, character: number, newText: string): TextEdit => ({
  range: { start: { line, character }, end: { line, character } },
  newText,
});

/** "Disable CODE for this line". */
export function disableForLineAction(uri: string, diagnostic: Diagnostic, source: SourceText): CodeAction {
  const line = diagnostic.range.start.line;
  const text = source.lineText(line);
  const code = diagnostic.code as string;
  const existing = LINE_IGNORE.exec(text);
  const edit = existing
    ? insertAt(line, existing.index + existing[0].length - 1, `, ${code}`)
    : insertAt(line, text.length, `  # shardlens: ignore[${code}]`);
  return {
    title: `Disable ${code} for this line`,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    edit: { changes: { [uri]: [edit] } },
  };
}

/** "Disable CODE for this file". */
export function disableForFileAction(uri: string, diagnostic: Diagnostic, source: SourceText): CodeAction {
  const code = diagnostic.code as string;
  let edit: TextEdit | undefined;
  let line = 0;
  // A shebang and an encoding declaration must stay on the first lines.
  while (line < Math.min(2, source.lineCount) && /^#!|^#.*coding[:=]/.test(source.lineText(line))) line++;
  for (let i = 0; i < Math.min(source.lineCount, 50); i++) {
    const existing = FILE_IGNORE.exec(source.lineText(i));
    if (existing) {
      edit = insertAt(i, existing.index + existing[0].length - 1, `, ${code}`);
      break;
    }
  }
  edit ??= insertAt(line, 0, `# shardlens: ignore-file[${code}]\n`);
  return {
    title: `Disable ${code} for this file`,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    edit: { changes: { [uri]: [edit] } },
  };
}

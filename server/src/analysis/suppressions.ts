// Suppression comments: `# shardlens: ignore[SL101, SL2]`, `# shardlens: ignore` (every
// code) and `# noqa: SL101` (codes only: a bare `# noqa` belongs to other linters) on any
// line of the flagged statement; `# shardlens: ignore-file[SL101]` and a bare
// `# shardlens: ignore-file` anywhere in the file silence those codes (or all) file-wide.
import type { SyntaxNode } from '../parse/syntax';

// NOTE: `(?!-)` keeps `ignore-file` from reading as a line-level `ignore` of every code.
const SHARDLENS_IGNORE = /#\s*shardlens:\s*ignore(?!-)(?:\[([^\]]*)\])?/i;
const SHARDLENS_IGNORE_FILE = /#\s*shardlens:\s*ignore-file(?:\[([^\]]*)\])?/i;
const NOQA = /#\s*noqa:\s*([A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)/i;
/** What every pattern above needs: most comments have neither word and are read once. */
const MAY_SUPPRESS = /shardlens|noqa/i;

/** Suppressed codes by zero-based line, and for the whole file; `*` means every code. */
export class Suppressions {
  private readonly byLine = new Map<number, Set<string>>();
  private readonly fileWide = new Set<string>();

  constructor(comments: readonly SyntaxNode[]) {
    for (const comment of comments) {
      if (!MAY_SUPPRESS.test(comment.text)) continue;
      const fileCodes = parseFileSuppression(comment.text);
      if (fileCodes) for (const code of fileCodes) this.fileWide.add(code);
      const codes = parseSuppression(comment.text);
      if (codes) this.byLine.set(comment.start.line, new Set(codes));
    }
  }

  /** Whether the file has no suppression comment at all (nothing is ever suppressed). */
  get isEmpty(): boolean {
    return this.byLine.size === 0 && this.fileWide.size === 0;
  }

  /** Whether an `ignore-file` comment silences `code` (or every code) in this file. */
  isSuppressedInFile(code: string): boolean {
    if (this.fileWide.size === 0) return false;
    if (this.fileWide.has('*')) return true;
    for (const prefix of this.fileWide) if (code.startsWith(prefix)) return true;
    return false;
  }

  /** Whether `code` is suppressed on any line from `firstLine` to `lastLine` inclusive, or file-wide. */
  isSuppressed(code: string, firstLine: number, lastLine: number): boolean {
    if (this.isSuppressedInFile(code)) return true;
    if (this.byLine.size === 0) return false;
    for (let line = firstLine; line <= lastLine; line++) {
      const codes = this.byLine.get(line);
      if (!codes) continue;
      if (codes.has('*')) return true;
      for (const prefix of codes) if (code.startsWith(prefix)) return true;
    }
    return false;
  }
}

const codeList = (text: string | undefined) =>
  text
    ?.split(',')
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);

/** The codes a line comment suppresses (`['*']` for all), or undefined if it is no suppression. */
export function parseSuppression(comment: string): string[] | undefined {
  const ours = SHARDLENS_IGNORE.exec(comment);
  if (ours) {
    const list = codeList(ours[1]);
    return list && list.length ? list : ['*'];
  }
  const noqa = NOQA.exec(comment);
  if (noqa) return codeList(noqa[1])!.filter((c) => c.startsWith('SL'));
  return undefined;
}

/** The codes an `ignore-file` comment suppresses (`['*']` for all), or undefined. */
export function parseFileSuppression(comment: string): string[] | undefined {
  const match = SHARDLENS_IGNORE_FILE.exec(comment);
  if (!match) return undefined;
  const list = codeList(match[1]);
  return list && list.length ? list : ['*'];
}

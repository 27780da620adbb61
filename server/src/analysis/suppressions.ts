// Suppression comments: `# shardlens: ignore[SL101, SL2]`, `# shardlens: ignore` (every
// code) and `# noqa: SL101` (codes only: a bare `# noqa` belongs to other linters) on any
// line of the flagged statement.
import type { SyntaxNode } from '../parse/syntax';

const SHARDLENS_IGNORE = /#\s*shardlens:\s*ignore(?:\[([^\]]*)\])?/i;
const NOQA = /#\s*noqa:\s*([A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)/i;

/** Suppressed codes by zero-based line; `*` means every code. */
export class Suppressions {
  private readonly byLine = new Map<number, Set<string>>();

  constructor(comments: readonly SyntaxNode[]) {
    for (const comment of comments) {
      const codes = parseSuppression(comment.text);
      if (codes) this.byLine.set(comment.start.line, new Set(codes));
    }
  }

  /** Whether `code` is suppressed on any line from `firstLine` to `lastLine` inclusive. */
  isSuppressed(code: string, firstLine: number, lastLine: number): boolean {
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

/** The codes a comment suppresses (`['*']` for all), or undefined if it is no suppression. */
export function parseSuppression(comment: string): string[] | undefined {
  const ours = SHARDLENS_IGNORE.exec(comment);
  if (ours) {
    const list = ours[1]
      ?.split(',')
      .map((c) => c.trim().toUpperCase())
      .filter(Boolean);
    return list && list.length ? list : ['*'];
  }
  const noqa = NOQA.exec(comment);
  if (noqa)
    return noqa[1]
      .split(',')
      .map((c) => c.trim().toUpperCase())
      .filter((c) => c.startsWith('SL'));
  return undefined;
}

// Inline expectations in Python fixtures (semgrep style, spelled our way): a comment
// `# expect: SL101` (several codes separated by commas) marks the next code line as one
// that must be flagged with each code; `# ok: SL101` marks it as one that must not be.
// A trailing `# expect: SL101` on a code line applies to that line.

/** Expected and forbidden codes by zero-based line. */
export interface Expectations {
  expected: Map<number, Set<string>>;
  forbidden: Map<number, Set<string>>;
}

const MARKER = /#\s*(expect|ok):\s*([A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*)/;

/** Reads the markers of a fixture. */
export function readExpectations(text: string): Expectations {
  const lines = text.split(/\r?\n/);
  const expected = new Map<number, Set<string>>();
  const forbidden = new Map<number, Set<string>>();
  const pending: { kind: string; codes: string[] }[] = [];
  lines.forEach((line, index) => {
    const match = MARKER.exec(line);
    const isCommentLine = line.trim().startsWith('#');
    if (match && isCommentLine) {
      pending.push({ kind: match[1], codes: match[2].split(',').map((c) => c.trim()) });
      return;
    }
    if (line.trim() === '' || isCommentLine) return;
    const here = [
      ...pending.splice(0),
      ...(match ? [{ kind: match[1], codes: match[2].split(',').map((c) => c.trim()) }] : []),
    ];
    for (const { kind, codes } of here) {
      const target = kind === 'expect' ? expected : forbidden;
      const set = target.get(index) ?? new Set<string>();
      codes.forEach((code) => set.add(code));
      target.set(index, set);
    }
  });
  return { expected, forbidden };
}

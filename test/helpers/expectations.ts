// Inline expectations in Python fixtures (semgrep style, spelled our way): a comment
// `# expect: SL101 warning` (several separated by commas) marks the next code line as one
// that must be flagged with each code at that severity; `# ok: SL101` marks it as one that
// must not be flagged. A trailing marker on a code line applies to that line. An `expect`
// without a severity is reported as a malformed marker: every fixture states its severity.

/** Expected codes (with their severity) and forbidden codes, by zero-based line. */
export interface Expectations {
  /** Line → code → expected severity (`undefined` when the marker omitted it). */
  expected: Map<number, Map<string, string | undefined>>;
  forbidden: Map<number, Set<string>>;
  /** Markers that name a code without a severity (`# expect: SL101`), by one-based line. */
  malformed: string[];
}

const MARKER =
  /#\s*(expect|ok):\s*([A-Z]+\d+(?:\s+(?:error|warning|information|hint))?(?:\s*,\s*[A-Z]+\d+(?:\s+(?:error|warning|information|hint))?)*)/;

interface Marker {
  kind: string;
  entries: { code: string; severity?: string }[];
  line: number;
}

function parseEntries(list: string): Marker['entries'] {
  return list.split(',').map((entry) => {
    const [code, severity] = entry.trim().split(/\s+/);
    return { code, severity };
  });
}

/** Reads the markers of a fixture. */
export function readExpectations(text: string): Expectations {
  const lines = text.split(/\r?\n/);
  const expected = new Map<number, Map<string, string | undefined>>();
  const forbidden = new Map<number, Set<string>>();
  const malformed: string[] = [];
  const pending: Marker[] = [];
  lines.forEach((line, index) => {
    const match = MARKER.exec(line);
    const isCommentLine = line.trim().startsWith('#');
    if (match && isCommentLine) {
      pending.push({ kind: match[1], entries: parseEntries(match[2]), line: index + 1 });
      return;
    }
    if (line.trim() === '' || isCommentLine) return;
    const here = [
      ...pending.splice(0),
      ...(match ? [{ kind: match[1], entries: parseEntries(match[2]), line: index + 1 }] : []),
    ];
    for (const { kind, entries, line: markerLine } of here) {
      for (const { code, severity } of entries) {
        if (kind === 'expect') {
          if (!severity) malformed.push(`line ${markerLine}: \`# expect: ${code}\` names no severity`);
          const codes = expected.get(index) ?? new Map<string, string | undefined>();
          codes.set(code, severity);
          expected.set(index, codes);
        } else {
          const set = forbidden.get(index) ?? new Set<string>();
          set.add(code);
          forbidden.set(index, set);
        }
      }
    }
  });
  return { expected, forbidden, malformed };
}

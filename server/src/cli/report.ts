// Formats CLI findings as text (`path:line:col: CODE message`), JSON (1-based lines and
// UTF-16 columns, end exclusive) or SARIF 2.1.0 (with one rule descriptor per code).
import type { Finding, Severity } from '../rules/types';
import { rules } from '../rules/index';
import { docsPath } from '../rules/docs';

/** One finding with the file it is in (path relative to the working directory, `/`-separated). */
export interface FileFinding {
  file: string;
  finding: Finding;
}

/** JSON severities, as the CLI spells them. */
export const JSON_SEVERITY: Record<Severity, string> = {
  error: 'error',
  warning: 'warning',
  information: 'info',
  hint: 'hint',
};

const SARIF_LEVEL: Record<Severity, string> = {
  error: 'error',
  warning: 'warning',
  information: 'note',
  hint: 'note',
};

/** Text output: one line a finding, `path:line:col: CODE message` (1-based, UTF-16 columns). */
export function formatText(findings: FileFinding[]): string {
  return findings
    .map(
      ({ file, finding }) =>
        `${file}:${finding.range.start.line + 1}:${finding.range.start.column + 1}: ${finding.code} ${finding.message}`,
    )
    .join('\n');
}

/** JSON output: an array of flat objects. */
export function formatJson(findings: FileFinding[]): string {
  return JSON.stringify(
    findings.map(({ file, finding }) => ({
      file,
      line: finding.range.start.line + 1,
      column: finding.range.start.column + 1,
      endLine: finding.range.end.line + 1,
      endColumn: finding.range.end.column + 1,
      code: finding.code,
      severity: JSON_SEVERITY[finding.severity],
      message: finding.message,
    })),
    null,
    2,
  );
}

/** SARIF 2.1.0 output, with rule metadata for every code (so viewers can show docs). */
export function formatSarif(findings: FileFinding[], version: string): string {
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'shardlens',
            version,
            rules: rules.map((rule) => ({
              id: rule.code,
              name: rule.name,
              shortDescription: { text: rule.summary },
              helpUri: docsPath(rule.code),
              defaultConfiguration: {
                level: rule.severity === 'by-role' ? 'warning' : SARIF_LEVEL[rule.severity],
              },
              properties: { category: rule.category },
            })),
          },
        },
        columnKind: 'utf16CodeUnits',
        results: findings.map(({ file, finding }) => ({
          ruleId: finding.code,
          ruleIndex: rules.findIndex((r) => r.code === finding.code),
          level: SARIF_LEVEL[finding.severity],
          message: { text: finding.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: file },
                region: {
                  startLine: finding.range.start.line + 1,
                  startColumn: finding.range.start.column + 1,
                  endLine: finding.range.end.line + 1,
                  endColumn: finding.range.end.column + 1,
                },
              },
            },
          ],
        })),
      },
    ],
  };
  return JSON.stringify(sarif, null, 2);
}

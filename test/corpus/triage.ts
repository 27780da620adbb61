// The corpus triage table (`npm run corpus -- DIR...`, outside CI: the corpus is fetched
// public code, not part of the repository): every finding in the Python files under each
// DIR as one row — file:line, code, severity, loop role, the source line — then counts by
// code and severity. `--min warning` keeps only findings at or above that severity;
// `--json FILE` also writes the rows for later comparison.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { initParser } from '../../server/src/parse/parser';
import { analyzeText } from '../../server/src/analyzer';
import { WorkspaceFiles } from '../../server/src/modules/workspace-files';
import { mergeSettings } from '../../server/src/config/settings';
import { discoverPythonFiles } from '../../server/src/cli/discover';
import type { Severity } from '../../server/src/rules/types';

const SEVERITY_RANK: Record<Severity, number> = { hint: 0, information: 1, warning: 2, error: 3 };

/** One row of the triage table. */
interface TriageRow {
  file: string;
  line: number;
  code: string;
  severity: Severity;
  role: string;
  source: string;
  message: string;
}

function parseArgs(argv: string[]): { dirs: string[]; min: number; json?: string; wasmDir: string } {
  const dirs: string[] = [];
  let min = 0;
  let json: string | undefined;
  let wasmDir = resolve(__dirname, '..', '..', 'dist');
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--min') min = SEVERITY_RANK[argv[++i] as Severity] ?? 0;
    else if (argv[i] === '--json') json = argv[++i];
    else if (argv[i] === '--wasm') wasmDir = argv[++i];
    else dirs.push(argv[i]);
  }
  return { dirs, min, json, wasmDir };
}

async function main(): Promise<number> {
  const { dirs, min, json, wasmDir } = parseArgs(process.argv.slice(2));
  if (dirs.length === 0) {
    process.stderr.write('usage: npm run corpus -- DIR... [--min warning] [--json FILE]\n');
    return 2;
  }
  const parser = await initParser({ wasmDir });
  const settings = mergeSettings({});
  const cwd = process.cwd();
  const rows: TriageRow[] = [];
  let fileCount = 0;
  for (const dir of dirs) {
    const paths = statSync(dir).isDirectory()
      ? discoverPythonFiles({ paths: [dir], cwd, exclude: [] }).files
      : [resolve(dir)];
    // Each folder is one workspace: calls from a step into its other files are followed.
    const root = resolve(statSync(dir).isDirectory() ? dir : dirname(dir));
    const workspace = { files: new WorkspaceFiles({ roots: [root], parser }), root };
    for (const file of paths) {
      fileCount++;
      const text = readFileSync(file, 'utf8');
      const analysis = analyzeText({ parser, text, filePath: file, settings, workspace });
      for (const failure of analysis.failures)
        process.stderr.write(`${file}: internal error in ${failure.code}: ${failure.error.split('\n')[0]}\n`);
      const lines = text.split(/\r?\n/);
      for (const finding of analysis.findings) {
        if (SEVERITY_RANK[finding.severity] < min) continue;
        const line = finding.range.start.line;
        rows.push({
          file: relative(cwd, file),
          line: line + 1,
          code: finding.code,
          severity: finding.severity,
          role: finding.role ?? '-',
          source: (lines[line] ?? '').trim().slice(0, 100),
          message: finding.message,
        });
      }
    }
  }
  for (const row of rows)
    process.stdout.write(
      `${row.file}:${row.line}\t${row.code}\t${row.severity}\t${row.role}\t${row.source}\n`,
    );
  const counts = new Map<string, number>();
  for (const row of rows)
    counts.set(`${row.code} ${row.severity}`, (counts.get(`${row.code} ${row.severity}`) ?? 0) + 1);
  process.stdout.write(`\n${rows.length} findings in ${fileCount} files\n`);
  for (const [key, count] of [...counts].sort()) process.stdout.write(`${key}\t${count}\n`);
  if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    process.stderr.write(`corpus: ${(error as Error).stack ?? error}\n`);
    process.exitCode = 2;
  },
);

// The `shardlens` command line: `check` runs the editor's analyzer over files for CI
// (text, JSON or SARIF; exit 0 clean, 1 findings at or above --fail-on, 2 usage or I/O
// errors), `estimate` prints model estimates, `rules` lists the rule codes. Large trees
// are checked by worker threads (cli/parallel.ts); the output order stays the file order.
import { basename, dirname, sep } from 'node:path';
import type { PartialSettings } from './config/settings';
import { loadPyprojectFor } from './config/pyproject';
import { discoverPythonFiles } from './cli/discover';
import { checkFiles, isCheckWorker, serveCheckWorker } from './cli/parallel';
import { formatJson, formatSarif, formatText, type FileFinding } from './cli/report';
import type { Severity } from './rules/types';
import { rules } from './rules/index';
import { runEstimate } from './cli-estimate';
import { asksForHelp, helpFor, MAIN_HELP, VERSION } from './cli/help';
import { tuneV8ForBatch } from './cli/v8-flags';

const SEVERITY_RANK: Record<Severity, number> = { hint: 0, information: 1, warning: 2, error: 3 };
const FAIL_ON: Record<string, number> = { hint: 0, info: 1, information: 1, warning: 2, error: 3, never: 99 };

/** Where the CLI writes and which folder it runs in; tests pass their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  wasmDir: string;
}

class UsageError extends Error {}

interface CheckOptions {
  paths: string[];
  format: 'text' | 'json' | 'sarif';
  select?: string[];
  ignore?: string[];
  exclude: string[];
  failOn: number;
}

function parseCheckArgs(args: string[]): CheckOptions {
  const options: CheckOptions = { paths: [], format: 'text', exclude: [], failOn: FAIL_ON.warning };
  const codes = (value: string) =>
    value
      .split(',')
      .map((c) => c.trim().toUpperCase())
      .filter(Boolean);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === '--format') {
      const format = value();
      if (format !== 'text' && format !== 'json' && format !== 'sarif')
        throw new UsageError(`unknown format "${format}" (text, json or sarif)`);
      options.format = format;
    } else if (flag === '--select') options.select = codes(value());
    else if (flag === '--ignore') options.ignore = codes(value());
    else if (flag === '--exclude') options.exclude.push(value());
    else if (flag === '--fail-on') {
      const level = value();
      if (!(level in FAIL_ON)) throw new UsageError(`unknown --fail-on level "${level}"`);
      options.failOn = FAIL_ON[level];
    } else if (flag.startsWith('-')) throw new UsageError(`unknown option ${flag}`);
    else options.paths.push(arg);
  }
  if (options.paths.length === 0) throw new UsageError('check needs at least one PATH');
  return options;
}

async function runCheck(args: string[], io: CliIo): Promise<number> {
  const options = parseCheckArgs(args);
  const cliSettings: PartialSettings = {};
  if (options.select) cliSettings.select = options.select;
  if (options.ignore) cliSettings.ignore = options.ignore;
  const rootPyproject = loadPyprojectFor(`${io.cwd}${sep}_`);
  const exclude = [...(rootPyproject?.settings.exclude ?? []), ...options.exclude];
  const { files, errors } = discoverPythonFiles({ paths: options.paths, cwd: io.cwd, exclude });
  const results: FileFinding[] = [];
  const checks = await checkFiles({ files, cwd: io.cwd, wasmDir: io.wasmDir, cliSettings });
  for (const check of checks) {
    errors.push(...check.errors);
    for (const message of check.messages) io.stderr(message);
    for (const finding of check.findings) results.push({ file: check.shown, finding });
  }
  for (const error of new Set(errors)) io.stderr(`shardlens: ${error}`);
  if (options.format === 'json') io.stdout(formatJson(results));
  else if (options.format === 'sarif') io.stdout(formatSarif(results, VERSION));
  else {
    if (results.length) io.stdout(formatText(results));
    io.stdout(
      `${results.length} finding${results.length === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}.`,
    );
  }
  if (errors.length) return 2;
  return results.some(({ finding }) => SEVERITY_RANK[finding.severity] >= options.failOn) ? 1 : 0;
}

function listRules(io: CliIo): number {
  for (const rule of rules) io.stdout(`${rule.code}  ${rule.name.padEnd(36)} ${rule.summary}`);
  return 0;
}

/** Runs the CLI with `argv` (without `node` and the script); resolves to the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const subcommandHelp = command && asksForHelp(rest) ? helpFor(command) : undefined;
    if (subcommandHelp) {
      io.stdout(subcommandHelp);
      return 0;
    }
    if (command === 'check') return await runCheck(rest, io);
    if (command === 'estimate') return await runEstimate(rest, io);
    if (command === 'rules') return listRules(io);
    if (command === '--version' || command === '-V') {
      io.stdout(VERSION);
      return 0;
    }
    if (command === '--help' || command === '-h' || command === 'help') {
      if (rest[0] === 'estimate') return await runEstimate(['--help'], io);
      io.stdout(helpFor(rest[0]) ?? MAIN_HELP);
      return 0;
    }
    throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`shardlens: ${error.message}\n\n${MAIN_HELP}`);
      return 2;
    }
    io.stderr(`shardlens: ${(error as Error).message}`);
    return 2;
  }
}

// NOTE: in a bundle that imports this file (the CLI tests) `require.main === module` holds
// too, so also require that the running bundle is the CLI's own.
if (isCheckWorker()) {
  serveCheckWorker().catch((error) => {
    process.stderr.write(`shardlens worker: ${error}\n`);
    process.exit(1);
  });
} else if (require.main === module && /^cli\.js$/.test(basename(__filename))) {
  tuneV8ForBatch();
  runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(`${text}\n`),
    stderr: (text) => process.stderr.write(`${text}\n`),
    cwd: process.cwd(),
    wasmDir: __dirname,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`shardlens: ${error}\n`);
      process.exitCode = 2;
    },
  );
}

/** The folder of the running bundle (for tests that spawn the CLI). */
export const bundleDir = dirname(__filename);

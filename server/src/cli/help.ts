// `--help` for the CLI, `check` and `rules` (`estimate` has its own beside its parser), and the
// version `--version` prints (package.json's). test/unit/cli-help.test.ts checks that every
// option the parsers accept is in the help, so a new flag cannot go undocumented.
import { version } from '../../../package.json';

/** The extension and CLI version, from package.json. */
export const VERSION: string = version;

/** `shardlens --help`. */
export const MAIN_HELP = `Usage:
  shardlens check PATH... [options]      report findings (text, JSON or SARIF) for CI
  shardlens estimate PATH [options]      parameters, memory per GPU and communication per step
  shardlens rules                        list every rule code with its summary
  shardlens --version                    print the version

Run \`shardlens COMMAND --help\` for a command's options. Settings come from [tool.shardlens]
in the nearest pyproject.toml; command-line flags win.`;

/** `shardlens check --help`. */
export const CHECK_HELP = `Usage: shardlens check PATH... [options]

Runs the rules over Python files; directories are searched recursively (skipping .git,
virtual environments, node_modules and excluded globs).

Options:
  --format text|json|sarif   output format (default: text)
  --select CODES             comma-separated rule codes or prefixes to enable (e.g. SL1,SL402)
  --ignore CODES             comma-separated rule codes or prefixes to disable
  --exclude GLOB             skip files matching GLOB (repeatable)
  --fail-on LEVEL            exit 1 when a finding at or above LEVEL exists: error, warning,
                             info (or information), hint; never: always exit 0 (default: warning)
  -h, --help                 show this help

Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or I/O errors.`;

/** `shardlens rules --help`. */
export const RULES_HELP = `Usage: shardlens rules

Lists every rule: code, name and one-line summary. Each rule's page is docs/rules/CODE.md.

Options:
  -h, --help                 show this help`;

/** The help of a subcommand, or undefined for an unknown one. */
export function helpFor(command: string | undefined): string | undefined {
  if (command === undefined) return MAIN_HELP;
  // `estimate` keeps its help beside its parser (cli-estimate.ts) and answers --help itself.
  const byCommand: Record<string, string> = { check: CHECK_HELP, rules: RULES_HELP };
  return Object.hasOwn(byCommand, command) ? byCommand[command] : undefined;
}

/** Whether the arguments ask for help (`-h` or `--help` anywhere). */
export function asksForHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

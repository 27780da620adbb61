// Quotes a command line (only paths and fixed flags, never user-entered text) for the
// shell of the integrated terminal: POSIX shells, fish, PowerShell and cmd.exe.
// Pure functions, unit-tested in test/unit/benchmark/quote.test.ts.

export type ShellKind = 'bash' | 'zsh' | 'fish' | 'pwsh' | 'cmd';

/** Guesses the shell kind from a shell executable path (`vscode.env.shell`, creation options). */
export function detectShell(shellPath: string | undefined, platform: string = process.platform): ShellKind {
  const base = (shellPath ?? '')
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/\.exe$/, '');
  if (base === 'zsh') return 'zsh';
  if (base === 'fish') return 'fish';
  if (base === 'pwsh' || base === 'powershell' || base === 'pwsh-preview') return 'pwsh';
  if (base === 'cmd') return 'cmd';
  if (base === '') return platform === 'win32' ? 'pwsh' : 'bash';
  // NOTE: sh, dash, ksh, bash (also Git Bash and WSL's bash.exe) all follow POSIX quoting.
  return 'bash';
}

// NOTE: no leading '=' (zsh expands `=cmd` to a path); no ',' or '@' for PowerShell
// (array literal, splatting).
const SAFE_POSIX = /^[A-Za-z0-9_\-./:+@][A-Za-z0-9_\-./:=,+@]*$/;
const SAFE_WINDOWS = /^[A-Za-z0-9_\-./:\\][A-Za-z0-9_\-./:=\\]*$/;

function assertPrintable(arg: string): void {
  // NOTE: a newline or control character would be typed into the terminal as a key press
  // (Enter, Ctrl+C); no quoting protects against that, so such arguments are refused.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(arg))
    throw new Error(`refusing to quote an argument with a control character: ${JSON.stringify(arg)}`);
}

function quotePosix(arg: string): string {
  if (arg !== '' && SAFE_POSIX.test(arg)) return arg;
  // Inside single quotes nothing is special to bash or zsh ($, `, \, !, %), except ' itself.
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

function quoteFish(arg: string): string {
  if (arg !== '' && SAFE_POSIX.test(arg)) return arg;
  // fish single quotes recognise two escapes: \\ and \'.
  return `'${arg.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function quotePwsh(arg: string): string {
  if (arg !== '' && SAFE_WINDOWS.test(arg) && !arg.startsWith('-')) return arg;
  if (/^--?[A-Za-z][A-Za-z0-9-]*$/.test(arg)) return arg;
  return pwshLiteral(arg);
}

function pwshLiteral(arg: string): string {
  // NOTE: PowerShell treats the typographic quotes U+2018..U+201B as single quotes too;
  // each is doubled like ' so that it stays literal.
  return `'${arg.replace(/['\u2018\u2019\u201a\u201b]/g, (q) => q + q)}'`;
}

function quoteCmd(arg: string): string {
  if (arg !== '' && SAFE_WINDOWS.test(arg)) return arg;
  if (arg.includes('"'))
    throw new Error(`cmd.exe cannot quote an argument containing a double quote: ${arg}`);
  // NOTE: backslashes before the closing quote would escape it for the program's argv
  // parser (CommandLineToArgvW), so trailing backslashes are doubled.
  const body = arg.replace(/(\\+)$/, '$1$1');
  // NOTE: cmd expands %VAR% even inside double quotes; on an interactive command line a
  // caret outside quotes breaks the variable name and is then removed, so each % is
  // written as "^%" between closed and reopened quotes.
  return `"${body.replace(/%/g, '"^%"')}"`;
}

/**
 * Quotes `argv` for `shell` so that the program receives exactly these arguments.
 * The first element is the executable; PowerShell gets the `&` call operator.
 */
export function quoteCommandLine(shell: ShellKind, argv: string[]): string {
  if (argv.length === 0) throw new Error('empty command line');
  argv.forEach(assertPrintable);
  switch (shell) {
    case 'bash':
    case 'zsh':
      return argv.map(quotePosix).join(' ');
    case 'fish':
      return argv.map(quoteFish).join(' ');
    case 'pwsh':
      return ['&', pwshLiteral(argv[0]), ...argv.slice(1).map(quotePwsh)].join(' ');
    case 'cmd':
      return argv.map(quoteCmd).join(' ');
  }
}

// Tests quoteCommandLine and detectShell: each shell must receive the exact paths, with
// spaces, quotes, $, backticks, %, ! and non-ASCII; POSIX results are checked by a real sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { detectShell, quoteCommandLine } from '../../../client/src/benchmark/quote';

const nasty = [
  '/home/me/My Projects/model.py',
  "/tmp/it's here/spec.json",
  '/tmp/$HOME/`whoami`/a"b.json',
  '/tmp/100%/%PATH%/x!y!.jsonl',
  '/tmp/données/模型/événements.jsonl',
  '/tmp/back\\slash/*.py',
];

test('bash quoting round-trips through a real POSIX shell', () => {
  const line = quoteCommandLine('bash', ['printf', '%s\\n', ...nasty]);
  const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
  assert.deepEqual(out.split('\n').slice(0, -1), nasty);
});

test('bash and zsh leave plain paths and flags bare and single-quote the rest', () => {
  assert.equal(
    quoteCommandLine('bash', ['/usr/bin/python3', '-m', 'shardlens_bench']),
    '/usr/bin/python3 -m shardlens_bench',
  );
  assert.equal(quoteCommandLine('zsh', ["/a b/it's"]), `'/a b/it'\\''s'`);
  assert.equal(quoteCommandLine('zsh', ['=python']), `'=python'`);
  assert.equal(quoteCommandLine('bash', ['/x/$y/`z`/!w']), `'/x/$y/\`z\`/!w'`);
});

test('fish escapes backslashes and single quotes inside single quotes', () => {
  assert.equal(quoteCommandLine('fish', ["/a b/it's\\x"]), `'/a b/it\\'s\\\\x'`);
  assert.equal(quoteCommandLine('fish', ['/tmp/$HOME']), `'/tmp/$HOME'`);
});

test('PowerShell uses the call operator and doubles single quotes, typographic ones too', () => {
  assert.equal(
    quoteCommandLine('pwsh', [
      'C:\\Program Files\\Python\\python.exe',
      '-m',
      'shardlens_bench',
      '--spec',
      "C:\\it's\\spec.json",
    ]),
    `& 'C:\\Program Files\\Python\\python.exe' -m shardlens_bench --spec 'C:\\it''s\\spec.json'`,
  );
  assert.equal(quoteCommandLine('pwsh', ['py', 'C:\\a\u2019b\\$x`y']), `& 'py' 'C:\\a\u2019\u2019b\\$x\`y'`);
  assert.equal(quoteCommandLine('pwsh', ['py', '@a,b']), `& 'py' '@a,b'`);
});

test('cmd double-quotes, keeps % out of variable expansion and doubles trailing backslashes', () => {
  assert.equal(
    quoteCommandLine('cmd', ['C:\\Python 3\\python.exe', '-m', 'x']),
    `"C:\\Python 3\\python.exe" -m x`,
  );
  assert.equal(quoteCommandLine('cmd', ['C:\\100%\\%PATH%\\a!b']), `"C:\\100"^%"\\"^%"PATH"^%"\\a!b"`);
  assert.equal(quoteCommandLine('cmd', ['C:\\dir with space\\']), `"C:\\dir with space\\\\"`);
  assert.equal(quoteCommandLine('cmd', ['C:\\données\\模型.json']), `"C:\\données\\模型.json"`);
  assert.throws(() => quoteCommandLine('cmd', ['a"b']));
});

test('control characters are refused for every shell', () => {
  for (const shell of ['bash', 'zsh', 'fish', 'pwsh', 'cmd'] as const) {
    assert.throws(() => quoteCommandLine(shell, ['python', '/tmp/a\nrm -rf ~']));
    assert.throws(() => quoteCommandLine(shell, ['python', '/tmp/\u0003']));
  }
});

test('detectShell reads the shell from its path', () => {
  assert.equal(detectShell('/bin/bash'), 'bash');
  assert.equal(detectShell('/usr/bin/zsh'), 'zsh');
  assert.equal(detectShell('/opt/homebrew/bin/fish'), 'fish');
  assert.equal(detectShell('C:\\Program Files\\PowerShell\\7\\pwsh.exe'), 'pwsh');
  assert.equal(detectShell('C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe'), 'pwsh');
  assert.equal(detectShell('C:\\Windows\\System32\\cmd.exe'), 'cmd');
  assert.equal(detectShell('/bin/dash'), 'bash');
  assert.equal(detectShell(undefined, 'win32'), 'pwsh');
  assert.equal(detectShell('', 'linux'), 'bash');
});

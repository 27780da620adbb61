// The edit benchmark's keystrokes on files shaped unlike the generated ones: tab indentation
// and `\r\n` line breaks (BENCH_FILES takes any file), and a file with no line to type at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keypresses } from '../perf/bench-lsp';

const BODY = [
  'import torch',
  '',
  'def train(model, loader, opt):',
  '\tfor x, y in loader:',
  '\t\tloss = model(x).sum()',
  '\t\tscale = 2',
  '\t\tloss.backward()',
  '\t\topt.step()',
];
/** Sixty lines (sites are looked for from line 20 on). */
const LINES = [...BODY, ...Array.from({ length: 52 }, (_, i) => `value_${i} = ${i}`), ''];

/** Applies `presses` in order, returning every version. */
function typeAll(text: string, presses: { start: number; end: number; text: string }[]): string[] {
  const versions: string[] = [];
  for (const press of presses) {
    text = text.slice(0, press.start) + press.text + text.slice(press.end);
    versions.push(text);
  }
  return versions;
}

test('`error` types before a tab-indented line, and `#` keeps `\\r\\n` breaks whole', () => {
  const lines = [...LINES];
  lines.splice(30, 0, 'def helper():', '\treturn torch.zeros(3)');
  for (const [label, text] of [
    ['LF', lines.join('\n')],
    ['CRLF', lines.join('\r\n')],
  ]) {
    const error = typeAll(text, keypresses(text, 'error', 12));
    assert.ok(error.length > 0, `${label}: an indented line was found`);
    assert.ok(
      error.some((version) => /(^|\n)q\treturn torch\.zeros/.test(version)),
      `${label}: a letter typed before the tab`,
    );
    assert.equal(error[error.length - 1], text, `${label}: every keystroke is deleted again`);
    for (const version of typeAll(text, keypresses(text, 'comment', 12)))
      assert.ok(!/\r[^\n]|\r$/.test(version), `${label}: no \`\\r\` left without its \`\\n\``);
  }
});

test('`statement` opens a line with the indentation and the line break of its block', () => {
  const lines = [...LINES];
  // An assignment followed by a statement of the same block, past line 20.
  lines.splice(25, 0, 'def step(model, x):', '\ty = model(x)', '\tz = y.sum()', '\treturn z');
  for (const [label, text] of [
    ['LF', lines.join('\n')],
    ['CRLF', lines.join('\r\n')],
  ]) {
    const presses = keypresses(text, 'statement', 20, new Set([26]));
    assert.ok(presses.length > 0, `${label}: the site was used`);
    const versions = typeAll(text, presses);
    const newline = label === 'CRLF' ? '\r\n' : '\n';
    assert.ok(
      versions[0].includes(`\ty = model(x)${newline}\t${newline}\tz = y.sum()`),
      `${label}: the new line follows the site`,
    );
    assert.equal(versions[versions.length - 1], text, `${label}: the line is deleted again`);
  }
});

test('a file with no indented code has no `error` keystrokes', () => {
  const text = LINES.filter((line) => !line.startsWith('\t')).join('\n');
  assert.deepEqual(keypresses(text, 'error', 12), []);
});

test('`random` types each key anywhere and deletes it; Enter brings the line break and indentation of its line', () => {
  const lines = Array.from({ length: 8 }, () => BODY).flat();
  for (const [label, text] of [
    ['LF', lines.join('\n')],
    ['CRLF', lines.join('\r\n')],
  ]) {
    const presses = keypresses(text, 'random', 400);
    assert.equal(presses.length, 400, `${label}: as many keystrokes as asked`);
    const versions = typeAll(text, presses);
    for (let i = 1; i < versions.length; i += 2)
      assert.equal(versions[i], text, `${label}: keystroke ${i} is undone`);
    for (const version of versions)
      assert.ok(!/\r[^\n]|\r$/.test(version), `${label}: no \`\\r\` left without its \`\\n\``);
    const typed = new Set(presses.filter((_, i) => i % 2 === 0).map((press) => press.text));
    for (const key of ['q', '()', '"', '#']) assert.ok(typed.has(key), `${label}: ${key} typed`);
    const newline = label === 'CRLF' ? '\r\n' : '\n';
    const enters = presses.filter((press, i) => i % 2 === 0 && press.text.startsWith(newline));
    assert.ok(enters.length > 0, `${label}: Enter typed`);
    for (const enter of enters) {
      const lineStart = text.lastIndexOf('\n', enter.start - 1) + 1;
      const indentation = /^[ \t]*/.exec(text.slice(lineStart, enter.start))![0];
      assert.equal(
        enter.text,
        newline + indentation,
        `${label}: Enter at ${enter.start} indents as its line`,
      );
    }
    assert.ok(
      enters.some((enter) => enter.text.length > newline.length),
      `${label}: some Enter splits an indented line`,
    );
  }
});

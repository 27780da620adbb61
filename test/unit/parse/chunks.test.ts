// Module-level chunks: cut before column-0 definitions and decorators, never inside a
// string, a bracket or a continued line; and a text with syntax errors lowered chunk by
// chunk keeps each error inside its chunk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkHeads, chunkStarts } from '../../../server/src/parse/chunks';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { wasmDir } from '../../helpers/paths';

/** The first line of each chunk of `text`. */
const heads = (text: string) => chunkHeads(text).map((start) => text.slice(start).split('\n')[0]);

test('chunks start at column-0 definitions and decorators; a decorated definition stays whole', () => {
  const text = [
    'import torch',
    'X = 1',
    '@torch.no_grad()',
    '@staticmethod',
    'def f(x):',
    '    def inner():',
    '        pass',
    '    return x',
    'class A:',
    '    pass',
    'async def g():',
    '    pass',
    '',
  ].join('\n');
  assert.deepEqual(heads(text), ['import torch', '@torch.no_grad()', 'class A:', 'async def g():']);
});

test('no chunk starts inside a string, a bracket or a line continued by a backslash', () => {
  const text = [
    'DOC = """',
    'def not_a_function():',
    '@misc{citation,',
    '"""',
    "s = 'it''s'",
    'x = foo(',
    '@ matrix)',
    'y = 1 + \\',
    '    2',
    'def real():',
    '    return "def inside a string"',
    '',
  ].join('\n');
  assert.deepEqual(heads(text), ['DOC = """', 'def real():']);
});

test('a column-0 definition after an unclosed bracket starts a chunk: it cannot be inside one', () => {
  assert.deepEqual(heads('x = foo(\ndef f():\n    pass\n'), ['x = foo(', 'def f():']);
  // A decorator can (the `@` operator): it does not.
  assert.deepEqual(heads('x = (a\n@b)\n'), ['x = (a']);
});

test('small chunks run together, and an edit moves no group boundary away from it', () => {
  const text = Array.from({ length: 5_000 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join('\n');
  const starts = chunkStarts(text);
  const heads = new Set(chunkHeads(text));
  assert.ok(
    starts.every((start) => heads.has(start)),
    'every chunk starts at a head',
  );
  assert.ok(starts.length > 300 && starts.length < 1_200, `${starts.length} chunks of 5,000 functions`);
  // A line typed into function 2,500: the boundaries before it stay, those after it move by its length.
  const at = text.indexOf('def f2500(');
  const typed = '    y = 1\n';
  const edited = text.slice(0, at) + 'def f2500(x):\n' + typed + text.slice(at + 'def f2500(x):\n'.length);
  const after = chunkStarts(edited);
  // (The boundary at the edited function itself may come or go: its two first lines changed.)
  const shifted = (start: number) => (start <= at ? start : start + typed.length);
  const away = (start: number) => start !== at;
  assert.deepEqual(after.filter(away), starts.map(shifted).filter(away));
});

test('a syntax error stays inside its chunk: the other functions keep their nodes', async () => {
  const parser = await initParser({ wasmDir });
  // Functions long enough to be chunks of their own (small ones run together).
  const body = Array.from({ length: 24 }, (_, i) => `    y${i} = x.view(2, 3) + ${i}\n`).join('');
  const good = `def a(x):\n${body}    return x.view(2, 3)\n\n`;
  const broken = `def b(x):\n${body}    return x.view(2,\n\n`;
  const parsed = parseSource(parser, good + broken + good.replace('def a', 'def c'));
  assert.equal(parsed.hasError, true);
  const names = parsed.root.children
    .filter((node) => node.type === 'function_definition')
    .map((fn) => fn.children.find((child) => child.field === 'name')?.text);
  // A whole-file parse lets the unclosed bracket swallow `def c`.
  assert.ok(names.includes('a') && names.includes('c'), `whole functions: ${names}`);
});

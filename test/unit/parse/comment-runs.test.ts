// Long comment blocks parsed with their inner lines left out (comment-runs.ts): the tree must
// be a plain parse's but for those comment lines, in crafted blocks (dedented after a method,
// in brackets, in strings, with suppression comments) and in every file of Debian's torch and
// torchvision that has such a block; and the ranges left to parse must be the requested ones
// less the blocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { MIN_QUIET_RUN, quietRanges, quietSpans } from '../../../server/src/parse/comment-runs';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { lowerTree, type SyntaxNode } from '../../../server/src/parse/syntax';
import { commentBlockFiles } from '../../helpers/edit-equivalence';
import { debianDistPackages, wasmDir } from '../../helpers/paths';

/** `count` comment lines at `indent`, each with its number. */
const block = (indent: string, count: number, word = 'note') =>
  Array.from({ length: count }, (_, i) => `${indent}# ${word} ${i} on the lines below`).join('\n');

/** Every node but comments, in order, with its type, field, extent and operator. */
function withoutComments(root: SyntaxNode): string[] {
  const out: string[] = [];
  const visit = (node: SyntaxNode) => {
    if (node.type === 'comment') return;
    out.push(`${node.type}|${node.field}|${node.startIndex}-${node.endIndex}|${node.operator ?? ''}`);
    node.children.forEach(visit);
  };
  visit(root);
  return out;
}

/** The comment nodes' first lines' text. */
function commentTexts(root: SyntaxNode): string[] {
  const out: string[] = [];
  const visit = (node: SyntaxNode) => {
    if (node.type === 'comment') out.push(node.text);
    node.children.forEach(visit);
  };
  visit(root);
  return out;
}

/** Checks that `text`'s lowering leaves comment lines out and is otherwise a plain parse's. */
function assertSameButComments(
  parser: Parser,
  text: string,
  label: string,
): { kept: string[]; all: string[] } {
  const tree = parser.parse(text)!;
  assert.equal(tree.rootNode.hasError, false, `${label}: the plain parse has an error`);
  const plain = lowerTree(tree, text).root;
  tree.delete();
  const quiet = parseSource(parser, text);
  assert.equal(quiet.hasError, false, `${label}: an error with lines left out`);
  assert.deepEqual(withoutComments(quiet.root), withoutComments(plain), label);
  return { kept: commentTexts(quiet.root), all: commentTexts(plain) };
}

test('the inner lines of a long comment block are left out, the first and last kept', async () => {
  const parser = await initParser({ wasmDir });
  const text = `x = 1\n${block('', 30)}\ny = 2\n`;
  const spans = quietSpans(text);
  assert.equal(spans.length, 1);
  const lines = text.split('\n');
  assert.equal(text.slice(spans[0].start, spans[0].end), lines.slice(2, 30).join('\n') + '\n');
  assert.equal(spans[0].startRow, 2);
  assert.equal(spans[0].endRow, 30);
  const { kept, all } = assertSameButComments(parser, text, 'module level');
  assert.equal(all.length, 30);
  assert.deepEqual(kept, [all[0], all[29]]);
  // Shorter runs, and runs broken by code, are parsed as they are.
  const short = `x = 1\n${block('', MIN_QUIET_RUN - 1)}\ny = 2\n${block('', MIN_QUIET_RUN - 1)}\n`;
  assert.deepEqual(quietSpans(short), []);
});

test('blocks at other indentations end where a plain parse ends them', async () => {
  const parser = await initParser({ wasmDir });
  // A block at the method's indentation, then one a level out, then one at column 0: each
  // decides which block the lines belong to (the class's body ends after the second).
  const text = [
    'class Model:',
    '    def forward(self, x):',
    '        y = x + 1',
    block('        ', 20, 'inner'),
    block('    ', 20, 'member'),
    '',
    block('', 20, 'module'),
    '    ',
    block('    ', 20, 'stray'),
    'z = 3',
    'def f():',
    '    return 1',
    block('        ', 20, 'deeper'),
    '',
  ].join('\n');
  assert.equal(quietSpans(text).length, 5);
  const { kept } = assertSameButComments(parser, text, 'indentations');
  assert.equal(kept.length, 10);
});

test('comment blocks in brackets and in strings give the same tree, and suppressions stay', async () => {
  const parser = await initParser({ wasmDir });
  const text = [
    'table = [',
    '    1,',
    block('    ', 24, 'entry'),
    '    2,',
    ']',
    'doc = """',
    block('', 24, 'text'),
    '"""',
    'fmt = f"""{table}',
    block('', 24, 'line'),
    '# {table} stays: it is read by the f-string',
    block('', 24, 'line'),
    '"""',
    block('', 20, 'before'),
    '# shardlens: ignore-file[SL101]',
    '# a note with "quotes" in it',
    block('', 20, 'after'),
    'w = 1',
  ].join('\n');
  const { kept, all } = assertSameButComments(parser, text, 'brackets and strings');
  // The block in brackets keeps 2 of 24; the last run keeps its ends and the two lines that must stay.
  assert.equal(all.length, 66);
  assert.equal(kept.length, 6);
  assert.ok(kept.includes('# shardlens: ignore-file[SL101]'));
  assert.ok(kept.includes('# a note with "quotes" in it'));
  const stays = text.indexOf('# {table} stays');
  assert.ok(
    quietSpans(text).every((span) => span.end <= stays || span.start > stays),
    'a line with a brace is never left out',
  );
});

test('the ranges of a part of the text are the requested ones less the blocks', () => {
  const text = `a = 1\n${block('', 30)}\nb = 2\n${block('', 30)}\nc = 3\n`;
  const spans = quietSpans(text);
  assert.equal(spans.length, 2);
  const at = (offset: number) => ({ row: text.slice(0, offset).split('\n').length - 1, column: 0 });
  const range = (start: number, end: number) => ({
    startIndex: start,
    endIndex: end,
    startPosition: at(start),
    endPosition: at(end),
  });
  const b = text.indexOf('b = 2');
  const c = text.indexOf('c = 3');
  // A part around the second block: its lines left out, the rest kept as asked.
  const ranges = quietRanges(text, [range(b, text.length)])!;
  assert.deepEqual(
    ranges.map((r) => [r.startIndex, r.endIndex]),
    [
      [b, spans[1].start],
      [spans[1].end, text.length],
    ],
  );
  assert.deepEqual(ranges[1].startPosition, at(spans[1].end));
  // A part with no block in it is parsed as asked; one inside a block parses nothing.
  assert.equal(quietRanges(text, [range(c, text.length)]), undefined);
  const inside = quietRanges(text, [range(spans[0].start + 10, spans[0].end - 10)])!;
  assert.deepEqual(
    inside.map((r) => r.endIndex - r.startIndex),
    [0],
  );
  // The whole text: everything but the two blocks' inner lines.
  const whole = quietRanges(text)!;
  assert.equal(
    whole.reduce((sum, r) => sum + r.endIndex - r.startIndex, 0),
    text.length - (spans[0].end - spans[0].start) - (spans[1].end - spans[1].start),
  );
});

test('the real-like files with comment blocks parse as a plain parse does, less their inner lines', async () => {
  const parser = await initParser({ wasmDir });
  for (const file of commentBlockFiles()) {
    assert.ok(quietSpans(file.text).length >= 3, `${file.name}: only ${quietSpans(file.text).length} blocks`);
    assertSameButComments(parser, file.text, file.name);
  }
});

/** Every `.py` file under `dir`. */
function pythonFiles(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) pythonFiles(path, found);
    else if (stat?.isFile() && name.endsWith('.py')) found.push(path);
  }
  return found;
}

test('every file of torch and torchvision with a long comment block parses as a plain parse does, less its inner lines', async () => {
  const parser = await initParser({ wasmDir });
  // Real code from Debian's python3-torch and python3-torchvision (npm test installs them).
  const files = ['torch', 'torchvision'].flatMap((dir) => pythonFiles(join(debianDistPackages, dir)));
  assert.ok(files.length > 1_000, `${files.length} files: install python3-torch and python3-torchvision`);
  let withBlocks = 0;
  let linesLeftOut = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const spans = quietSpans(text);
    if (spans.length === 0) continue;
    withBlocks++;
    linesLeftOut += spans.reduce((sum, span) => sum + span.endRow - span.startRow, 0);
    assertSameButComments(parser, text, file);
  }
  // (Debian's torch 1.13 and torchvision 0.14: measured 0 differences; see docs/performance-log.md.)
  assert.ok(withBlocks >= 10 && linesLeftOut >= 300, `${withBlocks} files, ${linesLeftOut} lines left out`);
});

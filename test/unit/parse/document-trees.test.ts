// DocumentTrees across versions: a version with a syntax error is lowered chunk by chunk,
// parsing only the chunks that changed and moving the others over (the same objects, so later
// stages can reuse their results); it equals a fresh lowering of its text and is what the
// next version reuses; an edit inside a block re-parses a window of statements alone; no
// wasm tree outlives its document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Parser } from 'web-tree-sitter';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import {
  DocumentTrees,
  setIncrementalFault,
  type IncrementalFault,
} from '../../../server/src/parse/incremental';
import type { SyntaxNode } from '../../../server/src/parse/syntax';
import { wasmDir } from '../../helpers/paths';

const SOURCE = [
  'import torch',
  '',
  'def first(x):',
  '    y = x.view(-1)',
  '    return y.sum()',
  '',
  'def second(batch):',
  '    out = torch.relu(batch)',
  '    return out.mean()',
  '',
].join('\n');

/** SOURCE with each part long enough to be a chunk of its own (small ones run together, chunks.ts). */
const PADDING = Array.from({ length: 24 }, (_, i) => `    pad${i} = ${i} * 2\n`).join('');
const LONG_SOURCE = `# ${'A module comment. '.repeat(24)}\n${SOURCE}`
  .replace('def first(x):\n', `def first(x):\n${PADDING}`)
  .replace('def second(batch):\n', `def second(batch):\n${PADDING}`);

/** Every node's type, field and extent in document order, with its id. */
function shape(root: SyntaxNode): string {
  const lines: string[] = [];
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    lines.push(
      `${node.id} ${node.type} ${node.field} ${node.startIndex}-${node.endIndex} ${node.operator ?? ''}`,
    );
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return lines.join('\n');
}

function definition(root: SyntaxNode, name: string): SyntaxNode {
  const found = root.children.find(
    (node) =>
      node.type === 'function_definition' && node.children.some((c) => c.field === 'name' && c.text === name),
  );
  assert.ok(found, `no function ${name}`);
  return found;
}

/** Applies one insertion or deletion to the document `key` and parses it. */
function change(trees: DocumentTrees, text: string, at: number, remove: number, insert: string) {
  const after = text.slice(0, at) + insert + text.slice(at + remove);
  trees.edit('doc', text, [{ start: at, oldEnd: at + remove, newText: insert }]);
  return { text: after, parsed: trees.parse('doc', after) };
}

/** Runs `body` on a new DocumentTrees, disposes it, and checks that no wasm tree is left. */
async function withTrees(body: (trees: DocumentTrees, parser: Parser) => void): Promise<void> {
  const parser = await initParser({ wasmDir });
  const trees = new DocumentTrees(parser);
  try {
    body(trees, parser);
  } finally {
    trees.dispose();
  }
  assert.equal(trees.stats.liveTrees, 0);
  assert.equal(trees.stats.discardedTrees, 0);
}

function assertLikeFresh(parser: Parser, text: string, root: SyntaxNode): void {
  assert.equal(shape(root), shape(parseSource(parser, text).root));
}

test('a version with a syntax error moves the unchanged functions over and the next version reuses them', () =>
  withTrees((trees, parser) => {
    const opened = trees.parse('doc', SOURCE);
    const second = definition(opened.root, 'second');
    const at = SOURCE.indexOf('view(-1)') + 'view(-1)'.length;

    const broken = change(trees, SOURCE, at, 0, ':');
    assert.equal(broken.parsed.hasError, true);
    assertLikeFresh(parser, broken.text, broken.parsed.root);
    assert.equal(
      definition(broken.parsed.root, 'second'),
      second,
      'the unchanged function was lowered again',
    );
    assert.equal(trees.stats.liveTrees, 1, 'the base tree stays, unedited, behind the errors');
    assert.equal(trees.stats.chunkedVersions, 1, 'only the changed chunk was parsed');

    // The `:` deleted: the text is the base's again, and the base is its tree (no parse).
    const fixed = change(trees, broken.text, at, 1, '');
    assert.equal(fixed.parsed.hasError, false);
    assertLikeFresh(parser, fixed.text, fixed.parsed.root);
    assert.equal(definition(fixed.parsed.root, 'second'), second);
    assert.deepEqual(
      [trees.stats.restoredBases, trees.stats.incrementalParses, trees.stats.freshParses],
      [1, 0, 1],
    );
    assert.equal(trees.stats.liveTrees, 1);

    // Broken again, then mended otherwise: the text is not the base's, which goes; its chunks
    // parse clean, so it is lowered from them (no whole-file parse, and no base until one is needed).
    const again = change(trees, fixed.text, at, 0, ':');
    assert.equal(again.parsed.hasError, true);
    const mended = change(trees, again.text, at, 1, ' ');
    assert.equal(mended.parsed.hasError, false);
    assertLikeFresh(parser, mended.text, mended.parsed.root);
    assert.equal(definition(mended.parsed.root, 'second'), second);
    assert.deepEqual(
      [trees.stats.restoredBases, trees.stats.incrementalParses, trees.stats.freshParses],
      [1, 0, 1],
    );
    assert.equal(trees.stats.chunkedVersions, 3);
    assert.equal(trees.stats.liveTrees, 0);
  }));

test('a tree no version needs is deleted after the turn, or at the next parse', async () => {
  const parser = await initParser({ wasmDir });
  const trees = new DocumentTrees(parser);
  const at = SOURCE.indexOf('view(-1)') + 'view(-1)'.length;
  // Opened with an error: the whole-file parse says so, and its tree is no base.
  const opened = SOURCE.slice(0, at) + ':' + SOURCE.slice(at);
  const broken = { text: opened, parsed: trees.parse('doc', opened) };
  assert.equal(broken.parsed.hasError, true);
  assert.equal(trees.stats.discardedTrees, 1, "the fresh parse's tree, with errors, is no base");
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(trees.stats.discardedTrees, 0, 'deleted once the turn is over');
  // Versions parsed one after another in one turn: each parse deletes the last one's first.
  let text = broken.text;
  for (let i = 0; i < 6; i++) {
    text = change(trees, text, at, i % 2 === 0 ? 1 : 0, i % 2 === 0 ? ' ' : ':').text;
    assert.ok(trees.stats.discardedTrees <= 2, `${trees.stats.discardedTrees} trees wait after version ${i}`);
  }
  trees.dispose();
  assert.equal(trees.stats.discardedTrees, 0);
});

test('a document opened with a syntax error keeps no tree, yet reuses its error-free subtrees', () =>
  withTrees((trees, parser) => {
    const unfinished = LONG_SOURCE.replace('y = x.view(-1)', 'y = x.view(-1) +');
    const opened = trees.parse('doc', unfinished);
    assert.equal(opened.hasError, true);
    assert.equal(trees.stats.liveTrees, 0, 'a tree with errors is no base');
    const first = definition(opened.root, 'first');
    const second = definition(opened.root, 'second');

    // Another edit, in another chunk: the chunks it did not touch move over, the one with
    // the error too (its text, and so its parse, is the same).
    const typed = change(trees, unfinished, unfinished.indexOf('torch'), 0, 'q');
    assert.equal(typed.parsed.hasError, true);
    assertLikeFresh(parser, typed.text, typed.parsed.root);
    assert.equal(
      definition(typed.parsed.root, 'second'),
      second,
      'the error-free function was lowered again',
    );
    assert.equal(
      definition(typed.parsed.root, 'first'),
      first,
      'the unchanged chunk with the error was parsed again',
    );

    // Finishing the expression: every chunk parses clean, so the text does; its lowering
    // comes from them, and the second function keeps its nodes.
    const finishedAt = typed.text.indexOf('view(-1) +') + 'view(-1) +'.length;
    const finished = change(trees, typed.text, finishedAt, 0, ' 1');
    assert.equal(finished.parsed.hasError, false);
    assertLikeFresh(parser, finished.text, finished.parsed.root);
    assert.equal(definition(finished.parsed.root, 'second'), second);
    assert.equal(trees.stats.freshParses, 1, 'only the open parsed the whole file');
    assert.equal(trees.stats.chunkedVersions, 2);
  }));

test('an old tree still held (a memo) keeps no later version alive', () =>
  withTrees((trees) => {
    let text = SOURCE;
    const first = trees.parse('doc', text).root;
    let latest = first;
    // Errors typed and deleted in both functions: each version moves nodes and drops others.
    for (const [anchor, typed] of [
      ['view(-1)', ':'],
      ['relu(batch)', '('],
      ['return y.sum()', ' +'],
    ] as const) {
      const at = text.indexOf(anchor) + anchor.length;
      const broken = change(trees, text, at, 0, typed);
      const fixed = change(trees, broken.text, at, typed.length, '');
      text = fixed.text;
      latest = fixed.parsed.root;
    }
    const current = new Set<SyntaxNode>();
    const stack = [latest];
    while (stack.length) {
      const node = stack.pop()!;
      current.add(node);
      stack.push(...node.children);
    }
    // The first version's root was lowered again in the next version, so it is in no later
    // tree; its links are cut, so nothing of the later versions is reachable from it.
    assert.equal(current.has(first), false);
    assert.deepEqual(first.children, []);
    assert.equal(first.parent, null);
  }));

test('an edit inside a block re-parses the statements around it alone, and the base tree catches up later', () =>
  withTrees((trees, parser) => {
    const opened = trees.parse('doc', SOURCE);
    const second = definition(opened.root, 'second');
    const returned = definition(opened.root, 'first').children.find((c) => c.type === 'block')!.children[1];

    // Inside `first`: only its `y = ...` statement is re-parsed (with the `def` line above it).
    const at = SOURCE.indexOf('view(-1)') + 'view(-1'.length;
    const typed = change(trees, SOURCE, at, 0, ', 1');
    assertLikeFresh(parser, typed.text, typed.parsed.root);
    const block = definition(typed.parsed.root, 'first').children.find((c) => c.type === 'block')!;
    assert.equal(block.children[1], returned, 'the statement after the window was lowered again');
    assert.equal(definition(typed.parsed.root, 'second'), second);
    assert.deepEqual([trees.stats.windowParses, trees.stats.incrementalParses], [1, 0]);

    // `return` moved to column 0 leaves `first`: its block's window parses with another
    // shape, and the window around `first` in the module is parsed instead.
    const returnAt = typed.text.indexOf('    return y.sum()');
    const dedented = change(trees, typed.text, returnAt, 4, '');
    assertLikeFresh(parser, dedented.text, dedented.parsed.root);
    assert.equal(dedented.parsed.root.children[2].type, 'return_statement');
    assert.equal(definition(dedented.parsed.root, 'second'), second);
    assert.equal(trees.stats.windowParses, 2);

    // Before the first statement no window applies: tree-sitter re-parses its base tree,
    // given the three edits since as one.
    const top = change(trees, dedented.text, 0, 0, '# head\n');
    assertLikeFresh(parser, top.text, top.parsed.root);
    assert.deepEqual([trees.stats.windowParses, trees.stats.incrementalParses], [2, 1]);
  }));

test('an edit inside a block that leaves a bracket unpaired parses its chunk alone: no window is tried first', () =>
  withTrees((trees, parser) => {
    trees.parse('doc', LONG_SOURCE);
    const parse = parser.parse.bind(parser);
    let parses = 0;
    parser.parse = (...args: Parameters<Parser['parse']>) => {
      parses++;
      return parse(...args);
    };
    try {
      // `(` typed inside `first`: a sure syntax error, which a window's parse would only find.
      const at = LONG_SOURCE.indexOf('view(-1)') + 'view('.length;
      const typed = change(trees, LONG_SOURCE, at, 0, '(');
      assert.equal(parses, 1, 'parses of the version: its edited chunk alone');
      assert.equal(typed.parsed.hasError, true);
      assert.equal(trees.stats.chunkedVersions, 1);
      assertLikeFresh(parser, typed.text, typed.parsed.root);
    } finally {
      parser.parse = parse;
    }
  }));

test('a `)` typed and deleted after window versions: the base catches up by a re-parse, not a fresh parse', () =>
  withTrees((trees, parser) => {
    trees.parse('doc', SOURCE);
    // A window version inside `first`: the base tree stays behind the text.
    const at = SOURCE.indexOf('view(-1)') + 'view(-1'.length;
    const typed = change(trees, SOURCE, at, 0, ', 1');
    assert.equal(trees.stats.windowParses, 1);
    // `)` before `def second`: a syntax error.
    const defAt = typed.text.indexOf('def second');
    const commented = change(trees, typed.text, defAt, 0, ')');
    assert.equal(commented.parsed.hasError, true);
    const fresh = trees.stats.freshParses;
    // Deleted again: the text is the last error-free version's, so the base re-parses to it.
    const back = change(trees, commented.text, defAt, 1, '');
    assert.equal(back.parsed.hasError, false);
    assertLikeFresh(parser, back.text, back.parsed.root);
    assert.equal(trees.stats.freshParses, fresh, 'no fresh parse');
    assert.equal(trees.stats.liveTrees, 1);
    // And the next edit re-parses from that tree as usual.
    const next = change(trees, back.text, 0, 0, '# head\n');
    assertLikeFresh(parser, next.text, next.parsed.root);
  }));

/**
 * Opens `source`, applies one edit, and checks the lowering equals a fresh one; and that with
 * `fault` (the check that makes it so, turned off) it does not.
 */
function equalsFreshOnlyWithCheck(
  source: string,
  edit: { at: number; remove: number; insert: string },
  fault: IncrementalFault,
): Promise<void> {
  return withTrees((trees, parser) => {
    for (const active of ['none', fault] as const) {
      setIncrementalFault(active);
      try {
        trees.forget('doc');
        trees.parse('doc', source);
        const edited = change(trees, source, edit.at, edit.remove, edit.insert);
        const same = shape(edited.parsed.root) === shape(parseSource(parser, edited.text).root);
        assert.equal(same, active === 'none', `with fault ${active}`);
      } finally {
        setIncrementalFault('none');
      }
    }
  });
}

test('`#` deleted before `if ...:` whose lines below are indented deeper: they join the `if`, not the window', () => {
  // tree-sitter takes the deeper lines after a comment as more statements of the block.
  const source = [
    'def step(loader):',
    '    for x in loader:',
    '        a = x.sum()',
    '        #if a > 0:',
    '            b = a.item()',
    '            c = b + 1',
    '    return a',
    '',
  ].join('\n');
  return equalsFreshOnlyWithCheck(
    source,
    { at: source.indexOf('#if'), remove: 1, insert: '' },
    'window-deeper-next',
  );
});

test('`#` typed before the last statement of a window: the comments it ends with are not lost', () => {
  const source = [
    'def main(loader):',
    '    total = 0',
    '  # a comment indented less than the block',
    '    step = 0',
    '    for x in loader:',
    '        total += x.sum()',
    '    return total',
    '',
  ].join('\n');
  return equalsFreshOnlyWithCheck(
    source,
    { at: source.indexOf('step = 0'), remove: 0, insert: '#' },
    'window-comment-end',
  );
});

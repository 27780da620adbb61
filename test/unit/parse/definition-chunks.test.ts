// Large classes and functions parsed group by group of their body's statements
// (definition-chunks.ts): where the cuts go, that every class and function of real code
// (torch's nn modules, torchvision's models) cut that way gives the whole-file parse's nodes,
// and that an error stays inside its group.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chunkStarts, definitionCuts } from '../../../server/src/parse/chunks';
import { wholeTextOptions } from '../../../server/src/parse/comment-runs';
import { definitionChunkCounts, lowerDefinitionChunk } from '../../../server/src/parse/definition-chunks';
import { lowerChunked } from '../../../server/src/parse/chunked';
import { DocumentTrees } from '../../../server/src/parse/incremental';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { lowerTree, SourceText, type LoweredNode } from '../../../server/src/parse/syntax';
import { debianDistPackages, wasmDir } from '../../helpers/paths';
import { misshapenNode, sameTree } from '../../helpers/tree-order';

/** A method long enough to be a group of its own (shorter ones run together). */
const method = (name: string, indent = '    ') =>
  [
    `${indent}def ${name}(self, x):`,
    ...Array.from({ length: 12 }, (_, i) => `${indent}    y${i} = x.view(2, 3).sum(dim=${i}) + self.scale`),
    `${indent}    return x`,
    '',
  ].join('\n');

/** A statement spread over 14 lines, long enough to end a group of its own (shorter ones run together). */
const call = (name: string, indent = '    ') =>
  [
    `${indent}${name} = build(`,
    ...Array.from({ length: 12 }, (_, i) => `${indent}    arg_${i}=x.view(2, 3).sum(dim=${i}),`),
    `${indent})`,
  ].join('\n');

/** The first line of each group of the definition chunk starting `text`. */
function groupHeads(text: string): string[] {
  const cuts = definitionCuts(text, 0, text.length, 0);
  if (!cuts) return [];
  return [0, ...cuts.cuts].map((start) => text.slice(start).split('\n')[0]);
}

test('a class is cut before each member definition at its body indentation; a decorated one stays whole', () => {
  const text = [
    'class Model(nn.Module):',
    '    """Docstring."""',
    '    scale = 2',
    method('forward'),
    '    @torch.no_grad()',
    '    # a comment between decorator and definition',
    method('generate'),
    '    class Inner:',
    method('helper', '        '),
  ].join('\n');
  assert.deepEqual(groupHeads(text), [
    'class Model(nn.Module):',
    '    def forward(self, x):',
    '    @torch.no_grad()',
    '    class Inner:',
  ]);
  // A decorated class: the first group holds the decorators and the header.
  assert.deepEqual(groupHeads(`@dataclass\n# note\n${text}`)[1], '    def forward(self, x):');
  // A decorated function is cut too: its first group holds the decorators and the header.
  assert.deepEqual(groupHeads(`@torch.jit.script\ndef f(x):\n${method('g')}${method('h')}`), [
    '@torch.jit.script',
    '    def h(self, x):',
  ]);
});

test('a function is cut before statements at its body indentation, never before a clause or after a decorator', () => {
  const text = [
    'def train(args):',
    call('model'),
    '    if args.a:',
    call('x', '        '),
    '    elif args.b:',
    call('y', '        '),
    '    else:',
    call('z', '        '),
    '    try:',
    call('s', '        '),
    '    except OSError:',
    call('t', '        '),
    '    finally:',
    call('u', '        '),
    '    @torch.no_grad()',
    '    # a comment between decorator and definition',
    '    def evaluate(loader):',
    call('v', '        '),
    '    # a comment at the body indentation',
    call('w'),
    '  # a comment indented less than the body',
    call('q'),
    '    return model',
  ].join('\n');
  assert.deepEqual(groupHeads(text), [
    'def train(args):',
    '    if args.a:',
    '    try:',
    '    @torch.no_grad()',
    '    w = build(',
    '    return model',
  ]);
  // `async def` is a function too; a one-line function has no body lines to cut.
  assert.deepEqual(groupHeads(`async ${text}`).slice(0, 2), ['async def train(args):', '    if args.a:']);
  assert.deepEqual(
    groupHeads(`def f(): return 1
${call('x', '')}`),
    [],
  );
});

test('no cut after a column-0 compound statement or right after a comment indented less than the body', () => {
  const after = (line: string) =>
    groupHeads(['class A:', '    scale = 2', method('f'), line, method('g'), method('h')].join('\n'));
  // After `if X:` at column 0, lines indented like the body are the `if`'s.
  assert.deepEqual(after('if X:'), ['class A:', '    def f(self, x):']);
  assert.deepEqual(after('def helper():'), ['class A:', '    def f(self, x):']);
  // A column-0 comment belongs to the block the next code line decides: no cut right after it.
  assert.deepEqual(after('# section'), ['class A:', '    def f(self, x):', '    def h(self, x):']);
  // Nor when a comment at the body's indentation follows it: they are decided together.
  assert.deepEqual(after('  # shallow\n    # at the body'), [
    'class A:',
    '    def f(self, x):',
    '    def h(self, x):',
  ]);
  // After a simple statement at column 0 the cuts go on (see the next tests).
  assert.deepEqual(after('q = 1'), [
    'class A:',
    '    def f(self, x):',
    '    def g(self, x):',
    '    def h(self, x):',
  ]);
});

test('a definition at the body indentation cuts inside an unclosed bracket: it cannot be inside one', () => {
  const unclosed = method('g').replace('        y0 =', '        y = foo(\n        y0 =');
  const text = ['class A:', '    scale = 2', method('f'), unclosed, method('h'), method('k')].join('\n');
  assert.deepEqual(groupHeads(text), [
    'class A:',
    '    def f(self, x):',
    '    def g(self, x):',
    '    def h(self, x):',
    '    def k(self, x):',
  ]);
});

function pythonFiles(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) pythonFiles(path, found);
    else if (name.endsWith('.py')) found.push(path);
  }
  return found;
}

test('a definition whose body opens with a definition and has no cuts of its own is cut inside that one, under both headers, and parses as in the whole file', async () => {
  const parser = await initParser({ wasmDir });
  const members = (names: string, indent: string) => [...names].map((name) => method(name, indent));
  const inner = (indent: string) => [
    `${indent}class Base(TestCase):`,
    `${indent}    scale = 2`,
    ...members('abcdefghijkl', `${indent}    `),
  ];
  const texts = {
    'a class in a class': ['class Suite:', ...inner('    ')],
    'a decorated class after a comment in a function, then module code': [
      'def build(config):',
      '    # The base class.',
      '    @dataclass',
      ...inner('    '),
      'DEFAULT = build(None)',
      '    x = 1',
    ],
    'a class in a decorated function': ['@cache', 'def build():', ...inner('    ')],
    'a class in a class, then a statement and a comment in the outer body': [
      'class Suite:',
      ...inner('    '),
      '    other = 1',
      '    # the end',
    ],
  };
  for (const [name, lines] of Object.entries(texts)) {
    const text = lines.join('\n') + '\n';
    const cuts = definitionCuts(text, 0, text.length, 0);
    assert.ok(cuts?.inner, `${name}: not cut inside the inner class`);
    // (The first group, the headers and `scale = 2`, is short: it runs on to `def b`.)
    assert.equal(text.slice(cuts.headerEnd).split('\n')[0].trim(), 'scale = 2', name);
    assert.deepEqual(
      cuts.cuts.map((at) => text.slice(at).split('\n')[0].trim()),
      [...'bcdefghijkl'].map((m) => `def ${m}(self, x):`),
      name,
    );
    const tree = parser.parse(text)!;
    assert.equal(tree.rootNode.hasError, false, name);
    const whole = lowerTree(tree, text).root;
    tree.delete();
    const chunk = lowerDefinitionChunk(parser, new SourceText(text), 0, text.length, undefined, undefined, 0);
    assert.ok(chunk, name);
    assert.deepEqual(chunk.nodes.length, whole.children.length, name);
    chunk.nodes.forEach((node, k) =>
      assert.equal(sameTree(node, whole.children[k] as LoweredNode), undefined, name),
    );
  }
  // Not when the outer body has cuts of its own: a method after the inner class starts a group.
  const withMethod = ['class Suite:', ...inner('    '), method('other'), ''].join('\n');
  const own = definitionCuts(withMethod, 0, withMethod.length, 0);
  assert.ok(own && !own.inner && own.cuts.length === 1, 'the outer class is cut at its own method');
});

test("every class and function of torch's nn modules and torchvision's models, cut into groups, parses as in the whole file", async () => {
  const parser = await initParser({ wasmDir });
  // Real code from Debian's python3-torch and python3-torchvision (npm test installs them).
  const dist = debianDistPackages;
  const files = [join(dist, 'torch', 'nn'), join(dist, 'torchvision', 'models')].flatMap((dir) =>
    pythonFiles(dir),
  );
  assert.ok(files.length > 80, `${files.length} files: install python3-torch and python3-torchvision`);
  const definitions = { class_definition: 0, function_definition: 0 };
  let groups = 0;
  /** Definitions cut inside the one definition their body holds (see DefinitionCuts.inner). */
  let nested = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    // (The whole file as the server parses it: long comment blocks' inner lines left out, comment-runs.ts.)
    const tree = parser.parse(text, null, wholeTextOptions(text))!;
    const hasError = tree.rootNode.hasError;
    const whole = hasError ? undefined : (lowerTree(tree, text).root as LoweredNode);
    tree.delete();
    if (!whole) continue;
    const source = new SourceText(text);
    const starts = chunkStarts(text);
    for (let i = 0; i < starts.length; i++) {
      const [start, end] = [starts[i], starts[i + 1] ?? text.length];
      // Every definition with two groups or more, not only the large ones the server cuts.
      const cuts = definitionCuts(text, start, end, 0);
      if (!cuts) continue;
      const chunk = lowerDefinitionChunk(parser, source, start, end, undefined, undefined, 0);
      assert.ok(chunk, `${file}: the definition at ${start} was not cut`);
      assert.equal(chunk.hasError, false, `${file}: the definition at ${start} has an error`);
      const expected: LoweredNode[] = whole.children.filter(
        (node) => node.startIndex >= start && node.startIndex < end,
      );
      assert.equal(chunk.nodes.length, expected.length, `${file}: nodes of the chunk at ${start}`);
      expected.forEach((node, k) =>
        assert.equal(sameTree(chunk.nodes[k], node), undefined, `${file}: ${sameTree(chunk.nodes[k], node)}`),
      );
      definitions[cuts.type]++;
      groups += cuts.cuts.length + 1;
      if (cuts.inner) nested++;
    }
  }
  // (Debian's torch 1.13 and torchvision 0.14: 291 classes and 326 functions in 1,745 groups,
  // 7 of them cut inside the one definition their body holds.)
  const { class_definition: classes, function_definition: functions } = definitions;
  assert.ok(
    classes > 100 && functions > 100 && groups > 2 * (classes + functions) && nested >= 5,
    `${classes} classes, ${functions} functions, ${groups} groups, ${nested} nested`,
  );
});

test('a statement at column 0 inside a class, then indented methods, parses as in the whole file', async () => {
  const parser = await initParser({ wasmDir });
  // Tree-sitter reads the indentation after `q = 1` as whitespace, without an error: the
  // methods after it are module-level definitions in the whole parse.
  const methods = (names: string) => [...names].map((name) => method(name));
  const text = ['class A:', '    scale = 2', ...methods('abcdefgh'), 'q = 1', ...methods('ijklmnop')].join(
    '\n',
  );
  assert.ok(text.length >= 8_000 && definitionCuts(text, 0, text.length));
  const tree = parser.parse(text)!;
  const whole = lowerTree(tree, text).root;
  assert.equal(tree.rootNode.hasError, false);
  tree.delete();
  const chunked = lowerChunked(parser, text);
  assert.equal(chunked.hasError, false);
  assert.equal(sameTree(chunked.lowered.root, whole), undefined);
});

test('a syntax error in one method stays in its group: the other methods keep their nodes', async () => {
  const parser = await initParser({ wasmDir });
  const methods = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((name) => method(name)).join('\n');
  const text = `class Big(nn.Module):\n    scale = 2\n\n${methods}`;
  const padded = text + '\n'.repeat(Math.max(0, 8_000 - text.length));
  const broken = padded.replace('    def d(self, x):\n', '    def d(self, x):\n        z = foo(\n');
  const before = { ...definitionChunkCounts };
  const parsed = parseSource(parser, broken);
  assert.equal(parsed.hasError, true);
  assert.ok(definitionChunkCounts.parsed - before.parsed >= 4, 'the class was parsed in groups');
  const functions = (parsed.byType.get('function_definition') ?? []).map((node) => node.text.split('(')[0]);
  // Every method is there, and each but the broken one ends where it does in the clean text.
  assert.deepEqual(functions, ['def a', 'def b', 'def c', 'def d', 'def e', 'def f', 'def g', 'def h']);
  const clean = parseSource(parser, padded);
  const cleanEnds = (clean.byType.get('function_definition') ?? []).map((node) => node.text.length);
  const brokenEnds = (parsed.byType.get('function_definition') ?? []).map((node) => node.text.length);
  for (const k of [0, 1, 2, 4, 5, 6, 7]) assert.equal(brokenEnds[k], cleanEnds[k], `method ${k}`);
});

test('a syntax error in one part of a long function stays in its group: the other statements keep their nodes', async () => {
  const parser = await initParser({ wasmDir });
  const names = [...'abcdefghijklmnopqr'];
  const text = ['def train(args):', ...names.map((name) => call(name)), '    return a', ''].join('\n');
  assert.ok(text.length >= 8_000 && definitionCuts(text, 0, text.length));
  const broken = text.replace('    e = build(\n', '    e = build(\n    z = [\n');
  const before = { ...definitionChunkCounts };
  const parsed = parseSource(parser, broken);
  assert.equal(parsed.hasError, true);
  assert.ok(definitionChunkCounts.parsed - before.parsed >= 4, 'the function was parsed in groups');
  // Every statement of another group ends where it does in the clean text, counted from its start.
  const statements = (source: ReturnType<typeof parseSource>) =>
    new Map(
      (source.byType.get('expression_statement') ?? [])
        .filter((node) => node.parent?.parent?.type === 'function_definition')
        .map((node) => [node.text.split(' =')[0], node.text.length]),
    );
  const clean = statements(parseSource(parser, text));
  const kept = statements(parsed);
  assert.deepEqual(
    names.filter((name) => name !== 'e' && kept.get(name) === clean.get(name)).length,
    names.length - 1,
    `statements of the clean text ${[...clean]} against ${[...kept]}`,
  );
});

test('an edit of the class header parses every group again: each is parsed with the header', async () => {
  const parser = await initParser({ wasmDir });
  const methods = [...'abcdefghijklmn'].map((name) => method(name)).join('\n');
  const header = 'class Big(nn.Module):';
  const clean = `${header}\n    scale = 2\n\n${methods}`;
  // A version with an error in one method, lowered group by group; then a header with its
  // body on its line, after which every group's indented lines are an error.
  const first = clean.replace('    def d(self, x):\n', '    def d(self, x):\n        z = [\n');
  const second = first.replace(header, `${header} pass`);
  assert.ok(first.length >= 8_000 && definitionCuts(first, 0, first.length));
  const trees = new DocumentTrees(parser);
  trees.parse('doc', first);
  trees.edit('doc', first, [{ start: header.length, oldEnd: header.length, newText: ' pass' }]);
  const before = definitionChunkCounts.reused;
  const incremental = trees.parse('doc', second);
  assert.equal(definitionChunkCounts.reused, before, 'no group is taken from the last version');
  const fresh = parseSource(parser, second);
  assert.equal(incremental.hasError, true);
  assert.equal(sameTree(incremental.root, fresh.root), undefined);
});

test('an error in the header lines that ends the class there stays in the first group, and moves with no edit after it', async () => {
  const parser = await initParser({ wasmDir });
  // A snippet pasted into the base list: the class ends at `e):` in the header lines, which
  // every group is parsed with.
  const header = 'class Big(Base with torch.no_grad():\n    pass\ne):';
  const methods = [...'abcdefghijklmn'].map((name) => method(name)).join('\n');
  const text = `import torch\n\n${header}\n    scale = 2\n\n${methods}`;
  assert.ok(definitionCuts(text, text.indexOf('class'), text.length));
  const parsed = parseSource(parser, text);
  assert.equal(parsed.hasError, true);
  assert.equal(misshapenNode(parsed.root), undefined);
  // Part of a line of a later method deleted: the groups before it keep their offsets.
  const trees = new DocumentTrees(parser);
  trees.parse('doc', text);
  const start = text.indexOf('        y3 = x.view', text.indexOf('    def c(self'));
  const edited = text.slice(0, start) + text.slice(start + 24);
  trees.edit('doc', text, [{ start, oldEnd: start + 24, newText: '' }]);
  const incremental = trees.parse('doc', edited);
  const fresh = parseSource(parser, edited);
  assert.equal(misshapenNode(fresh.root), undefined);
  assert.equal(sameTree(incremental.root, fresh.root), undefined);
});

test('a split cut inside an inner definition and one that is not share no group across an edit', async () => {
  const parser = await initParser({ wasmDir });
  // A class holding one large class, with an error in a late method: lowered group by group
  // inside the inner class. Dedenting the inner class's second method to the outer body gives
  // the outer class a cut of its own there: its first group ends where the old first group
  // did, but holds the inner class's head, not its statements. And back again.
  const members = [...'abcdefghijklmn'].map((name) => method(name, '        ')).join('\n');
  const nested = `class Suite:\n    class Base:\n        scale = 2\n\n${members}`;
  const withError = nested.replace(
    '        def l(self, x):\n',
    '        def l(self, x):\n            z = [\n',
  );
  const line = withError.indexOf('        def b(self, x):');
  const dedented = withError.slice(0, line) + withError.slice(line + 4);
  assert.ok(definitionCuts(withError, 0, withError.length)?.inner, 'cut inside the inner class');
  const outerCuts = definitionCuts(dedented, 0, dedented.length);
  assert.ok(outerCuts && !outerCuts.inner && outerCuts.cuts.includes(line), 'cut at the outer method');
  for (const [before, after, edit] of [
    [withError, dedented, { start: line, oldEnd: line + 4, newText: '' }],
    [dedented, withError, { start: line, oldEnd: line, newText: '    ' }],
  ] as const) {
    const trees = new DocumentTrees(parser);
    trees.parse('doc', before);
    trees.edit('doc', before, [edit]);
    const incremental = trees.parse('doc', after);
    const fresh = parseSource(parser, after);
    assert.equal(incremental.hasError, true);
    assert.equal(sameTree(incremental.root, fresh.root), undefined);
  }
});

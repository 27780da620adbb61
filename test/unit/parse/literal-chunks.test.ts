// Large literal statements parsed entry group by entry group (literal-chunks.ts): where the
// chunks and cuts go, that every large literal of real code (torch's and torchvision's
// sources) cut that way gives the whole-file parse's nodes, and that an error stays inside
// its group while the next version re-parses only the group edited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chunkStarts, literalCuts } from '../../../server/src/parse/chunks';
import { wholeTextOptions } from '../../../server/src/parse/comment-runs';
import { lowerChunked } from '../../../server/src/parse/chunked';
import { literalChunkCounts } from '../../../server/src/parse/literal-chunks';
import { DocumentTrees } from '../../../server/src/parse/incremental';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { lowerTree } from '../../../server/src/parse/syntax';
import { debianDistPackages, wasmDir } from '../../helpers/paths';
import { misshapenNode, sameTree } from '../../helpers/tree-order';

/** A table of `count` configurations, each entry over four lines, as model zoos write them. */
function table(count: number, opening = 'default_cfgs = {', closing = '}'): string {
  const entries = Array.from({ length: count }, (_, i) =>
    [
      `    "net_v${i}.tag": _cfg(`,
      `        url="https://example.invalid/net_v${i}.bin",`,
      `        mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5),`,
      `        num_classes=${1000 + i}),`,
    ].join('\n'),
  );
  return [opening, ...entries, closing].join('\n');
}

const ZOO = [
  'import torch',
  '',
  'def _cfg(url="", **kwargs):',
  '    return {"url": url, **kwargs}',
  '',
  table(120),
  '# after the table',
  '',
  'BATCH = 32',
  '',
  'def create(name):',
  '    return default_cfgs[name]',
  '',
].join('\n');

/** The first line of each chunk of `text`. */
const chunkLines = (text: string) => chunkStarts(text).map((start) => text.slice(start).split('\n')[0]);

test('a large literal statement is a chunk of its own, with the comments after it', () => {
  const lines = chunkLines(ZOO);
  assert.ok(lines.includes('default_cfgs = {'), lines.join(' | '));
  assert.equal(lines[lines.indexOf('default_cfgs = {') + 1], 'BATCH = 32');
  // A small one is not: it runs together with its neighbours.
  assert.ok(!chunkLines(ZOO.replace(table(120), table(3))).includes('default_cfgs = {'));
  // A `}` at column 0 closes the literal, it starts no statement, even when an entry's first
  // line is commented out and the brackets no longer pair up.
  const broken = ZOO.replace('    "net_v7.tag": _cfg(', '#    "net_v7.tag": _cfg(');
  assert.deepEqual(chunkLines(broken), lines);
});

test('a literal is cut after a comma at its entries indentation, never inside a nested bracket', () => {
  const start = ZOO.indexOf('default_cfgs');
  const end = ZOO.indexOf('BATCH');
  const cuts = literalCuts(ZOO, start, end);
  assert.ok(cuts && cuts.cuts.length >= 2, 'cut into groups');
  assert.equal(ZOO[cuts.open], '{');
  assert.equal(ZOO.slice(cuts.tailStart).split('\n')[0], '}');
  for (const cut of cuts.cuts) assert.match(ZOO.slice(cut).split('\n')[0], /^ {4}"net_v\d+\.tag": _cfg\($/);
  // An entry's first line commented out: the cuts are told by indentation, so they hold.
  const broken = ZOO.replace('    "net_v7.tag": _cfg(', '#    "net_v7.tag": _cfg(');
  assert.ok(literalCuts(broken, start, broken.indexOf('BATCH')));
  // A list of tuples inside a call: the list's closing line follows a comma at the call's
  // entry indentation, and is no cut.
  const wrapped = `X = dict(\n    [\n${table(120)
    .split('\n')
    .slice(1, -1)
    .map((l) => `    ${l}`)
    .join('\n')}\n    ]\n)\n`;
  const inner = literalCuts(wrapped.replace(/_cfg\(/g, '('), 0, wrapped.length);
  assert.equal(inner, undefined);
  // A subscript and a parenthesized tuple are not cut: their empty forms parse otherwise.
  for (const opening of ['x = table[', 'x = ('])
    assert.equal(literalCuts(table(120, opening, ']'), 0, table(120, opening, ']').length), undefined);
});

test("every large literal of torch's and torchvision's sources, cut into groups, parses as in the whole file", async () => {
  const parser = await initParser({ wasmDir });
  const dist = debianDistPackages;
  const files: string[] = [];
  const visit = (dir: string) => {
    // (Links are not followed: Debian's torch links its headers elsewhere.)
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile() && entry.name.endsWith('.py') && statSync(path).size >= 8_000) files.push(path);
    }
  };
  for (const dir of ['torch', 'torchvision']) visit(join(dist, dir));
  let literals = 0;
  for (const file of [...files, 'the zoo']) {
    const text = file === 'the zoo' ? ZOO : readFileSync(file, 'utf8');
    const starts = chunkStarts(text);
    const count = starts.filter((start, i) => literalCuts(text, start, starts[i + 1] ?? text.length)).length;
    if (!count) continue;
    // (The whole file as the server parses it: long comment blocks' inner lines left out, comment-runs.ts.)
    const tree = parser.parse(text, null, wholeTextOptions(text))!;
    const whole = lowerTree(tree, text).root;
    const clean = !tree.rootNode.hasError;
    tree.delete();
    if (!clean) continue;
    literals += count;
    const before = literalChunkCounts.parsed;
    const chunked = lowerChunked(parser, text).lowered.root;
    assert.ok(literalChunkCounts.parsed > before, `${file}: its literal was parsed in groups`);
    assert.equal(sameTree(chunked, whole), undefined, `${file}: ${sameTree(chunked, whole)}`);
  }
  // Debian's torch 1.13 and torchvision 0.14 have 13 such literals in 9 files (the tables of
  // common_methods_invocations.py and common_nn.py, torchvision's _meta.py, ...): the check
  // must not be vacuous.
  assert.ok(literals >= 10, `only ${literals} large literals`);
});

test('a set literal keeps its type, and a call holding the literal its nodes after it', async () => {
  const parser = await initParser({ wasmDir });
  const items = Array.from({ length: 600 }, (_, i) => `    "name_${i}",`).join('\n');
  for (const text of [
    `NAMES = {\n${items}\n}\n`,
    `cfgs = generate(\n    {\n${table(120).split('\n').slice(1, -1).join('\n')}\n    },\n    strict=True,\n)\n`.replace(
      /\n {4}"net/g,
      '\n        "net',
    ),
    `cfgs = generate({\n${table(120).split('\n').slice(1, -1).join('\n')}\n}, strict=True)\n`,
  ]) {
    const broken = text.replace('name_7",', 'name_7" +,').replace('net_v7.tag": _cfg(', 'net_v7.tag" _cfg(');
    const whole = parseSource(parser, text);
    const chunked = lowerChunked(parser, text).lowered.root;
    assert.equal(sameTree(chunked, whole.root), undefined);
    const parsed = parseSource(parser, broken);
    assert.equal(parsed.hasError, true);
    assert.equal(misshapenNode(parsed.root), undefined);
  }
  const set = parseSource(parser, `NAMES = {\n${items.replace('"name_7",', '"name_7" +,')}\n}\n`);
  assert.ok(set.root.children[0].children[0].children.some((node) => node.type === 'set'));
});

test('a syntax error in one entry stays in its group, and the next version parses that group alone', async () => {
  const parser = await initParser({ wasmDir });
  const broken = ZOO.replace('    "net_v7.tag": _cfg(', '#    "net_v7.tag": _cfg(');
  const parsed = parseSource(parser, broken);
  assert.equal(parsed.hasError, true);
  assert.equal(misshapenNode(parsed.root), undefined);
  // The other entries are the clean text's pairs.
  const pairs = (source: ReturnType<typeof parseSource>) =>
    (
      source.root.children.find((node) => node.text.startsWith('default_cfgs'))?.children[0].children[1]
        .children ?? []
    )
      .filter((node) => node.type === 'pair')
      .map((node) => node.text.split(':')[0]);
  const cleanPairs = pairs(parseSource(parser, ZOO));
  assert.equal(cleanPairs.length, 120);
  const brokenPairs = pairs(parsed);
  assert.ok(brokenPairs.length >= 110, `${brokenPairs.length} pairs kept`);
  assert.ok(!brokenPairs.includes('"net_v7.tag"'));
  // Typed as the server sees it: the clean text, then `#`, then a letter in a later entry.
  const trees = new DocumentTrees(parser);
  trees.parse('doc', ZOO);
  const at = ZOO.indexOf('    "net_v7.tag"');
  trees.edit('doc', ZOO, [{ start: at, oldEnd: at, newText: '#' }]);
  const reusedBefore = literalChunkCounts.reused;
  const parsedBefore = literalChunkCounts.parsed;
  const first = trees.parse('doc', broken);
  assert.equal(sameTree(first.root, parsed.root), undefined);
  assert.ok(
    literalChunkCounts.reused - reusedBefore >= 5,
    'the unchanged groups come from the clean version',
  );
  assert.equal(literalChunkCounts.parsed - parsedBefore, 1, 'only the edited group is parsed');
  const later = broken.indexOf('num_classes=1090');
  const next = broken.slice(0, later) + 'q' + broken.slice(later);
  trees.edit('doc', broken, [{ start: later, oldEnd: later, newText: 'q' }]);
  const second = trees.parse('doc', next);
  const fresh = parseSource(parser, next);
  assert.equal(misshapenNode(second.root), undefined);
  assert.equal(sameTree(second.root, fresh.root), undefined);
});

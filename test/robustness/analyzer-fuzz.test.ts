// Robustness of the analyzer itself (no LSP): seeded fuzzing over mutated and truncated
// training files and random bytes, 10,000-deep nesting of many shapes, a 5 MB file, a file
// of 30,000 comment lines, and CRLF/BOM/tab/astral text. analyzeText must never throw, and no stage or rule may fail;
// every lowering walk (heap, C exports, public API) must give the same tree on every input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser, parseSource } from '../../server/src/parse/parser';
import {
  activeLoweringWalk,
  setLoweringWalk,
  verifyMemoryWalk,
  type LoweringWalk,
} from '../../server/src/parse/direct-walk';
import { MemoryWalk } from '../../server/src/parse/memory-walk';
import type { SyntaxNode } from '../../server/src/parse/syntax';
import { analyzeText, MAX_ANALYSED_BYTES, type FileAnalysis } from '../../server/src/analyzer';
import { mergeSettings } from '../../server/src/config/settings';
import { wasmDir } from '../helpers/paths';
import { awkwardText, deepInputs, mutatedFiles, randomByteTexts } from './inputs';

const settings = mergeSettings({});

async function analyse(text: string): Promise<FileAnalysis> {
  const parser = await initParser({ wasmDir });
  return analyzeText({ parser, text, filePath: null, settings });
}

function failuresOf(analysis: FileAnalysis): string {
  return analysis.failures.map((f) => `${f.code}: ${f.error.split('\n').slice(0, 4).join(' | ')}`).join('\n');
}

/** A flat fingerprint of a lowered tree (type, field, range, operator, child count), iteratively. */
function fingerprint(root: SyntaxNode): string[] {
  const out: string[] = [];
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    out.push(
      `${node.type}|${node.field}|${node.startIndex}|${node.endIndex}|${node.operator ?? ''}|${node.children.length}`,
    );
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out;
}

test('mutated and truncated training files never make the analyzer fail', async () => {
  const files = mutatedFiles(300, 1234);
  const problems: string[] = [];
  for (const [i, text] of files.entries()) {
    const analysis = await analyse(text);
    assert.ok(Array.isArray(analysis.findings));
    if (analysis.failures.length) problems.push(`file ${i}:\n${failuresOf(analysis)}`);
    for (const finding of analysis.findings) {
      assert.ok(finding.range.start.line >= 0 && finding.range.start.column >= 0, `file ${i}: bad range`);
    }
  }
  assert.deepEqual(problems, [], problems.slice(0, 5).join('\n'));
});

test('random bytes never make the analyzer fail', async () => {
  for (const [i, text] of randomByteTexts(60, 99).entries()) {
    const analysis = await analyse(text);
    assert.deepEqual(analysis.failures, [], `input ${i}: ${failuresOf(analysis)}`);
  }
});

test('the heap walk and the C cursor lowering equal the public TreeCursor lowering', async () => {
  const parser = await initParser({ wasmDir });
  assert.equal(
    activeLoweringWalk(),
    'memory',
    'the heap walk should pass its probe with the pinned web-tree-sitter',
  );
  const inputs = [
    ...mutatedFiles(40, 77),
    ...randomByteTexts(10, 5),
    ...Object.values(deepInputs(2_000)),
    awkwardText().text,
  ];
  const walks: LoweringWalk[] = ['memory', 'exports', 'cursor'];
  try {
    for (const [i, text] of inputs.entries()) {
      const trees = walks.map((walk) => {
        setLoweringWalk(walk);
        assert.equal(activeLoweringWalk(), walk);
        return fingerprint(parseSource(parser, text).root);
      });
      assert.deepEqual(trees[0], trees[2], `input ${i}: heap walk`);
      assert.deepEqual(trees[1], trees[2], `input ${i}: C cursor exports`);
    }
  } finally {
    setLoweringWalk('memory');
  }
});

/**
 * Rules known to overflow the stack on a deep input, reported to the lead; the analyzer
 * degrades gracefully (the rule loses its findings, nothing else), and the strict check
 * runs as a TODO until the rule walks iteratively.
 */
// (SL105's truthTested recursion on `and`/`not` chains was found here and fixed in f826f97.)
const KNOWN_OVERFLOWS: Record<string, string> = {};

const deep = deepInputs();
// NOTE: 10,000 levels of indentation is 48 MB of spaces, over the analysed-size limit; the
// parser and lowering get that one, the whole analysis a 1,400-deep version (1 MB).
const deepIfs = deep['nested ifs'];
delete deep['nested ifs'];
deep['nested ifs (1,400 deep)'] = deepInputs(1_400)['nested ifs'];

for (const [name, text] of Object.entries(deep)) {
  test(`10,000-deep ${name}: analysed, the FileModel built, never a crash`, async () => {
    const analysis = await analyse(text);
    assert.equal(analysis.note, undefined, `analysis gave up: ${analysis.note}\n${failuresOf(analysis)}`);
    assert.ok(analysis.model, 'a FileModel');
    assert.ok(!analysis.failures.some((f) => f.code === 'analysis'), failuresOf(analysis));
  });
  test(`10,000-deep ${name}: no rule overflows the stack`, { todo: KNOWN_OVERFLOWS[name] }, async () => {
    const analysis = await analyse(text);
    assert.deepEqual(
      analysis.failures.map((f) => `${f.code}: ${f.error.split('\n').slice(0, 3).join(' | ')}`),
      [],
    );
  });
}

test('10,000-deep nesting is lowered whole: the tree is more than 10,000 nodes deep', async () => {
  const parser = await initParser({ wasmDir });
  for (const name of ['parentheses', 'call chain', 'nested lists']) {
    const { root } = parseSource(parser, deep[name]);
    let depth = 0;
    const stack: [SyntaxNode, number][] = [[root, 1]];
    while (stack.length) {
      const [node, level] = stack.pop()!;
      depth = Math.max(depth, level);
      for (const child of node.children) stack.push([child, level + 1]);
    }
    assert.ok(depth > 10_000, `${name}: lowered depth ${depth}`);
  }
});

test('10,000 nested ifs by indentation (48 MB of spaces) are refused with a note, not parsed', async () => {
  // NOTE: tree-sitter-python's scanner keeps at most ~1,000 indent levels anyway; past that
  // it recovers with ERROR nodes (the 1,400-deep case above covers analysis past that limit).
  const started = Date.now();
  const analysis = await analyse(deepIfs);
  assert.match(analysis.note ?? '', /over the 2 MB limit/);
  assert.ok(Date.now() - started < 3_000);
});

test('a 5 MB file is refused with a note, quickly, and a 150 KB one is analysed', async () => {
  const line = 'x = torch.zeros(8).view(2, 4)  # padding to make a long line of text\n';
  const big = `import torch\n${line.repeat(Math.ceil((5 * 1024 * 1024) / line.length))}`;
  const started = Date.now();
  const refused = await analyse(big);
  assert.ok(Buffer.byteLength(big) > MAX_ANALYSED_BYTES);
  assert.match(refused.note ?? '', /not analysed: 5\.\d MB/);
  assert.ok(Date.now() - started < 2_000, 'refusing a big file should not parse it');
  const medium = `import torch\n${line.repeat(2_000)}`;
  const analysed = await analyse(medium);
  assert.equal(analysed.note, undefined);
  assert.ok(analysed.model, 'a 150 KB file is analysed');
  assert.deepEqual(analysed.failures, []);
});

test(
  'a file of 30,000 comment lines (under the 2 MB limit) is analysed in seconds, with the code after them',
  { timeout: 60_000 },
  async () => {
    // tree-sitter-python's scanner reads the rest of a comment block at each of its line breaks:
    // parsed as it is, this block would take minutes (5,000 lines took 15 s); its inner lines
    // are left out of the parse (parse/comment-runs.ts).
    const block = Array.from({ length: 30_000 }, (_, i) => `# a long note, line ${i}, kept in the file`).join(
      '\n',
    );
    const text = `import torch\n\n${block}\nx = torch.zeros(8, 4).t().view(32)\n`;
    assert.ok(Buffer.byteLength(text) < MAX_ANALYSED_BYTES);
    const started = Date.now();
    const analysis = await analyse(text);
    assert.ok(Date.now() - started < 20_000, `${Date.now() - started} ms`);
    assert.equal(analysis.note, undefined);
    assert.deepEqual(analysis.failures, []);
    assert.deepEqual(
      analysis.findings.map((finding) => [finding.code, finding.range.start.line]),
      [['SL201', 30_002]],
    );
  },
);

test('CRLF, a BOM, tabs and astral characters keep UTF-16 positions right', async () => {
  const { text, itemLine, itemColumn } = awkwardText();
  const analysis = await analyse(text);
  assert.deepEqual(analysis.failures, []);
  const finding = analysis.findings.find((f) => f.code === 'SL101');
  assert.ok(finding, `SL101 expected; got ${JSON.stringify(analysis.findings.map((f) => f.code))}`);
  assert.equal(finding.range.start.line, itemLine);
  const columnText = text.split('\r\n')[itemLine].slice(finding.range.start.column, finding.range.end.column);
  assert.ok(finding.range.start.column >= itemColumn, `finding starts at ${finding.range.start.column}`);
  assert.match(columnText, /item/, `the range covers "${columnText}"`);
});

test('the heap walk is used only while it walks the probe text as the C cursor does', async () => {
  const parser = await initParser({ wasmDir });
  // A heap walk that loses one fact (every field) must be rejected, and the lowering falls back.
  class FieldBlindWalk extends MemoryWalk {
    override fieldId(): number {
      return 0;
    }
  }
  try {
    assert.equal(
      verifyMemoryWalk(parser, (heap, tree) => new FieldBlindWalk(heap, tree)),
      false,
    );
    assert.equal(activeLoweringWalk(), 'exports');
    assert.ok(parseSource(parser, 'x = f(a, b=1)\n').root.children.length > 0);
  } finally {
    assert.equal(verifyMemoryWalk(parser), true);
  }
  assert.equal(activeLoweringWalk(), 'memory');
});

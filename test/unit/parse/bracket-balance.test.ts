// hasUnpairedBracket: a sure syntax error found without parsing (brackets outside strings
// and comments that do not pair up), which lets the incremental parser skip a re-parse it
// would throw away. It must never flag a text tree-sitter parses without errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser } from '../../../server/src/parse/parser';
import { hasUnpairedBracket } from '../../../server/src/parse/bracket-balance';
import { DocumentTrees } from '../../../server/src/parse/incremental';
import { mutatedFiles } from '../../robustness/inputs';
import { wasmDir } from '../../helpers/paths';

test('brackets inside strings and comments do not count', () => {
  const paired = [
    'x = f(a[0], {"k": (1, 2)})\n',
    'print("(")  # a ) in a comment\n',
    "s = ')' + '[' + \"{\"\n",
    's = """a ( docstring\nover ] lines"""\n',
    "s = '''(''' + r'\\')'\n",
    's = "an escaped \\" quote ("\n',
    'x = [\n    1,  # ]\n    2,\n]\n',
    's = \'\'\nt = ""\nu = f(s)\n',
  ];
  for (const text of paired) assert.equal(hasUnpairedBracket(text), false, text);
});

test('an unclosed, a stray or a crossed bracket is found', () => {
  const unpaired = [
    'x = f(1\n',
    'x = ]\n',
    'x = (1]\n',
    'x = {"a": [1}\n',
    'y = g(h(2)\nz = 3\n',
    '#ok\n)\n',
  ];
  for (const text of unpaired) assert.equal(hasUnpairedBracket(text), true, text);
});

test('whatever it flags, tree-sitter parses with an error', async () => {
  const parser = await initParser({ wasmDir });
  let flagged = 0;
  for (const text of mutatedFiles(120, 11)) {
    if (!hasUnpairedBracket(text)) continue;
    flagged++;
    const tree = parser.parse(text)!;
    assert.equal(tree.rootNode.hasError, true, text.slice(0, 200));
    tree.delete();
  }
  assert.ok(flagged > 10, `only ${flagged} inputs flagged`);
});

test('typing an opening bracket skips the re-parse: only the changed chunk is parsed', async () => {
  const parser = await initParser({ wasmDir });
  const trees = new DocumentTrees(parser);
  try {
    // A statement too long for a window re-parse (see window-parse.ts): tree-sitter would re-parse.
    const before = `import torch\n\nweights = [${'0.5, '.repeat(1_000)}]\ny = torch.tensor(weights)\n`;
    trees.parse('doc', before);
    const at = before.indexOf('0.5, ') + 2_000;
    const after = `${before.slice(0, at)}(${before.slice(at)}`;
    trees.edit('doc', before, [{ start: at, oldEnd: at, newText: '(' }]);
    const parsed = trees.parse('doc', after);
    assert.equal(parsed.hasError, true);
    assert.deepEqual(
      [
        trees.stats.skippedReparses,
        trees.stats.fallbacks,
        trees.stats.freshParses,
        trees.stats.chunkedVersions,
      ],
      [1, 0, 1, 1],
    );
  } finally {
    trees.dispose();
  }
});

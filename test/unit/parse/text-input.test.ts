// The parser's text input (server/src/parse/text-input.ts): the fast copy gives tree-sitter
// exactly the code units web-tree-sitter's own copy does, on texts that cross its chunks in
// every awkward way, and a copy that drops one code unit is refused by the probe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Parser } from 'web-tree-sitter';
import { initParser } from '../../../server/src/parse/parser';
import {
  fastTextInputOn,
  parsedNodes,
  textInputFault,
  verifyTextInput,
  withStockTextInput,
} from '../../../server/src/parse/text-input';
import { generateTrainingFile } from '../../perf/generate';
import { awkwardText, mutatedFiles, randomByteTexts } from '../../robustness/inputs';
import { wasmDir } from '../../helpers/paths';

/** Every node of a parse of `text`, with its type, UTF-16 offsets and whether it is missing. */
function nodes(parser: Parser, text: string): string {
  return parsedNodes(parser.parse(text)).join('\n');
}

/** Texts whose code units fall on the copy's chunk ends (5,119 code units) in different ways. */
function chunkEdgeTexts(): string[] {
  const texts: string[] = ['', '\n', 'x', 'x = 1'];
  const astral = '\ud83d\ude00';
  for (const at of [5117, 5118, 5119, 10237, 10238, 10239]) {
    // A string literal whose astral character starts at code unit `at`.
    const head = `s = "${'a'.repeat(at - 5)}`;
    texts.push(`${head}${astral}"\nprint(s)\n`);
    // The same with a lone surrogate, and with two-byte characters before it.
    texts.push(`${head}\ud83d"\nx = 1\n`);
    texts.push(`s = "${'\u00e9'.repeat(at - 5)}${astral}"\n`);
  }
  texts.push(`# ${'\u03c0'.repeat(30_000)}\nimport torch\n`);
  texts.push(`import torch\r\n${'x = torch.ones(2)\r\n'.repeat(2_000)}`);
  return texts;
}

test("the fast copy is on after the probe, and gives the trees web-tree-sitter's copy gives", async () => {
  const parser = await initParser({ wasmDir });
  assert.equal(fastTextInputOn(), true, 'the probe text should parse the same both ways here');
  const texts = [
    ...chunkEdgeTexts(),
    awkwardText().text,
    ...mutatedFiles(12, 5),
    ...randomByteTexts(6, 9),
    generateTrainingFile({ lines: 3_000, seed: 4 }),
  ];
  for (const [i, text] of texts.entries()) {
    const stock = withStockTextInput(() => nodes(parser, text));
    assert.equal(nodes(parser, text), stock, `text ${i} (${text.length} code units) parses differently`);
  }
});

test("a copy that drops a code unit fails the probe, and parses go back to web-tree-sitter's copy", async () => {
  const parser = await initParser({ wasmDir });
  const text = chunkEdgeTexts()[5];
  const stock = withStockTextInput(() => nodes(parser, text));
  textInputFault.dropLastCodeUnit = true;
  try {
    assert.equal(verifyTextInput(parser), false);
    assert.equal(fastTextInputOn(), false);
    assert.equal(nodes(parser, text), stock, "with the fast copy off, parses are web-tree-sitter's");
  } finally {
    textInputFault.dropLastCodeUnit = false;
  }
  assert.equal(verifyTextInput(parser), true);
  assert.equal(nodes(parser, text), stock);
});

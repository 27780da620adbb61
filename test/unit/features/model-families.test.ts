// The hover on model files shaped like the four families people train (nanoGPT, timm,
// Hugging Face transformers, torchvision) shows the exact parameter count PyTorch reports for
// the same file (instantiated by /usr/bin/python3 in this run) and a memory table whose
// activations column is a number, not "not estimated".
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '../../../server/src/config/settings';
import { provideHover } from '../../../server/src/features/hover';
import { torchTruth, type TorchCounts } from '../modules/helpers';
import { loadFixture, mark } from './hover-helpers';

const CASES: {
  family: string;
  file: string;
  module: string;
  marker: string;
  expression: string;
  /** Why the count is a lower bound where the code leaves it undecidable (the class hover of a builder-only class). */
  undecidable?: RegExp;
  /** What the memory header says the input is. */
  input?: RegExp;
}[] = [
  {
    family: 'nanoGPT',
    file: 'families/nanogpt_style.py',
    module: 'families.nanogpt_style',
    marker: 'gpt',
    expression: 'GPT(GPTConfig())',
    input: /; batch \d+ × sequence \d+\)/,
  },
  {
    family: 'timm',
    file: 'families/timm_style.py',
    module: 'families.timm_style',
    marker: 'vit',
    expression: 'VisionTransformer()',
    input: /; batch \d+ × image 3×224×224\)/,
  },
  {
    family: 'Hugging Face',
    file: 'families/hf_style.py',
    module: 'families.hf_style',
    marker: 'causallm',
    expression: 'DecoderForCausalLM(DecoderConfig())',
    input: /; batch \d+ × sequence \d+\)/,
  },
  {
    family: 'torchvision (class)',
    file: 'families/torchvision_style.py',
    module: 'families.torchvision_style',
    marker: 'resnet',
    expression: 'resnet50()',
    // ResNet(block, layers) has no defaults and the file has several builders: nothing to pick.
    undecidable:
      /`block` has no default[\s\S]*`layers` has no default|`layers` has no default[\s\S]*`block` has no default/,
  },
  {
    family: 'torchvision (builder call)',
    file: 'families/torchvision_style.py',
    module: 'families.torchvision_style',
    marker: 'resnet50',
    expression: 'resnet50()',
    input: /; batch \d+ × image 3×224×224\)/,
  },
];

let truths: TorchCounts[] = [];
before(() => {
  truths = torchTruth(CASES.map((c) => [c.module, c.expression]));
});

/** The activations cell of the memory table's first strategy row (DDP by default). */
function firstRow(markdown: string): [string, string] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| strategy |'));
  assert.ok(header >= 0, `no memory table in:\n${markdown}`);
  const cells = (line: string) => line.split('|').map((c) => c.trim());
  const columns = cells(lines[header]);
  return [lines[header], cells(lines[header + 2])[columns.indexOf('activations')]];
}

for (const [index, c] of CASES.entries()) {
  test(`${c.family}-style file: the hover shows PyTorch's exact count and activations`, async () => {
    const { model, workspace, marks } = await loadFixture(c.file);
    const hover = provideHover({
      model,
      position: mark(marks, c.marker),
      settings: defaultSettings(),
      workspace,
    });
    assert.ok(hover, 'expected a hover');
    const markdown = (hover.contents as { value: string }).value;
    const [, activations] = firstRow(markdown);
    if (c.undecidable) {
      assert.match(markdown, /\*\*Parameters:\*\* ≥ /, markdown);
      assert.match(markdown, /\*\*Lower bound because:\*\*/, markdown);
      assert.match(markdown, c.undecidable, markdown);
      const known = Number(/≥ ([\d.]+)K/.exec(markdown)?.[1]) * 1000;
      assert.ok(
        known < truths[index].params,
        `a lower bound ${known} below PyTorch's ${truths[index].params}`,
      );
      assert.match(activations, /^≥ \d[\d.]* (B|kB|MB|GB|TB)$/, `activations cell "${activations}"`);
    } else {
      const exact = truths[index].params.toLocaleString('en-US');
      assert.match(markdown, new RegExp(`\\(${exact}\\)`), `expected ${exact} params in:\n${markdown}`);
      assert.doesNotMatch(markdown, /Lower bound because/, markdown);
      assert.match(
        activations,
        /^\d[\d.]* (B|kB|MB|GB|TB)$/,
        `activations cell "${activations}" in:\n${markdown}`,
      );
    }
    // The memory header names the input the walk used: token ids for LMs, an image for convnets and ViTs.
    if (c.input) assert.match(markdown, c.input, markdown);
    if (process.env.SHARDLENS_SHOW_HOVER) console.log(markdown);
    assert.doesNotMatch(markdown, /not estimated|Activations:\*\* unknown/);
  });
}

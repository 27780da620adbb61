// `turnsOnCheckpointing` reads the text for checkpointing options outside comments. It finds
// the first match no `#` precedes on its line, instead of stripping every comment first; this
// compares it with the stripping on lines built to sit on each side of the rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSource } from '../../helpers/analyze';
import { usesActivationCheckpointing } from '../../../server/src/rules/memory-helpers';

/** The first definition: strip each line's `#...`, then look for an option. */
function byStripping(text: string): boolean {
  const option =
    /gradient_checkpointing|activation_checkpoint|checkpoint_wrapper|checkpoint_activations|apply_ac\b|torch\.utils\.checkpoint|use_checkpoint|grad_ckpt|recompute_granularity|checkpoint_sequential/;
  return option.test(text.replace(/#[^\n]*/g, ''));
}

const CASES: [string, boolean][] = [
  ['model.gradient_checkpointing_enable()', true],
  ['# model.gradient_checkpointing_enable()', false],
  ['x = 1  # use_checkpoint=True would help', false],
  ['cfg.use_checkpoint = True  # on', true],
  ['apply_ac#(model)', true],
  ['apply_acx(model)', false],
  ['print("#"); cfg.grad_ckpt = True', false],
  ['# first line grad_ckpt\r\ncfg.grad_ckpt = True\r\n', true],
  ['# grad_ckpt\n# use_checkpoint\nx = 1', false],
  ['x = 1 # a\ny = recompute_granularity', true],
  ['torch.utils.checkpoint#x', true],
  ['torch.utils#.checkpoint', false],
];

for (const [line, expected] of CASES) {
  test(`checkpointing in ${JSON.stringify(line)}: ${expected}`, async () => {
    const text = `import torch\n${line}\n`;
    const analysis = await analyzeSource(text);
    assert.ok(analysis.model);
    assert.equal(byStripping(text), expected, 'the case states what stripping gives');
    assert.equal(usesActivationCheckpointing(analysis.model), expected);
  });
}

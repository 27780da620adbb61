// SL201's quick fixes (`.reshape(...)`, `.contiguous().view(...)`): applying either removes
// the finding on re-analysis, and the unit checks of the stride model behind the rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSource } from '../../helpers/analyze';
import { applyEdits } from '../../helpers/apply-edits';
import { atom, num } from '../../../server/src/analysis/symbolic-size';
import { contiguous, transpose, tryView } from '../../../server/src/analysis/strides';

const source = [
  'import torch',
  '',
  '',
  'def merge_heads(B, nh, T, hs):',
  '    y = torch.randn(B, nh, T, hs)',
  '    return y.transpose(1, 2).view(B, T, nh * hs)',
  '',
].join('\n');

async function sl201(text: string) {
  return (await analyzeSource(text, { select: ['SL201'] })).findings.filter((f) => f.code === 'SL201');
}

test('both SL201 fixes apply and remove the finding', async () => {
  const [finding] = await sl201(source);
  assert.ok(finding, 'SL201 fires on the unfixed source');
  assert.equal(finding.fixes.length, 2);
  const expected = [
    '.transpose(1, 2).reshape(B, T, nh * hs)',
    '.transpose(1, 2).contiguous().view(B, T, nh * hs)',
  ];
  for (const [index, fix] of finding.fixes.entries()) {
    const fixed = applyEdits(source, fix.edits);
    assert.ok(fixed.includes(expected[index]), fixed);
    assert.deepEqual(await sl201(fixed), [], `${fix.title} leaves the finding`);
  }
});

test('the stride model: transpose then merge fails for every size, split succeeds', () => {
  const [B, T, C] = [atom('B'), atom('T'), atom('C')];
  const moved = transpose(contiguous([B, T, C]), 1, 2, 'transpose(1, 2)')!;
  const merged = tryView(moved, [
    B,
    {
      coef: 1,
      atoms: new Map([
        ['T', 1],
        ['C', 1],
      ]),
    },
  ]);
  assert.equal(merged.kind, 'fails');
  assert.equal(merged.kind === 'fails' && merged.definite, true);
  assert.equal(tryView(moved, [B, C, T]).kind, 'succeeds');
  assert.equal(tryView(contiguous([num(2), num(3), num(4)]), [num(6), num(4)]).kind, 'succeeds');
});

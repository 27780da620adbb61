// Inlay hints after nn.Module class headers: text, position, the settings switch, and the
// time shown only when a link bandwidth is known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '../../../server/src/config/settings';
import { provideCodeLenses } from '../../../server/src/features/code-lens';
import { INLAY_LABEL_MAX_CHARS, fitLabel, provideInlayHints } from '../../../server/src/features/inlay-hints';
import { loadFixture, mark } from './hover-helpers';

const everything = { start: { line: 0, character: 0 }, end: { line: 10_000, character: 0 } };

test('one hint per module class, after its header', async () => {
  const { model, workspace, marks } = await loadFixture('gpt2_model.py');
  const hints = provideInlayHints({ model, range: everything, settings: defaultSettings(), workspace });
  const gptLine = mark(marks, 'gpt').line;
  const gpt = hints.find((h) => h.position.line === gptLine);
  assert.ok(gpt);
  assert.equal(gpt.position.character, 'class GPT(nn.Module):'.length);
  assert.equal(gpt.label, '124.5M params · 15.5 GB/GPU · 871.3 MB/step');
  const tooltip = gpt.tooltip as { kind: string; value: string };
  assert.equal(tooltip.kind, 'markdown');
  assert.match(
    tooltip.value,
    /^\*\*GPT\*\*: 124\.5M params · 15\.5 GB\/GPU peak \(DDP, 8× H100 SXM\) · AllReduce 871\.3 MB\/step ≈ 2\.0 ms\n\nAssumptions: amp-bf16 \(settings\) · adamw \(settings\) · no activation checkpointing \(default\) · DDP · 8 GPUs/,
  );
  assert.equal(hints.length, 6);
});

test('every label fits, in whole words, and its tooltip holds the full text', async () => {
  for (const fixture of ['gpt2_model.py', 'llama_model.py', 'resnet_model.py', 'symbolic_model.py']) {
    const { model, workspace } = await loadFixture(fixture);
    const settings = defaultSettings();
    settings.cluster = { ...settings.cluster, nodes: 4, interNodeLink: 'ib-ndr' };
    for (const hint of provideInlayHints({ model, range: everything, settings, workspace })) {
      const label = String(hint.label);
      assert.ok(label.length <= INLAY_LABEL_MAX_CHARS, `${fixture}: ${label} (${label.length})`);
      const tooltip = (hint.tooltip as { value: string }).value;
      // The label's parts all appear, whole, in the tooltip's text.
      for (const part of label.split(' · ')) assert.ok(tooltip.includes(part), `${part} not in ${tooltip}`);
    }
  }
});

test('labels are cut between whole parts, or at a word boundary with an ellipsis', () => {
  assert.equal(fitLabel(['124.5M params', '17.7 GB/GPU', '1435.7 MB/step']), '124.5M params · 17.7 GB/GPU');
  assert.equal(fitLabel(['1M params', '2 GB/GPU', '3 MB/step']), '1M params · 2 GB/GPU · 3 MB/step');
  const cut = fitLabel(['≥ 1.2M params + unknown parameters of a very long submodule name']);
  assert.ok(cut.length <= INLAY_LABEL_MAX_CHARS);
  assert.match(cut, /^≥ 1\.2M params \+ unknown parameters of a…$/);
});

test('hints follow settings.inlayHints and the range', async () => {
  const { model, workspace, marks } = await loadFixture('gpt2_model.py');
  const settings = { ...defaultSettings(), inlayHints: false };
  assert.deepEqual(provideInlayHints({ model, range: everything, settings, workspace }), []);
  const line = mark(marks, 'gpt').line;
  const range = { start: { line, character: 0 }, end: { line, character: 80 } };
  assert.equal(provideInlayHints({ model, range, settings: defaultSettings(), workspace }).length, 1);
});

test('without a link bandwidth no time is shown', async () => {
  const { model, workspace } = await loadFixture('gpt2_model.py');
  const settings = defaultSettings();
  settings.cluster = {
    ...settings.cluster,
    customProfiles: { links: { slow: { name: 'mystery link', scope: 'intra' } } },
    intraNodeLink: 'slow',
  };
  const labels = provideInlayHints({ model, range: everything, settings, workspace }).map((h) =>
    String(h.label),
  );
  assert.ok(labels.length > 0);
  for (const label of labels) assert.doesNotMatch(label, /≈/);
});

test('an unknown count still gives figures for the known part, each marked as a lower bound', async () => {
  const { model, workspace } = await loadFixture('symbolic_model.py');
  const [hint] = provideInlayHints({ model, range: everything, settings: defaultSettings(), workspace });
  assert.equal(hint.label, '≥ 2.1M params · ≥ 46.2 MB/GPU');
  assert.match((hint.tooltip as { value: string }).value, /AllReduce ≥ 14\.7 MB\/step/);
});

test('a "Benchmark this layer" lens on each module class', async () => {
  const { model, workspace, marks } = await loadFixture('gpt2_model.py');
  const lenses = provideCodeLenses({ model, settings: defaultSettings(), uri: 'file:///m.py', workspace });
  assert.equal(lenses.length, 6);
  const gpt = lenses.find((l) => l.range.start.line === mark(marks, 'gpt').line)!;
  assert.deepEqual(gpt.command, {
    title: 'Benchmark this layer',
    command: 'shardlens.benchmarkLayer',
    arguments: [{ uri: 'file:///m.py', line: mark(marks, 'gpt').line, character: 6 }],
  });
  assert.deepEqual(
    provideCodeLenses({ model, settings: { ...defaultSettings(), codeLens: false }, uri: 'x' }),
    [],
  );
});

// Inlay hints after nn.Module class headers: text, position, the settings switch, and the
// time shown only when a link bandwidth is known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '../../../server/src/config/settings';
import { provideCodeLenses } from '../../../server/src/features/code-lens';
import { provideInlayHints } from '../../../server/src/features/inlay-hints';
import { loadFixture, mark } from './hover-helpers';

const everything = { start: { line: 0, character: 0 }, end: { line: 10_000, character: 0 } };

test('one hint per module class, after its header', async () => {
  const { model, workspace, marks } = await loadFixture('gpt2_model.py');
  const hints = provideInlayHints({ model, range: everything, settings: defaultSettings(), workspace });
  const gptLine = mark(marks, 'gpt').line;
  const gpt = hints.find((h) => h.position.line === gptLine);
  assert.ok(gpt);
  assert.equal(gpt.position.character, 'class GPT(nn.Module):'.length);
  assert.equal(
    gpt.label,
    '124.5M params · 10.9 GB/GPU peak (DDP, 8× H100 SXM) · AllReduce 435.7 MB/step ≈ 996.1 µs',
  );
  assert.equal(hints.length, 6);
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
  assert.equal(
    hint.label,
    '≥ 2.1M params · ≥ 37.8 MB/GPU peak (DDP, 8× H100 SXM) · AllReduce ≥ 7.3 MB/step ≈ 44.3 µs',
  );
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

// Hover markdown, compared exactly at the fixtures' `^name` markers (pyright fourslash style):
// a module class, a layer constructor, DDP(...), loss.backward() under gradient accumulation,
// and a model whose head stays symbolic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '../../../server/src/config/settings';
import { provideHover } from '../../../server/src/features/hover';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFileModel } from '../../../server/src/analysis/file-model';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { fixturesDir, wasmDir } from '../../helpers/paths';
import { loadFixture, mark } from './hover-helpers';

const EXPECTED: Record<string, Record<string, string>> = {
  'gpt2_model.py': {
    gpt: [
      '### GPT · nn.Module',
      '',
      '**Parameters:** 124.5M (124,475,904) · trainable 124.5M · buffers 0 · largest layer `transformer.wte` 38.6M',
      '',
      '**Memory per GPU** (8× H100 SXM · NVLink 4; batch 12 × sequence 1024)',
      '',
      '| strategy | weights | grads | optimizer | activations | peak/GPU | comm/step |',
      '|---|---:|---:|---:|---:|---:|---:|',
      '| **DDP** | 497.9 MB | 497.9 MB | 995.8 MB | 7.8 GB | 15.5 GB | 871.3 MB ≈ 2.0 ms |',
      '| ZeRO-1 | 497.9 MB | 497.9 MB | 124.5 MB | 7.8 GB | 14.2 GB | 871.3 MB ≈ 2.0 ms |',
      '| ZeRO-2 | 497.9 MB | 62.2 MB | 124.5 MB | 7.8 GB | 13.9 GB | 871.3 MB ≈ 2.0 ms |',
      '| ZeRO-3 | 62.2 MB | 62.2 MB | 124.5 MB | 7.8 GB | 13.8 GB | 1.3 GB ≈ 2.9 ms |',
      '| FSDP full | 62.2 MB | 62.2 MB | 124.5 MB | 7.8 GB | 13.8 GB | 1.3 GB ≈ 2.9 ms |',
      '',
      "**Activations:** what autograd saves, following forward (flash/SDPA attention); no checkpointing; input token ids [12, 1024]; `targets` given; cross-entropy on the output as the step's loss",
      '',
      'Transformer: 12 layers · hidden 768 · 12 heads · ffn 3072 · vocab 50304',
      '',
      '- `config` has no default: assumed `GPTConfig()` with its field defaults',
      '',
      'Assumptions: amp-bf16 (settings) · adamw (settings) · no activation checkpointing (default) · DDP · 8 GPUs (8× H100 SXM · NVLink 4) · sequence length 1024 (GPTConfig.block_size) · micro-batch 12 (`batch_size = 12` (line 11))',
    ].join('\n'),
    linear: [
      '**nn.Linear(4096, 4096)** · 16.8M params (16,781,312)',
      '',
      '| precision | weight bytes |',
      '|---|---:|',
      '| fp32 | 67.1 MB |',
      '| bf16 | 33.6 MB |',
      '| fp16 | 33.6 MB |',
      '',
      '**FLOPs per token:** forward 33.6M, forward + backward 100.7M',
      '',
      '2·m·n·k per matmul: 2 × 4096 × 4096 per token; backward ≈ 2× forward (input and weight gradients), as torch.utils.flop_counter counts.',
    ].join('\n'),
  },
  'gpt2_train.py': {
    ddp: [
      '**DistributedDataParallel** · DDP',
      '',
      'Model: **GPT** · 124.5M params',
      '',
      '**Per GPU:** weights 497.9 MB · grads 497.9 MB · optimizer 995.8 MB · activations 7.8 GB · peak 15.5 GB',
      '',
      '**Communication per step:**',
      '- AllReduce grads (ring, 8 GPUs, NVLink 4): 871.3 MB sent per GPU per step ≈ 2.0 ms on 8× H100 SXM · NVLink 4',
      '',
      'Assumptions: amp-bf16 (settings) · adamw (inferred from `torch.optim.AdamW(model.parameters(), lr=6e-4)` (line 18)) · no activation checkpointing (default) · DDP · 8 GPUs (8× H100 SXM · NVLink 4) · sequence length 1024 (`block_size = 1024` (line 9)) · micro-batch 12 (`batch_size = 12` (line 8))',
    ].join('\n'),
    backward: [
      '**loss.backward()** triggers the gradient synchronisation of DistributedDataParallel',
      '',
      'Model: **GPT** · 124.5M params',
      '',
      '**Communication per step:**',
      '- AllReduce grads (ring, 8 GPUs, NVLink 4) ×4: 3.5 GB sent per GPU per step ≈ 7.9 ms on 8× H100 SXM · NVLink 4',
      '',
      "Gradient accumulation without `no_sync()`: every micro-batch's backward triggers its own gradient sync (×4 per step).",
      '',
      'Assumptions: amp-bf16 (settings) · adamw (inferred from `torch.optim.AdamW(model.parameters(), lr=6e-4)` (line 18)) · no activation checkpointing (default) · DDP · 8 GPUs (8× H100 SXM · NVLink 4) · sequence length 1024 (`block_size = 1024` (line 9)) · micro-batch 12 (`batch_size = 12` (line 8))',
    ].join('\n'),
  },
  'symbolic_model.py': {
    tagger: [
      '### Tagger · nn.Module',
      '',
      '**Parameters:** ≥ 2.1M (the known part; the rest is unknown, see below)',
      '',
      '**Memory per GPU** (8× H100 SXM · NVLink 4; batch 8 × sequence 1024; ≥: the known part only)',
      '',
      '| strategy | weights | grads | optimizer | activations | peak/GPU | comm/step |',
      '|---|---:|---:|---:|---:|---:|---:|',
      '| **DDP** | ≥ 8.4 MB | ≥ 8.4 MB | ≥ 16.8 MB | ≥ 0 B | ≥ 46.2 MB | ≥ 14.7 MB ≈ 60.7 µs |',
      '| ZeRO-1 | ≥ 8.4 MB | ≥ 8.4 MB | ≥ 2.1 MB | ≥ 0 B | ≥ 23.1 MB | ≥ 14.7 MB ≈ 60.7 µs |',
      '| ZeRO-2 | ≥ 8.4 MB | ≥ 1.0 MB | ≥ 2.1 MB | ≥ 0 B | ≥ 20.0 MB | ≥ 14.7 MB ≈ 60.7 µs |',
      '| ZeRO-3 | ≥ 1.0 MB | ≥ 1.0 MB | ≥ 2.1 MB | ≥ 0 B | ≥ 21.0 MB | ≥ 22.0 MB ≈ 91.0 µs |',
      '| FSDP full | ≥ 1.0 MB | ≥ 1.0 MB | ≥ 2.1 MB | ≥ 0 B | ≥ 21.0 MB | ≥ 22.0 MB ≈ 91.0 µs |',
      '',
      '**Activations:** unknown, not counted (a lower bound)',
      '',
      '**Lower bound because:**',
      '- `vocab` has no default: `if vocab is not None:`, `nn.Linear(d, vocab)`',
      '',
      '- `vocab` has no default and no config class was found: left unknown',
      '',
      'Assumptions: amp-bf16 (settings) · adamw (settings) · no activation checkpointing (default) · DDP · 8 GPUs (8× H100 SXM · NVLink 4) · sequence length 1024 (settings) · micro-batch 8 (settings)',
    ].join('\n'),
    unknownlayer: [
      '**nn.Linear(512, n_classes)** · parameters unknown: `nn.Linear(512, n_classes)` (`n_classes` unknown)',
    ].join('\n'),
  },
};

for (const [file, cases] of Object.entries(EXPECTED)) {
  for (const [name, expected] of Object.entries(cases)) {
    test(`hover at ^${name} in ${file}`, async () => {
      const { model, workspace, marks } = await loadFixture(file);
      const hover = provideHover({
        model,
        position: mark(marks, name),
        settings: defaultSettings(),
        workspace,
      });
      assert.ok(hover, 'expected a hover');
      assert.equal((hover.contents as { value: string }).value, expected);
    });
  }
}

test('hover on a plain statement says nothing', async () => {
  const { model, workspace } = await loadFixture('gpt2_model.py');
  assert.equal(
    provideHover({ model, position: { line: 0, character: 2 }, settings: defaultSettings(), workspace }),
    null,
  );
});

test('the cluster profile and precision come from settings', async () => {
  const { model, workspace, marks } = await loadFixture('gpt2_model.py');
  const settings = defaultSettings();
  settings.cluster = { ...settings.cluster, gpu: 'a100-80gb', intraNodeLink: 'nvlink3', gpusPerNode: 4 };
  settings.estimate = { ...settings.estimate, precision: 'fp32', strategy: 'zero3' };
  const value = (
    provideHover({ model, position: mark(marks, 'gpt'), settings, workspace })!.contents as { value: string }
  ).value;
  assert.match(value, /\| \*\*ZeRO-3\*\* \|/);
  assert.match(
    value,
    /Assumptions: fp32 \(settings\) · adamw \(settings\) · no activation checkpointing \(default\) · ZeRO-3 · 4 GPUs \(4× A100/,
  );
});

// Latency is measured by `npm run bench` (hover p95), not here: timed assertions fail on a loaded machine.
test('hover on a 2,000-line file answers every time, with the same text (evaluation cached per FileModel)', async () => {
  const { marks } = await loadFixture('gpt2_model.py');
  const parser = await initParser({ wasmDir });
  const base = readFileSync(join(fixturesDir, 'models', 'gpt2_model.py'), 'utf8');
  const extra: string[] = [];
  for (let i = 0; extra.length < 2000; i++) {
    extra.push(
      `class Extra${i}(nn.Module):`,
      '    def __init__(self, config=GPTConfig()):',
      '    super().__init__()'.replace(/^/, '    '),
    );
    extra.push(
      `        self.block = Block(config)`,
      `        self.proj = nn.Linear(${64 + i}, 128)`,
      '',
      `value_${i} = ${i} * 2`,
      '',
    );
  }
  const text = `${base}\n${extra.join('\n')}\n`;
  const model = buildFileModel({
    parsed: parseSource(parser, text),
    filePath: join(fixturesDir, 'models', 'big.py'),
  });
  const settings = defaultSettings();
  const first = new Map<string, string>();
  for (let i = 0; i < 60; i++) {
    const target = i % 2 ? 'gpt' : 'linear';
    const hover = provideHover({ model, position: mark(marks, target), settings });
    assert.ok(hover, target);
    const text = (hover.contents as { value: string }).value;
    assert.equal(text, first.get(target) ?? text, `hover ${i} on ${target} changed`);
    first.set(target, text);
  }
  assert.ok(model.root.source.lineCount >= 2000);
  assert.match(first.get('gpt')!, /\*\*Parameters:\*\* 124\.5M/);
});

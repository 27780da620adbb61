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
      '| **DDP** | 249.0 MB | 249.0 MB | 1.5 GB | 6.1 GB | 10.9 GB | 435.7 MB ≈ 996.1 µs |',
      '| ZeRO-1 | 249.0 MB | 249.0 MB | 186.7 MB | 6.1 GB | 9.3 GB | 435.7 MB ≈ 996.1 µs |',
      '| ZeRO-2 | 249.0 MB | 31.1 MB | 186.7 MB | 6.1 GB | 9.2 GB | 435.7 MB ≈ 996.1 µs |',
      '| ZeRO-3 | 31.1 MB | 31.1 MB | 186.7 MB | 6.1 GB | 9.1 GB | 653.5 MB ≈ 1.5 ms |',
      '| FSDP full | 31.1 MB | 31.1 MB | 186.7 MB | 6.1 GB | 9.1 GB | 653.5 MB ≈ 1.5 ms |',
      '',
      "**Activations:** what autograd saves, following forward (flash/SDPA attention); no checkpointing; input token ids [12, 1024]; `targets` given; cross-entropy on the output as the step's loss",
      '',
      'Transformer: 12 layers · hidden 768 · 12 heads · ffn 3072 · vocab 50304',
      '',
      '- `config` has no default: assumed `GPTConfig()` with its field defaults',
      '',
      'Assumptions: bf16 (settings) · adamw (settings) · no activation checkpointing (default) · DDP · 8 GPUs (8× H100 SXM · NVLink 4) · sequence length 1024 (GPTConfig.block_size) · micro-batch 12 (`batch_size = 12` (line 11))',
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
      '**Per GPU:** weights 249.0 MB · grads 249.0 MB · optimizer 1.5 GB · activations 6.1 GB · peak 10.9 GB',
      '',
      '**Communication per step:**',
      '- AllReduce grads (ring, 8 GPUs, NVLink 4): 435.7 MB sent per GPU per step ≈ 996.1 µs on 8× H100 SXM · NVLink 4',
      '',
      'Assumptions: bf16 (settings) · adamw (inferred from `torch.optim.AdamW(model.parameters(), lr=6e-4)` (line 18)) · no activation checkpointing (default) · DDP · 8 GPUs (8× H100 SXM · NVLink 4) · sequence length 1024 (`block_size = 1024` (line 9)) · micro-batch 12 (`batch_size = 12` (line 8))',
    ].join('\n'),
    backward: [
      '**loss.backward()** triggers the gradient synchronisation of DistributedDataParallel',
      '',
      'Model: **GPT** · 124.5M params',
      '',
      '**Communication per step:**',
      '- AllReduce grads (ring, 8 GPUs, NVLink 4) ×4: 1.7 GB sent per GPU per step ≈ 4.0 ms on 8× H100 SXM · NVLink 4',
      '',
      "Gradient accumulation without `no_sync()`: every micro-batch's backward triggers its own gradient sync (×4 per step).",
      '',
      'Assumptions: bf16 (settings) · adamw (inferred from `torch.optim.AdamW(model.parameters(), lr=6e-4)` (line 18)) · no activation checkpointing (default) · DDP · 8 GPUs (8× H100 SXM · NVLink 4) · sequence length 1024 (`block_size = 1024` (line 9)) · micro-batch 12 (`batch_size = 12` (line 8))',
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
      '| **DDP** | ≥ 4.2 MB | ≥ 4.2 MB | ≥ 25.2 MB | ≥ 0 B | ≥ 37.8 MB | ≥ 7.3 MB ≈ 44.3 µs |',
      '| ZeRO-1 | ≥ 4.2 MB | ≥ 4.2 MB | ≥ 3.1 MB | ≥ 0 B | ≥ 11.5 MB | ≥ 7.3 MB ≈ 44.3 µs |',
      '| ZeRO-2 | ≥ 4.2 MB | ≥ 524.9 kB | ≥ 3.1 MB | ≥ 0 B | ≥ 10.0 MB | ≥ 7.3 MB ≈ 44.3 µs |',
      '| ZeRO-3 | ≥ 524.9 kB | ≥ 524.9 kB | ≥ 3.1 MB | ≥ 0 B | ≥ 10.5 MB | ≥ 11.0 MB ≈ 66.5 µs |',
      '| FSDP full | ≥ 524.9 kB | ≥ 524.9 kB | ≥ 3.1 MB | ≥ 0 B | ≥ 10.5 MB | ≥ 11.0 MB ≈ 66.5 µs |',
      '',
      '**Activations:** unknown, not counted (a lower bound)',
      '',
      '**Lower bound because:**',
      '- `vocab` has no default: `if vocab is not None:`, `nn.Linear(d, vocab)`',
      '',
      '- `vocab` has no default and no config class was found: left unknown',
      '',
      'Assumptions: bf16 (settings) · adamw (settings) · no activation checkpointing (default) · DDP · 8 GPUs (8× H100 SXM · NVLink 4) · sequence length 1024 (settings) · micro-batch 8 (settings)',
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

// Catalog: published parameter counts against counts computed from the architecture numbers,
// and lookup by HF id, torchvision function name and HF config class.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  architectureParamCount,
  CATALOG,
  lookupConfigClass,
  lookupModel,
} from '../../../server/src/estimate';

test('published counts (model cards / num_parameters) equal the counts from the architecture', () => {
  const published: Record<string, number> = {
    gpt2: 124_439_808,
    'bert-base-uncased': 109_482_240,
    'meta-llama/Llama-2-7b-hf': 6_738_415_616,
    't5-large': 737_668_096, // DeepSpeed's memory page: 737.67M
  };
  for (const [id, count] of Object.entries(published)) assert.equal(lookupModel(id)?.params, count, id);
  for (const entry of CATALOG) {
    const computed = architectureParamCount(entry);
    if (computed !== undefined) assert.equal(computed, entry.params, entry.id);
  }
});

/** torchvision ResNet: conv/BN/fc parameters from the block layout (He et al. 2015, Table 1). */
function resnetParams(blocks: number[], bottleneck: boolean): number {
  const conv = (i: number, o: number, k: number) => i * o * k * k;
  const bn = (c: number) => 2 * c;
  let total = conv(3, 64, 7) + bn(64);
  let inC = 64;
  blocks.forEach((n, stage) => {
    const width = 64 * 2 ** stage;
    const outC = bottleneck ? width * 4 : width;
    for (let i = 0; i < n; i++) {
      if (bottleneck)
        total +=
          conv(inC, width, 1) +
          bn(width) +
          conv(width, width, 3) +
          bn(width) +
          conv(width, outC, 1) +
          bn(outC);
      else total += conv(inC, width, 3) + bn(width) + conv(width, width, 3) + bn(width);
      if (i === 0 && (inC !== outC || stage > 0)) total += conv(inC, outC, 1) + bn(outC);
      inC = outC;
    }
  });
  return total + inC * 1000 + 1000;
}

test('torchvision ResNet counts match the docs table', () => {
  assert.equal(resnetParams([3, 4, 6, 3], true), 25_557_032);
  assert.equal(lookupModel('resnet50')?.params, resnetParams([3, 4, 6, 3], true));
  assert.equal(lookupModel('resnet18')?.params, resnetParams([2, 2, 2, 2], false));
  assert.equal(lookupModel('resnet34')?.params, resnetParams([3, 4, 6, 3], false));
  assert.equal(lookupModel('resnet101')?.params, resnetParams([3, 4, 23, 3], true));
  assert.equal(lookupModel('resnet152')?.params, resnetParams([3, 8, 36, 3], true));
});

test('lookup by HF id, alias, torchvision name and config class', () => {
  assert.equal(lookupModel('openai-community/gpt2')?.id, 'gpt2');
  assert.equal(lookupModel('torchvision.models.vit_b_16')?.params, 86_567_656);
  assert.equal(lookupModel('META-LLAMA/LLAMA-2-7B-HF')?.layers, 32);
  assert.equal(lookupConfigClass('GPT2Config')?.id, 'gpt2');
  assert.equal(lookupConfigClass('LlamaConfig')?.hidden, 4096);
  assert.equal(lookupConfigClass('T5Config')?.id, 't5-small');
  assert.equal(lookupModel('no-such-model'), undefined);
  // DeepSpeed's memory page: t5-large's largest layer is 32.90M (the shared embedding).
  assert.equal(lookupModel('t5-large')?.largestLayerParams, 32_899_072);
  for (const e of CATALOG) assert.ok(e.source.length > 10, e.id);
});

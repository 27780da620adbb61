// shardlens/layerAt: the module under the cursor, its constructor expression, input template and dims.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '../../../server/src/config/settings';
import { provideLayerAt } from '../../../server/src/features/layer-at';
import { loadFixture, mark } from './hover-helpers';

test('a class: constructor from its config class, token-id input from forward(idx)', async () => {
  const { model, workspace, marks } = await loadFixture('gpt2_model.py');
  const result = provideLayerAt({
    model,
    position: mark(marks, 'gpt'),
    settings: defaultSettings(),
    workspace,
  });
  assert.ok(result);
  assert.equal(result.kind, 'class');
  assert.equal(result.constructorExpression, 'GPT(GPTConfig())');
  assert.deepEqual(result.inputs, [{ shape: ['B', 'T'], dtype: 'long', high: 50304 }]);
  assert.deepEqual(result.dims, { B: 12, T: 1024 });
  assert.equal(result.estimate?.params, 124_475_904);
  assert.ok(result.notes.some((n) => n.includes('Embedding(50304')));
});

test('a layer call: literal expression and [B, T, in_features] input', async () => {
  const { model, workspace, marks } = await loadFixture('gpt2_model.py');
  const result = provideLayerAt({
    model,
    position: mark(marks, 'linear'),
    settings: defaultSettings(),
    workspace,
  });
  assert.ok(result);
  assert.equal(result.kind, 'layer');
  assert.equal(result.constructorExpression, 'torch.nn.Linear(4096, 4096, bias=True)');
  assert.deepEqual(result.inputs, [{ shape: ['B', 'T', 4096], dtype: 'float' }]);
  assert.equal(result.estimate?.params, 4096 * 4096 + 4096);
  assert.equal(result.estimate?.forwardFlopsPerSample, 2 * 4096 * 4096 * 1024);
});

test('a CNN: [B, C, H, W] input with H = W = 224', async () => {
  const { model, workspace } = await loadFixture('resnet_model.py');
  const line = model.root.source.text.split('\n').findIndex((l) => l.startsWith('class ResNet'));
  const result = provideLayerAt({
    model,
    position: { line, character: 8 },
    settings: defaultSettings(),
    workspace,
  });
  assert.ok(result);
  assert.deepEqual(result.inputs, [{ shape: ['B', 3, 'H', 'W'], dtype: 'float' }]);
  assert.equal(result.dims.H, 224);
  assert.equal(result.constructorExpression, 'ResNet()');
});

test('outside any module: null', async () => {
  const { model, workspace } = await loadFixture('gpt2_model.py');
  assert.equal(
    provideLayerAt({ model, position: { line: 0, character: 0 }, settings: defaultSettings(), workspace }),
    null,
  );
});

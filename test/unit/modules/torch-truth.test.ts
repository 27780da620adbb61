// Parameter, trainable and buffer counts of the model fixtures, exactly as PyTorch counts them
// (the truth is computed by instantiating the same code with torch, not hard-coded).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateFixture, torchTruth, treeNamed, type TorchCounts } from './helpers';

const CASES: { file: string; module: string; cls: string; expression: string }[] = [
  { file: 'gpt2_model.py', module: 'gpt2_model', cls: 'GPT', expression: 'GPT(GPTConfig())' },
  { file: 'gpt2_model.py', module: 'gpt2_model', cls: 'Block', expression: 'Block(GPTConfig())' },
  { file: 'gpt2_model.py', module: 'gpt2_model', cls: 'Probe', expression: 'Probe()' },
  {
    file: 'llama_model.py',
    module: 'llama_model',
    cls: 'Transformer',
    expression: 'Transformer(ModelArgs())',
  },
  { file: 'resnet_model.py', module: 'resnet_model', cls: 'ResNet', expression: 'ResNet()' },
  { file: 'lstm_tagger.py', module: 'lstm_tagger', cls: 'LSTMTagger', expression: 'LSTMTagger()' },
  { file: 'lstm_tagger.py', module: 'lstm_tagger', cls: 'GRUTagger', expression: 'GRUTagger()' },
  { file: 'crossfile/model.py', module: 'crossfile.model', cls: 'Tower', expression: 'Tower()' },
  { file: 'layer_zoo.py', module: 'layer_zoo', cls: 'Zoo', expression: 'Zoo()' },
];

let truths: TorchCounts[] = [];
before(() => {
  truths = torchTruth(CASES.map((c) => [c.module, c.expression]));
});

for (const [index, c] of CASES.entries()) {
  test(`${c.cls} (${c.file}) counts exactly what PyTorch counts`, async () => {
    const { trees } = await evaluateFixture(c.file);
    const tree = treeNamed(trees, c.cls);
    assert.deepEqual(tree.unknowns, [], 'nothing should stay unknown');
    assert.equal(tree.constructorExpression, c.expression);
    const truth = truths[index];
    assert.deepEqual(
      { params: tree.params.total, trainable: tree.params.trainable, buffers: tree.params.buffers },
      { params: truth.params, trainable: truth.trainable, buffers: truth.buffers },
    );
  });
}

// What the evaluator leaves symbolic (never guessed), the transformer shape it recognises,
// library models through the estimate catalog, and the bounds of WorkspaceFiles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { collectImports } from '../../../server/src/analysis/imports';
import { evaluateModules, WorkspaceFiles } from '../../../server/src/modules';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { wasmDir } from '../../helpers/paths';
import { evaluateFixture, modelsDir, treeNamed } from './helpers';

async function evaluate(text: string, workspace?: WorkspaceFiles, filePath: string | null = null) {
  const parser = await initParser({ wasmDir });
  const parsed = parseSource(parser, text);
  const { root } = parsed;
  return evaluateModules({ root, imports: collectImports(parsed), filePath, workspace });
}

test('an unknown size stays symbolic, with what is unknown', async () => {
  const { trees } = await evaluateFixture('symbolic_model.py');
  const tagger = treeNamed(trees, 'Tagger');
  assert.equal(tagger.params.total, null);
  assert.equal(tagger.params.known, 512 * 2048 + 2048 + 2048 * 512 + 512);
  assert.deepEqual(
    tagger.unknowns.map((u) => [u.text, u.reason]),
    [
      ['if vocab is not None:', '`vocab` has no default'],
      ['nn.Linear(d, vocab)', '`vocab` has no default'],
    ],
  );
  assert.equal(tagger.constructorExpression, null);
});

test('an unknown config flag is not guessed; a known one is followed', async () => {
  const [model] = await evaluate(`
import torch.nn as nn
from somewhere import FLAG
class M(nn.Module):
    def __init__(self, bias=FLAG, depth=2):
        super().__init__()
        self.a = nn.Linear(8, 8, bias=bias)
        self.b = nn.ModuleList([nn.Linear(8, 8) for _ in range(depth)]) if depth > 1 else None
`);
  assert.equal(model.params.total, null);
  assert.equal(model.params.known, 2 * 72);
  assert.deepEqual(
    model.unknowns.map((u) => u.reason),
    ['`somewhere.FLAG` not evaluated'],
  );
});

test('GPT-2: transformer shape, tied weights counted once, largest layer', async () => {
  const { trees } = await evaluateFixture('gpt2_model.py');
  const gpt = treeNamed(trees, 'GPT');
  assert.deepEqual(gpt.transformer, { layers: 12, hidden: 768, heads: 12, ffn: 3072, vocab: 50304 });
  assert.deepEqual(gpt.largestLayer, { path: 'transformer.wte', params: 50304 * 768 });
  assert.ok(gpt.assumptions[0].includes('GPTConfig()'));
});

test('Llama: grouped-query heads found in the config', async () => {
  const { trees } = await evaluateFixture('llama_model.py');
  const llama = treeNamed(trees, 'Transformer');
  assert.deepEqual(llama.transformer, {
    layers: 4,
    hidden: 512,
    heads: 8,
    kvHeads: 2,
    ffn: 1536,
    vocab: 32000,
  });
  assert.deepEqual(llama.forward.inputs, [{ shape: ['B', 'T'], dtype: 'long', high: 32000 }]);
});

test('library models come from the estimate catalog', async () => {
  const trees = await evaluate(`
import torch.nn as nn
import torchvision
from transformers import AutoModelForCausalLM, GPT2LMHeadModel, GPT2Config, LlamaForCausalLM, LlamaConfig
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = torchvision.models.resnet50()
class B(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = AutoModelForCausalLM.from_pretrained("gpt2")
class C(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = GPT2LMHeadModel(GPT2Config())
class D(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = LlamaForCausalLM(LlamaConfig(hidden_size=512, intermediate_size=1536, num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2, vocab_size=32000))
`);
  assert.deepEqual(
    trees.map((t) => t.params.total),
    [25_557_032, 124_439_808, 124_439_808, 44_831_232 - 0],
  );
});

test('WorkspaceFiles: bounded reads, cache until invalidate, no scanning', async () => {
  const parser = await initParser({ wasmDir });
  const reads: string[] = [];
  const files: Record<string, string> = {
    [join(modelsDir, 'crossfile', 'blocks.py')]:
      'import torch.nn as nn\nclass MLPBlock(nn.Module):\n    def __init__(self, spec=None):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n',
  };
  const workspace = new WorkspaceFiles({
    roots: [modelsDir],
    parser,
    maxFilesPerRequest: 3,
    readFile: (path) => {
      reads.push(path);
      return files[path];
    },
  });
  const text =
    'import torch.nn as nn\nfrom crossfile.blocks import MLPBlock\nfrom a.b.c.d import X\nclass T(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.m = MLPBlock()\n        self.x = X()\n';
  const [first] = await evaluate(text, workspace, join(modelsDir, 'main.py'));
  assert.equal(first.params.known, 20);
  assert.ok(reads.length <= 3, `read ${reads.length} files`);
  const before = reads.length;
  await evaluate(text, workspace, join(modelsDir, 'main.py'));
  assert.ok(reads.filter((r) => r.endsWith('blocks.py')).length === 1 && reads.length - before <= 3);
  files[join(modelsDir, 'crossfile', 'blocks.py')] = files[join(modelsDir, 'crossfile', 'blocks.py')].replace(
    'Linear(4, 4)',
    'Linear(4, 8)',
  );
  workspace.invalidate(join(modelsDir, 'crossfile', 'blocks.py'));
  const [after] = await evaluate(text, workspace, join(modelsDir, 'main.py'));
  assert.equal(after.params.known, 40);
});

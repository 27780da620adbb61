// Setup inference from a training script: torch.autocast and its dtype (literal, a name
// assigned once, or decided at run time), the optimizer (SGD with and without momentum),
// checkpoint() inside forward (and not elsewhere), image sizes, and that settings stay the
// fallback with their source named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildFileModel } from '../../../server/src/analysis/file-model';
import { defaultSettings } from '../../../server/src/config/settings';
import { evaluationFor, setupFor } from '../../../server/src/features/estimate-context';
import { scriptSetup } from '../../../server/src/features/script-setup';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { wasmDir } from '../../helpers/paths';

async function setupOf(source: string) {
  const parser = await initParser({ wasmDir });
  const model = buildFileModel({ parsed: parseSource(parser, source), filePath: '/tmp/train.py' });
  const evaluation = evaluationFor({ model });
  return { script: scriptSetup(evaluation), setup: setupFor({ settings: defaultSettings(), evaluation }) };
}

test('autocast with a literal bf16 dtype, AdamW, checkpoint in forward, transforms size', async () => {
  const { script, setup } = await setupOf(`
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint
from torchvision import transforms

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(4)])

    def forward(self, x):
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=False)
        return x

tf = transforms.Compose([transforms.RandomResizedCrop(176)])
model = Net()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for x in range(3):
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        loss = model(x).sum()
`);
  assert.equal(script.precision?.value, 'amp-bf16');
  assert.match(script.precision!.source, /line 21/);
  assert.equal(script.optimizer?.value, 'adamw');
  assert.equal(script.checkpointing?.value, true);
  assert.deepEqual(script.imageShape?.value, [3, 176, 176]);
  assert.equal(setup.precision, 'amp-bf16');
  assert.match(setup.sources.precision, /^inferred from `torch\.autocast/);
  assert.equal(setup.checkpointing, true);
});

test('a dtype name assigned once is followed; one decided at run time is said so (same bytes)', async () => {
  const once = await setupOf(`
import torch
ptdtype = torch.float16
ctx = torch.amp.autocast(device_type="cuda", dtype=ptdtype)
`);
  assert.equal(once.script.precision?.value, 'amp-fp16');
  const runtime = await setupOf(`
import torch
dtype = 'bfloat16' if torch.cuda.is_bf16_supported() else 'float16'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = torch.amp.autocast(device_type="cuda", dtype=ptdtype)
`);
  assert.equal(runtime.script.precision?.value, 'amp-bf16');
  assert.match(runtime.script.notes.join(' '), /decided at run time/);
});

test('SGD with momentum, without; checkpoint outside forward does not count; settings are the fallback', async () => {
  const momentum = await setupOf(`
import torch
opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
`);
  assert.equal(momentum.script.optimizer?.value, 'sgd-momentum');
  const plain = await setupOf(`
import torch
from torch.utils.checkpoint import checkpoint
opt = torch.optim.SGD(params, lr=0.1)
y = checkpoint(f, x)
`);
  assert.equal(plain.script.optimizer?.value, 'sgd');
  assert.equal(plain.script.checkpointing, undefined);
  assert.equal(plain.setup.checkpointing, false);
  assert.equal(plain.setup.precision, defaultSettings().estimate.precision);
  assert.equal(plain.setup.sources.precision, 'settings');
});

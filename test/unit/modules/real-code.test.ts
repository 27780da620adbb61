// What real model files do, checked against PyTorch's own counts: builder functions and
// factories, **kwargs forwarding, functools.partial, class attributes, Sequential(*layers),
// OrderedDict, add_module/setattr, user base classes and nn.Sequential subclasses; configs
// filled at run time (CfgNode + merge_from_dict) through `--config`/`--ctor`; torch API probes
// decided by version, undecidable ones that only touch buffers keeping the count exact; and
// calls we cannot follow making a count unknown instead of silently wrong.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectImports } from '../../../server/src/analysis/imports';
import { runEstimate } from '../../../server/src/cli-estimate';
import { evaluateModules } from '../../../server/src/modules';
import { evaluateConstructor } from '../../../server/src/modules/constructor';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { wasmDir } from '../../helpers/paths';
import { modelsDir, torchTruth, treeNamed, type TorchCounts } from './helpers';

const FACTORY_CALLS = ['net_plain()', 'net_wide(num_classes=5)', 'net_plain(width=32)'];
const CFG_CALL = 'build(model_type="small", vocab_size=100, block_size=32)';
let truths: TorchCounts[] = [];

before(() => {
  truths = torchTruth([
    ...FACTORY_CALLS.map((call): [string, string] => ['factory_net', call]),
    ['cfgnode_gpt', CFG_CALL],
    ['probe_flash', 'ProbeModel(ProbeConfig())'],
    ['hf_style', 'TinyLMForCausalLM(TinyLMConfig())'],
  ]);
});

async function evaluateCall(file: string, call: string) {
  const parser = await initParser({ wasmDir });
  const parsed = parseSource(parser, readFileSync(join(modelsDir, file), 'utf8'));
  const { root } = parsed;
  return evaluateConstructor({
    root,
    imports: collectImports(parsed),
    filePath: join(modelsDir, file),
    expression: parseSource(parser, call).root,
  });
}

async function evaluateText(text: string, torchVersion?: string) {
  const parser = await initParser({ wasmDir });
  const parsed = parseSource(parser, text);
  const { root } = parsed;
  return evaluateModules({ root, imports: collectImports(parsed), filePath: null, torchVersion });
}

async function estimate(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runEstimate(argv, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    cwd: modelsDir,
    wasmDir,
  });
  return { code, out, err };
}

for (const [index, call] of FACTORY_CALLS.entries()) {
  test(`builder ${call} counts what torch counts`, async () => {
    const tree = await evaluateCall('factory_net.py', call);
    assert.deepEqual(tree.causes, []);
    assert.equal(tree.params.total, truths[index].params);
    assert.equal(tree.params.buffers, truths[index].buffers);
  });
}

test('CfgNode config filled at run time: unknown without sizes, exact with --config or --ctor', async () => {
  const truth = truths[FACTORY_CALLS.length];
  const bare = await estimate(['cfgnode_gpt.py', '--class', 'PresetGPT', '--format', 'json']);
  const [unsized] = (
    JSON.parse(bare.out) as { classes: { params: { total: number | null; lowerBound: boolean } }[] }
  ).classes;
  assert.equal(unsized.params.total, null);
  assert.equal(unsized.params.lowerBound, true);

  const configured = await estimate([
    'cfgnode_gpt.py',
    '--class',
    'PresetGPT',
    '--config',
    'model_type=small,vocab_size=100,block_size=32',
    '--format',
    'json',
  ]);
  assert.equal(configured.code, 0, configured.err);
  const [sized] = (
    JSON.parse(configured.out) as {
      classes: { params: { total: number; lowerBound: boolean }; assumptions: string[] }[];
    }
  ).classes;
  assert.equal(sized.params.total, truth.params);
  assert.equal(sized.params.lowerBound, false);
  assert.ok(
    sized.assumptions.some((a) => a.includes('PresetGPT.get_default_config()') && a.includes('model_type')),
  );

  const ctor = await estimate(['cfgnode_gpt.py', '--ctor', CFG_CALL, '--format', 'json']);
  const [built] = (JSON.parse(ctor.out) as { classes: { params: { total: number } }[] }).classes;
  assert.equal(built.params.total, truth.params);
});

test('bad --config and --ctor values are usage errors', async () => {
  const config = await estimate(['cfgnode_gpt.py', '--config', 'n_layer']);
  assert.equal(config.code, 2);
  assert.match(config.err, /--config expects key=value/);
  const ctor = await estimate(['cfgnode_gpt.py', '--ctor', 'x = 1']);
  assert.equal(ctor.code, 2);
  assert.match(ctor.err, /--ctor needs one Python expression/);
});

test('a torch API probe is decided by version; an undecidable one on buffers keeps the count exact, named once', async () => {
  const truth = truths[FACTORY_CALLS.length + 1];
  const text = readFileSync(join(modelsDir, 'probe_flash.py'), 'utf8');
  const current = treeNamed(await evaluateText(text), 'ProbeModel');
  assert.equal(current.params.total, truth.params);
  assert.equal(current.params.buffers, 0, 'torch >= 2.0 has scaled_dot_product_attention: no mask');
  assert.equal(current.causes.length, 1);
  assert.match(current.causes[0], /a_kernel_no_release_has.*buffers only/);
  // torch 1.13 (what /usr/bin/python3 runs) has no SDPA: the mask buffer exists, as torch reports.
  const old = treeNamed(await evaluateText(text, '1.13'), 'ProbeModel');
  assert.equal(old.params.total, truth.params);
  assert.equal(old.params.buffers, truth.buffers);
});

test('an undecidable branch that may change parameters makes the count a lower bound', async () => {
  const [model] = await evaluateText(`
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.hidden = 8
        if hasattr(torch.nn.functional, "not_in_any_table"):
            self.hidden = 16
        self.b = nn.Linear(4, self.hidden)
`);
  assert.equal(model.params.total, null);
  assert.equal(model.params.lowerBound, true);
  assert.equal(model.params.known, 20);
});

test('calls we cannot follow never leave a silently wrong count', async () => {
  const trees = await evaluateText(`
import torch.nn as nn
import somelib
def options(**kw):
    kw.some_unmodelled_method("width", 64)
    return kw
class Patched(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        somelib.add_adapters(self)
class Forwarded(nn.Module):
    def __init__(self, width=32, **kwargs):
        super().__init__()
        self.fc = nn.Linear(4, width)
class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Forwarded(**options())
        self.more = Forwarded(**somelib.defaults())
`);
  const patched = treeNamed(trees, 'Patched');
  assert.equal(patched.params.total, null);
  assert.match(patched.causes.join('\n'), /somelib\.add_adapters/);
  const outer = treeNamed(trees, 'Outer');
  assert.equal(outer.params.total, null, 'a splat of unknown keywords may set width');
  assert.equal(treeNamed(trees, 'Forwarded').params.total, 4 * 32 + 32);
});

test('Hugging Face style: config kept by super().__init__(config), post_init() ties the LM head', async () => {
  const truth = truths[FACTORY_CALLS.length + 2];
  // As with transformers installed: the two base classes are transformers', not the fallbacks.
  const text = readFileSync(join(modelsDir, 'hf_style.py'), 'utf8').replace(
    /try:\n {4}from transformers[\s\S]*?\n\n\nclass TinyLMConfig/,
    'from transformers import PretrainedConfig, PreTrainedModel\n\n\nclass TinyLMConfig',
  );
  assert.ok(!text.includes('except ImportError'));
  const tree = treeNamed(await evaluateText(text), 'TinyLMForCausalLM');
  assert.deepEqual(tree.causes, []);
  assert.equal(tree.params.total, truth.params, 'tied: the embedding is counted once');
  const untied = treeNamed(
    await evaluateText(
      text.replace('tie_word_embeddings=True, **kwargs):', 'tie_word_embeddings=False, **kwargs):'),
    ),
    'TinyLMForCausalLM',
  );
  assert.equal(untied.params.total, truth.params + 1000 * 64);
});

test('getattr with a default on a config object: decided when its class set every attribute, undecided when __dict__ or a library base may add more', async () => {
  const source = (init: string) => `
import torch.nn as nn
class Cfg:
    def __init__(self, width=8, **kwargs):
        self.width = width
        ${init}
class M(nn.Module):
    def __init__(self, config=Cfg()):
        super().__init__()
        pad = getattr(config, "pad", None)
        self.emb = nn.Embedding(10, config.width, pad)
        self.extra = nn.Linear(4, 4) if getattr(config, "extra", False) else nn.Identity()
`;
  const [closed] = await evaluateText(source('for k, v in kwargs.items(): setattr(self, k, v)'));
  assert.equal(closed.params.total, 80, 'no kwargs given: the object has only `width`');
  const [open] = await evaluateText(source('self.__dict__.update(kwargs)'));
  assert.equal(open.params.total, null);
  assert.match(open.causes.join('\n'), /getattr\(<Cfg/);
});

test('torch.linspace values and Tensor.item(): a stochastic-depth schedule decides which blocks get DropPath', async () => {
  const [model] = await evaluateText(`
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self, depth=4, rate=0.3):
        super().__init__()
        dpr = [x.item() for x in torch.linspace(0, rate, depth)]
        self.blocks = nn.ModuleList([nn.Linear(2, 2) if dpr[i] > 0.0 else nn.Identity() for i in range(depth)])
`);
  assert.equal(model.params.total, 3 * 6, 'linspace(0, 0.3, 4) is [0, 0.1, 0.2, 0.3]: three blocks above 0');
});

test("transformers' ACT2FN[name]: a parameter-free entry is the torch layer it computes; others stay unknown", async () => {
  const source = (act: string) => `
import torch.nn as nn
from transformers.activations import ACT2FN
class MLP(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.up = nn.Linear(hidden, 4 * hidden)
        self.act = ${act}
        self.down = nn.Linear(4 * hidden, hidden)
    def forward(self, x):
        return self.down(self.act(self.up(x)))
`;
  const [viaTable] = await evaluateText(source('ACT2FN["silu"]'));
  const [direct] = await evaluateText(source('nn.SiLU()'));
  assert.equal(viaTable.params.total, direct.params.total);
  assert.ok(viaTable.params.total && viaTable.params.total > 0);
  assert.equal(viaTable.root?.children.get('act')?.typeName, 'SiLU');
  const [tanh] = await evaluateText(source('ACT2FN["gelu_pytorch_tanh"]'));
  assert.equal(tanh.root?.children.get('act')?.typeName, 'GELU');
  const [prelu] = await evaluateText(source('ACT2FN["prelu"]'));
  assert.equal(prelu.params.total, null, 'nn.PReLU has a parameter: not assumed');
  assert.match(prelu.causes.join('\n'), /not a parameter-free entry of ACT2FN/);
});

test("a config built on transformers' PretrainedConfig has its special token ids (None unless given)", async () => {
  const source = (padding: string) => `
import torch.nn as nn
from transformers.configuration_utils import PretrainedConfig
from transformers.modeling_utils import PreTrainedModel
class TinyConfig(PretrainedConfig):
    def __init__(self, vocab_size=1000, hidden_size=64, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        super().__init__(**kwargs)
class TinyModel(PreTrainedModel):
    config_class = TinyConfig
    def __init__(self, config):
        super().__init__(config)
        self.padding_idx = ${padding}
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size, self.padding_idx)
        self.post_init()
`;
  const [fromConfig] = (await evaluateText(source('config.pad_token_id'))).filter(
    (t) => t.name === 'TinyModel',
  );
  const [literal] = (await evaluateText(source('None'))).filter((t) => t.name === 'TinyModel');
  assert.equal(fromConfig.params.total, literal.params.total);
  assert.ok(literal.params.total && literal.params.total > 0);
  const [other] = (await evaluateText(source('config.not_a_config_field'))).filter(
    (t) => t.name === 'TinyModel',
  );
  assert.equal(other.params.total, null, 'anything else PretrainedConfig may hold stays unknown');
});

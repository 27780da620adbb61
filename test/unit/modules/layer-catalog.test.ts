// The torch.nn layer catalog against PyTorch itself (Debian's torch 1.13, instantiated in this
// run): every public nn.Module class torch.nn defines is catalogued or listed here with the
// reason it is not; sample constructions of every layer with parameters count what torch
// counts; parameter-free layers have none. The table is generated and checked against
// docs/model-evaluation.md (`SHARDLENS_UPDATE_DOCS=1` rewrites it).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkGeneratedSection } from '../../helpers/generated-section';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { collectImports } from '../../../server/src/analysis/imports';
import { evaluateConstructor } from '../../../server/src/modules/constructor';
import { isContainer } from '../../../server/src/modules/containers';
import { PARAMETER_FREE, catalogLayerNames, isKnownLayer } from '../../../server/src/modules/layers';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { repoRoot, torchPython, wasmDir } from '../../helpers/paths';
import { modelsDir } from './helpers';

/** Sample constructions (several per layer: defaults, flags, tuples) of every layer with parameters. */
const SAMPLES = [
  'nn.Linear(5, 7)',
  'nn.Linear(5, 7, bias=False)',
  'nn.Bilinear(3, 4, 5)',
  'nn.Bilinear(3, 4, 5, bias=False)',
  'nn.Embedding(11, 6, padding_idx=0)',
  'nn.EmbeddingBag(11, 6)',
  'nn.LayerNorm(8)',
  'nn.LayerNorm((4, 8), elementwise_affine=False)',
  'nn.GroupNorm(2, 8)',
  'nn.GroupNorm(2, 8, affine=False)',
  'nn.MultiheadAttention(16, 4)',
  'nn.MultiheadAttention(16, 4, bias=False, add_bias_kv=True)',
  'nn.MultiheadAttention(16, 4, kdim=6, vdim=10)',
  'nn.TransformerEncoderLayer(16, 4)',
  'nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True)',
  'nn.TransformerDecoderLayer(16, 4, 40)',
  'nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32), 3)',
  'nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32), num_layers=2, norm=nn.LayerNorm(16))',
  'nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 4, 32), 2, nn.LayerNorm(16))',
  'nn.Transformer(d_model=16, nhead=4, num_encoder_layers=2, num_decoder_layers=3, dim_feedforward=24)',
  'nn.Transformer()',
  'nn.PReLU()',
  'nn.PReLU(num_parameters=8)',
  'nn.RNN(5, 7)',
  'nn.RNN(5, 7, num_layers=2, bidirectional=True, bias=False)',
  'nn.LSTM(5, 7, num_layers=2, proj_size=3)',
  'nn.LSTM(5, 7, bidirectional=True, proj_size=3)',
  'nn.GRU(5, 7, 3)',
  'nn.RNNCell(5, 7)',
  'nn.LSTMCell(5, 7, bias=False)',
  'nn.GRUCell(5, 7)',
  'nn.Conv1d(3, 8, 5)',
  'nn.Conv2d(4, 8, (3, 5), groups=2, bias=False)',
  'nn.Conv3d(2, 4, 3, padding=1)',
  'nn.ConvTranspose1d(3, 8, 5)',
  'nn.ConvTranspose2d(4, 8, 3, groups=4)',
  'nn.ConvTranspose3d(2, 4, (1, 2, 3), bias=False)',
  'nn.BatchNorm1d(8)',
  'nn.BatchNorm2d(8, affine=False)',
  'nn.BatchNorm3d(8, track_running_stats=False)',
  'nn.SyncBatchNorm(8)',
  'nn.InstanceNorm1d(8)',
  'nn.InstanceNorm2d(8, affine=True)',
  'nn.InstanceNorm3d(8, affine=True, track_running_stats=True)',
];

/** Arguments for parameter-free layers that need some (the rest are built with none). */
const PARAMETER_FREE_SAMPLES: Record<string, string> = {
  AdaptiveAvgPool1d: 'nn.AdaptiveAvgPool1d(2)',
  AdaptiveAvgPool2d: 'nn.AdaptiveAvgPool2d(2)',
  AdaptiveAvgPool3d: 'nn.AdaptiveAvgPool3d(2)',
  AdaptiveMaxPool1d: 'nn.AdaptiveMaxPool1d(2)',
  AdaptiveMaxPool2d: 'nn.AdaptiveMaxPool2d(2)',
  AdaptiveMaxPool3d: 'nn.AdaptiveMaxPool3d(2)',
  AvgPool1d: 'nn.AvgPool1d(2)',
  AvgPool2d: 'nn.AvgPool2d(2)',
  AvgPool3d: 'nn.AvgPool3d(2)',
  MaxPool1d: 'nn.MaxPool1d(2)',
  MaxPool2d: 'nn.MaxPool2d(2)',
  MaxPool3d: 'nn.MaxPool3d(2)',
  MaxUnpool1d: 'nn.MaxUnpool1d(2)',
  MaxUnpool2d: 'nn.MaxUnpool2d(2)',
  MaxUnpool3d: 'nn.MaxUnpool3d(2)',
  FractionalMaxPool2d: 'nn.FractionalMaxPool2d(2, output_size=3)',
  FractionalMaxPool3d: 'nn.FractionalMaxPool3d(2, output_size=3)',
  LPPool1d: 'nn.LPPool1d(2, 2)',
  LPPool2d: 'nn.LPPool2d(2, 2)',
  ChannelShuffle: 'nn.ChannelShuffle(2)',
  ConstantPad1d: 'nn.ConstantPad1d(1, 0.0)',
  ConstantPad2d: 'nn.ConstantPad2d(1, 0.0)',
  ConstantPad3d: 'nn.ConstantPad3d(1, 0.0)',
  ZeroPad1d: 'nn.ZeroPad1d(1)',
  ZeroPad2d: 'nn.ZeroPad2d(1)',
  ZeroPad3d: 'nn.ZeroPad3d(1)',
  ReflectionPad1d: 'nn.ReflectionPad1d(1)',
  ReflectionPad2d: 'nn.ReflectionPad2d(1)',
  ReflectionPad3d: 'nn.ReflectionPad3d(1)',
  ReplicationPad1d: 'nn.ReplicationPad1d(1)',
  ReplicationPad2d: 'nn.ReplicationPad2d(1)',
  ReplicationPad3d: 'nn.ReplicationPad3d(1)',
  CircularPad1d: 'nn.CircularPad1d(1)',
  CircularPad2d: 'nn.CircularPad2d(1)',
  CircularPad3d: 'nn.CircularPad3d(1)',
  CrossMapLRN2d: 'nn.CrossMapLRN2d(3)',
  LocalResponseNorm: 'nn.LocalResponseNorm(3)',
  PixelShuffle: 'nn.PixelShuffle(2)',
  PixelUnshuffle: 'nn.PixelUnshuffle(2)',
  Threshold: 'nn.Threshold(0.1, 0.0)',
  Fold: 'nn.Fold(4, 2)',
  Unfold: 'nn.Unfold(2)',
  Unflatten: 'nn.Unflatten(1, (2, 2))',
};

/** torch.nn classes that are not layers this catalog counts, and why. */
const NOT_CATALOGUED: Record<string, string> = {
  Module: 'the base class (user classes are evaluated from their source)',
  Container: 'deprecated base class',
  RNNBase: 'base class of RNN/LSTM/GRU',
  RNNCellBase: 'base class of the cells',
  DataParallel: 'a wrapper: its parameters are the wrapped module',
  AdaptiveLogSoftmaxWithLoss: 'not catalogued yet: stays unknown',
  LazyLinear: 'input size is inferred at the first call: stays unknown',
};
for (const lazy of ['BatchNorm', 'Conv', 'ConvTranspose', 'InstanceNorm'])
  for (const d of [1, 2, 3])
    NOT_CATALOGUED[`Lazy${lazy}${d}d`] = 'input size is inferred at the first call: stays unknown';

interface Truth {
  torch: string;
  classes: string[];
  expressions: ({ params: number; buffers: number } | { error: string })[];
  parameterFree: Record<string, { params: number; buffers: number } | { missing: true } | { error: string }>;
}

const START = '<!-- layer-catalog:start (generated by test/unit/modules/layer-catalog.test.ts) -->';
const END = '<!-- layer-catalog:end -->';
const docsPath = join(repoRoot, 'docs', 'model-evaluation.md');
let truth: Truth;
const ours: { total: number | null; buffers: number; causes: string[] }[] = [];

before(async () => {
  const parameterFree = Object.fromEntries(
    [...PARAMETER_FREE].map((n) => [n, PARAMETER_FREE_SAMPLES[n] ?? null]),
  );
  const run = spawnSync(
    torchPython,
    [join(modelsDir, 'torch_nn_catalog.py'), JSON.stringify({ expressions: SAMPLES, parameterFree })],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (run.status !== 0)
    throw new Error(
      `${torchPython} could not run torch_nn_catalog.py (install python3-torch): ${run.stderr}`,
    );
  truth = JSON.parse(run.stdout) as Truth;
  const parser = await initParser({ wasmDir });
  const parsed = parseSource(parser, 'import torch\nimport torch.nn as nn\n');
  const { root } = parsed;
  for (const sample of SAMPLES) {
    const tree = evaluateConstructor({
      root,
      imports: collectImports(parsed),
      filePath: null,
      expression: parseSource(parser, sample).root,
    });
    ours.push({ total: tree.params.total, buffers: tree.params.buffers, causes: tree.causes });
  }
});

test('every torch.nn module class is catalogued or named with the reason it is not', () => {
  const missing = truth.classes.filter(
    (name) => !isKnownLayer(name) && !isContainer(name) && !(name in NOT_CATALOGUED),
  );
  assert.deepEqual(missing, [], `torch ${truth.torch} has layers the catalog does not know`);
});

test('every catalogued layer with parameters has a sample checked against torch', () => {
  const sampled = new Set(SAMPLES.map((s) => /^nn\.(\w+)/.exec(s)![1]));
  const unsampled = catalogLayerNames().filter(
    (name) => !sampled.has(name) && !(name in NOT_CATALOGUED) && name !== 'RMSNorm',
  );
  assert.deepEqual(unsampled, []);
});

test('sample layers count the parameters and buffers torch counts', () => {
  const mismatches = SAMPLES.flatMap((sample, i) => {
    const t = truth.expressions[i];
    if ('error' in t) return [`${sample}: torch raised ${t.error}`];
    const o = ours[i];
    return o.total === t.params && o.buffers === t.buffers
      ? []
      : [`${sample}: torch ${t.params}/${t.buffers}, ours ${o.total}/${o.buffers} ${o.causes.join('; ')}`];
  });
  assert.deepEqual(mismatches, []);
});

test('parameter-free layers have no parameters or buffers in torch', () => {
  const wrong = Object.entries(truth.parameterFree).flatMap(([name, t]) =>
    'missing' in t
      ? []
      : 'error' in t
        ? [`${name}: ${t.error}`]
        : t.params || t.buffers
          ? [`${name}: ${t.params}/${t.buffers}`]
          : [],
  );
  assert.deepEqual(wrong, []);
});

test('docs/model-evaluation.md holds the catalog table this run generated', () => {
  const lines = [
    START,
    `Checked against torch ${truth.torch} in this run: ${SAMPLES.length} sample constructions, ${Object.values(truth.parameterFree).filter((t) => !('missing' in t)).length} parameter-free layers.`,
    '',
    '| construction | torch params / buffers | Shardlens |',
    '|---|---|---|',
    ...SAMPLES.map((sample, i) => {
      const t = truth.expressions[i];
      const shown = 'error' in t ? t.error : `${t.params.toLocaleString('en-US')} / ${t.buffers}`;
      const o = ours[i];
      return `| \`${sample}\` | ${shown} | ${o.total === null ? 'unknown' : `${o.total.toLocaleString('en-US')} / ${o.buffers}`} |`;
    }),
    '',
    `Not catalogued: ${Object.entries(NOT_CATALOGUED)
      .filter(([name]) => truth.classes.includes(name))
      .map(([name, why]) => `\`${name}\` (${why})`)
      .join(', ')}.`,
    END,
  ];
  const generated = lines.join('\n');
  checkGeneratedSection(docsPath, START, END, generated, 'layer-catalog');
});

// The forward walker against PyTorch itself: for torchvision models (read from Debian's
// python3-torchvision source) and small transformer LMs, the bytes autograd saves in one
// training forward pass, measured with torch.autograd.graph.saved_tensors_hooks (unique
// storages, parameters and buffers left out) on CPU torch 1.13, must be within ±10% of
// walkForward's figure. Regenerates the agreement table in docs/estimates.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectImports } from '../../../server/src/analysis/imports';
import { walkForward } from '../../../server/src/forward';
import { evaluateFile, WorkspaceFiles } from '../../../server/src/modules';
import { Env } from '../../../server/src/modules/interpreter';
import type { ModuleInstance } from '../../../server/src/modules/module-instance';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { debianDistPackages, fixturesDir, repoRoot, torchPython, wasmDir } from '../../helpers/paths';

const forwardDir = join(fixturesDir, 'forward');
const TOLERANCE = 0.1;

interface Case {
  name: string;
  /** A fixture file and class, or a torchvision builder (`torchvision.models.resnet.resnet18`). */
  file?: string;
  class?: string;
  builder?: string;
  input: number[];
  tokens?: number;
  labels?: string;
}

const image = (builder: string, batch = 2, size = 224): Case => ({
  name: builder.split('.').pop()!,
  builder,
  input: [batch, 3, size, size],
});

const CASES: Case[] = [
  image('torchvision.models.resnet.resnet18'),
  image('torchvision.models.resnet.resnet50'),
  image('torchvision.models.vgg.vgg11', 1),
  image('torchvision.models.alexnet.alexnet'),
  image('torchvision.models.mobilenetv2.mobilenet_v2'),
  image('torchvision.models.mobilenetv3.mobilenet_v3_small'),
  image('torchvision.models.squeezenet.squeezenet1_0'),
  image('torchvision.models.shufflenetv2.shufflenet_v2_x1_0'),
  image('torchvision.models.efficientnet.efficientnet_b0'),
  image('torchvision.models.regnet.regnet_y_400mf'),
  image('torchvision.models.convnext.convnext_tiny', 1),
  image('torchvision.models.vision_transformer.vit_b_16', 1),
  {
    name: 'DecoderLM',
    file: 'decoder_lm.py',
    class: 'DecoderLM',
    input: [4, 32],
    tokens: 256,
    labels: 'targets',
  },
  {
    name: 'DecoderLMDropout',
    file: 'decoder_lm.py',
    class: 'DecoderLMDropout',
    input: [4, 32],
    tokens: 256,
    labels: 'targets',
  },
  { name: 'GatedLM', file: 'gated_lm.py', class: 'GatedLM', input: [4, 32], tokens: 256 },
  {
    name: 'TinyViT (nn.TransformerEncoder)',
    file: 'encoder_vit.py',
    class: 'TinyViT',
    input: [4, 3, 32, 32],
  },
];

interface Measured {
  name: string;
  savedBytes?: number;
  error?: string;
}

function measure(cases: Case[]): Map<string, Measured> {
  const payload = cases.map((c) => (c.file ? { ...c, file: join(forwardDir, c.file) } : c));
  const run = spawnSync(torchPython, [join(repoRoot, 'test', 'activations', 'measure_saved.py')], {
    input: JSON.stringify(payload),
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, OMP_NUM_THREADS: '1' },
  });
  if (run.status !== 0)
    throw new Error(`${torchPython} measure_saved.py failed (install python3-torch): ${run.stderr}`);
  const rows = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Measured);
  return new Map(rows.map((r) => [r.name, r]));
}

/** The module each case builds: a fixture class with its defaults, or a torchvision builder called in its own file. */
async function buildAll(): Promise<Map<string, ModuleInstance | undefined>> {
  const parser = await initParser({ wasmDir });
  const out = new Map<string, ModuleInstance | undefined>();
  for (const c of CASES) {
    const workspace = new WorkspaceFiles({
      roots: [forwardDir, debianDistPackages],
      parser,
      maxFilesPerRequest: 200,
      maxDepth: 8,
    });
    const filePath = c.builder
      ? join(debianDistPackages, ...c.builder.split('.').slice(0, -1)) + '.py'
      : join(forwardDir, c.file!);
    const parsed = parseSource(parser, readFileSync(filePath, 'utf8'));
    const { root } = parsed;
    const evaluation = evaluateFile({ root, imports: collectImports(parsed), filePath, workspace });
    if (c.builder) {
      const call = parseSource(parser, `${c.builder.split('.').pop()}()\n`).root.children[0].children[0];
      const value = evaluation.interpreter.evalExpr(call, new Env(evaluation.scope));
      out.set(c.name, value.kind === 'module' ? value.module : undefined);
    } else out.set(c.name, evaluation.trees.find((t) => t.name === c.class)?.root ?? undefined);
  }
  return out;
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(2);

test('forward walk within ±10% of the bytes autograd saves (saved_tensors_hooks, torch 1.13 CPU)', async () => {
  const measured = measure(CASES);
  const built = await buildAll();
  const rows: string[] = [];
  const failures: string[] = [];
  let exact = 0;
  for (const c of CASES) {
    const root = built.get(c.name);
    const truth = measured.get(c.name);
    if (!root || truth?.savedBytes === undefined) {
      failures.push(`${c.name}: ${truth?.error ?? 'class not evaluated'}`);
      continue;
    }
    const isImage = c.input.length === 4;
    const walk = walkForward({
      root,
      precision: 'fp32',
      batch: c.input[0],
      seq: isImage ? 1 : c.input[1],
      image: isImage ? [c.input[1], c.input[2], c.input[3]] : undefined,
      device: 'cpu',
      sdpa: false,
    });
    const estimate = walk?.savedBytes ?? 0;
    const ratio = estimate / truth.savedBytes;
    const causes = walk ? walk.causes : ['no input could be built'];
    // Followed in full: within ±10%. Not followed in full: a lower bound, never above the truth.
    const ok = causes.length === 0 ? Math.abs(ratio - 1) <= TOLERANCE : ratio <= 1 + TOLERANCE;
    if (causes.length === 0 && ok) exact++;
    const verdict = causes.length
      ? `lower bound: ${causes.join('; ').replace(/\|/g, '\\|')}`
      : ok
        ? 'yes'
        : 'NO';
    rows.push(
      `| ${c.name} | [${c.input.join(', ')}] | ${mb(truth.savedBytes)} | ${mb(estimate)} | ${((ratio - 1) * 100).toFixed(1)}% | ${verdict} |`,
    );
    if (!ok)
      failures.push(`${c.name}: estimate ${estimate} vs measured ${truth.savedBytes} (${causes.join('; ')})`);
  }
  const table = [
    '| model | input | measured MB | walker MB | difference | followed in full and within ±10% |',
    '|---|---|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
  updateDocs(table);
  assert.deepEqual(failures, []);
  // Most cases must be followed in full (a walker that gives up everywhere would pass the bound).
  assert.ok(exact >= 6, `only ${exact} cases followed in full`);
});

/** Writes the table between the markers of docs/estimates.md (only when it changed). */
function updateDocs(table: string): void {
  const path = join(repoRoot, 'docs', 'estimates.md');
  const text = readFileSync(path, 'utf8');
  const begin = '<!-- saved-tensors-table:begin -->';
  const end = '<!-- saved-tensors-table:end -->';
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return;
  const next = `${text.slice(0, a + begin.length)}\n${table}\n${text.slice(b)}`;
  if (next !== text) writeFileSync(path, next);
}

// `shardlens estimate PATH [--class NAME] [--batch B] [--seq T | --input-shape C,H,W]
// [--precision P] [--optimizer O] [--checkpointing] [--gpus N] [--strategy S] [--format text|json]`:
// parameter counts, memory per GPU and communication per step for each nn.Module class of a file.
// Flags win over what the script shows, which wins over the nearest pyproject's settings.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildFileModel } from './analysis/file-model';
import { loadPyprojectFor } from './config/pyproject';
import { mergeSettings, type PartialSettings } from './config/settings';
import {
  OPTIMIZERS,
  PRECISIONS,
  STRATEGIES,
  formatBytes,
  formatParams,
  formatSeconds,
  type MemoryBreakdown,
  type OptimizerId,
  type PrecisionId,
  type StrategyId,
  type TrainingEstimate,
} from './estimate';
import {
  STRATEGY_LABELS,
  assumptionsLine,
  estimatesFor,
  lowerBoundCauses,
  modelInputOf,
  setupFor,
  withFirst,
  type EstimateSetup,
  type SetupOverrides,
} from './features/estimate-context';
import {
  MODEL_OPTIONS_USAGE,
  evaluateForOptions,
  readModelOption,
  type ModelOptions,
} from './cli-model-options';
import { WorkspaceFiles, type ModuleTree } from './modules';
import { initParser, parseSource } from './parse/parser';

/** I/O of the command, injectable for tests. */
export interface EstimateIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  wasmDir: string;
}

interface Options {
  path: string;
  className?: string;
  gpus?: number;
  strategy?: StrategyId;
  overrides: SetupOverrides;
  format: 'text' | 'json';
  help?: boolean;
  model: ModelOptions;
}

class UsageError extends Error {}

const USAGE =
  'usage: shardlens estimate PATH [--class NAME] [--batch B] [--seq T | --input-shape C,H,W] ' +
  `[--precision ${PRECISIONS.join('|')}] [--optimizer ${OPTIMIZERS.join('|')}] [--checkpointing] ` +
  '[--gpus N] [--strategy S] [--format text|json] ' +
  MODEL_OPTIONS_USAGE;

const HELP = `${USAGE}

Parameters, memory per GPU (weights, gradients, optimizer state, activations, peak) and
communication per step for each nn.Module class in PATH.

  --class NAME        only this class
  --batch B           micro-batch per GPU (default: the script's batch_size, else settings)
  --seq T             sequence length (wins over the script and the config's block_size)
  --input-shape C,H,W image input for convnets and ViTs (default: the script's transforms, else 3,224,224)
  --precision P       fp32; amp-bf16/amp-fp16 (torch.autocast, fp32 weights and grads);
                      bf16/fp16 (16-bit weights, fp32 master in the optimizer); bf16-pure
  --optimizer O       ${OPTIMIZERS.join(', ')}
  --checkpointing     activation checkpointing around each repeated block
  --gpus N            data-parallel GPUs (fills nodes of the settings' GPUs per node)
  --strategy S        ${STRATEGIES.join(', ')}
  --format text|json  JSON: classes[].params.total, classes[].memoryBytes[<strategy>].peak and parts
  --config k=v,...    constructor config values (see the usage line); --ctor "Cls(...)" builds one model
  --help              this text

Without a flag, values come from the script (torch.autocast, the optimizer it builds,
checkpoint() in forward, batch_size/block_size assignments), then from [tool.shardlens]
in the nearest pyproject.toml, then defaults. The output says which is which.
`;

function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!value || !Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} needs a positive integer, got ${value ?? 'nothing'}`);
  return n;
}

function choice<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value ?? ''))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got ${value ?? 'nothing'}`);
  return value as T;
}

function imageShape(value: string | undefined): [number, number, number] {
  const dims = (value ?? '').split(/[,x×]/).map(Number);
  if (dims.length !== 3 || dims.some((d) => !Number.isInteger(d) || d < 1))
    throw new UsageError(`--input-shape needs C,H,W (e.g. 3,224,224), got ${value ?? 'nothing'}`);
  return dims as [number, number, number];
}

function parseArgs(argv: string[]): Options {
  const options: Partial<Options> & { overrides: SetupOverrides } = {
    format: 'text',
    overrides: {},
    model: {},
  };
  const o = options.overrides;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = () => inline ?? argv[++i];
    try {
      if (readModelOption({ options: options.model!, flag, value })) continue;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    switch (flag) {
      case '--help':
      case '-h':
        options.help = true;
        break;
      case '--class':
        options.className = value();
        if (!options.className) throw new UsageError('--class needs a class name');
        break;
      case '--gpus':
        options.gpus = positiveInt(flag, value());
        break;
      case '--strategy':
        options.strategy = choice(flag, value(), STRATEGIES);
        break;
      case '--precision':
        o.precision = choice<PrecisionId>(flag, value(), PRECISIONS);
        break;
      case '--optimizer':
        o.optimizer = choice<OptimizerId>(flag, value(), OPTIMIZERS);
        break;
      case '--checkpointing':
        o.checkpointing = true;
        break;
      case '--batch':
        o.batch = positiveInt(flag, value());
        break;
      case '--seq':
        o.seq = positiveInt(flag, value());
        break;
      case '--input-shape':
        o.imageShape = imageShape(value());
        break;
      case '--format':
        options.format = choice(flag, value(), ['text', 'json'] as const);
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        if (options.path) throw new UsageError(`one PATH only (got ${options.path} and ${arg})`);
        options.path = arg;
    }
  }
  if (o.seq && o.imageShape) throw new UsageError('give --seq or --input-shape, not both');
  if (!options.path && !options.help) throw new UsageError('missing PATH');
  return options as Options;
}

/** Settings from flags, applied over pyproject's. */
function flagSettings(options: Options, gpusPerNode: number): PartialSettings {
  const cluster: PartialSettings['cluster'] = {};
  if (options.gpus !== undefined) {
    if (options.gpus <= gpusPerNode) Object.assign(cluster, { gpusPerNode: options.gpus, nodes: 1 });
    else if (options.gpus % gpusPerNode === 0) Object.assign(cluster, { nodes: options.gpus / gpusPerNode });
    else throw new UsageError(`--gpus ${options.gpus} is not a multiple of ${gpusPerNode} GPUs per node`);
  }
  const estimate: PartialSettings['estimate'] = {};
  if (options.strategy) estimate.strategy = options.strategy;
  return { cluster, estimate };
}

/** Bytes per GPU of one strategy in the JSON output: the breakdown (host offload and notes aside), and whether it is a lower bound. */
type MemoryReport = Omit<MemoryBreakdown, 'offloaded' | 'notes'> & {
  /** True when part of the model is unknown: these are the known part's bytes. */
  lowerBound: boolean;
};

/** One class of the JSON output. */
interface ClassReport {
  name: string;
  file: string;
  line: number;
  params: { total: number | null; known: number; lowerBound: boolean; trainable: number; buffers: number };
  /** Why the figures are a lower bound, one line per cause (empty when exact). */
  lowerBoundCauses: string[];
  /** The setup used, each value with where it came from (flag, the script, settings). */
  setup: Record<string, { value: string | number | boolean; source: string }>;
  memoryBytes: Record<string, MemoryReport>;
  comm: Record<string, { collective: string; bytesPerStep: number; secondsPerStep: number | null }>;
  assumptions: string[];
}

/** Runs `shardlens estimate`; resolves to the exit code (2 for usage errors and missing files). */
export async function runEstimate(argv: string[], io: EstimateIo): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(argv);
  } catch (error) {
    io.stderr(`shardlens estimate: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    io.stdout(HELP);
    return 0;
  }
  const path = resolve(io.cwd, options.path);
  let text: string;
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
    text = readFileSync(path, 'utf8');
  } catch {
    io.stderr(`shardlens estimate: ${options.path}: no such file\n`);
    return 2;
  }
  const pyproject = loadPyprojectFor(path);
  if (pyproject?.error) io.stderr(`shardlens estimate: ${pyproject.error}\n`);
  const base = mergeSettings(pyproject?.settings ?? {});
  let settings;
  try {
    settings = mergeSettings(pyproject?.settings ?? {}, flagSettings(options, base.cluster.gpusPerNode));
  } catch (error) {
    io.stderr(`shardlens estimate: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const parser = await initParser({ wasmDir: io.wasmDir });
  const model = buildFileModel({ parsed: parseSource(parser, text), filePath: path });
  const workspace = new WorkspaceFiles({ roots: [io.cwd], parser });
  const selected = evaluateForOptions({ options: options.model, model, workspace, parser });
  if ('error' in selected) {
    io.stderr(`shardlens estimate: ${selected.error}\n${USAGE}\n`);
    return 2;
  }
  const { evaluation } = selected;
  let trees = selected.trees;
  if (options.className && !selected.fromCtor) {
    trees = trees.filter((t) => t.name === options.className);
    if (!trees.length) {
      io.stderr(
        `shardlens estimate: no nn.Module class ${options.className} in ${options.path} (found: ${evaluation.trees.map((t) => t.name).join(', ') || 'none'})\n`,
      );
      return 2;
    }
  }
  const reports = trees.map((tree) => {
    const setup = setupFor({ settings, evaluation, tree, overrides: options.overrides });
    const strategies = withFirst(setup.strategy, STRATEGIES);
    const input = modelInputOf(tree, { setup, workspace });
    const estimates = input ? estimatesFor({ model: input, setup, strategies }) : [];
    const causes = input?.lowerBoundCauses ?? lowerBoundCauses(tree);
    return { tree, report: classReport({ tree, path, estimates, setup, causes }) };
  });
  if (options.format === 'json')
    io.stdout(`${JSON.stringify({ classes: reports.map((r) => r.report) }, null, 2)}\n`);
  else
    io.stdout(
      reports.map(({ tree, report }) => textReport(tree, report)).join('\n') ||
        `no nn.Module classes in ${options.path}\n`,
    );
  return 0;
}

function setupReport(setup: EstimateSetup): ClassReport['setup'] {
  const s = setup.sources;
  const out: ClassReport['setup'] = {
    precision: { value: setup.precision, source: s.precision },
    optimizer: { value: setup.optimizer, source: s.optimizer },
    checkpointing: { value: setup.checkpointing, source: s.checkpointing },
    batch: { value: setup.batch.value, source: setup.batch.source },
    seq: { value: setup.seq.value, source: setup.seq.source },
  };
  if (setup.imageShape)
    out.inputShape = { value: setup.imageShape.join(','), source: s.imageShape ?? 'flag' };
  return out;
}

function classReport(input: {
  tree: ModuleTree;
  path: string;
  estimates: TrainingEstimate[];
  setup: EstimateSetup;
  causes: string[];
}): ClassReport {
  const { tree, path, estimates, setup, causes } = input;
  const report: ClassReport = {
    name: tree.name,
    file: path,
    line: tree.line + 1,
    params: {
      total: tree.params.total,
      known: tree.params.known,
      lowerBound: tree.params.lowerBound,
      trainable: tree.params.trainable,
      buffers: tree.params.buffers,
    },
    lowerBoundCauses: causes,
    setup: setupReport(setup),
    memoryBytes: {},
    comm: {},
    assumptions: [...tree.assumptions, ...setup.notes, assumptionsLine(setup).replace(/^Assumptions: /, '')],
  };
  for (const e of estimates) {
    const m = e.memory;
    report.memoryBytes[e.strategy] = {
      weights: m.weights,
      grads: m.grads,
      optimizer: m.optimizer,
      activations: m.activations,
      buffers: m.buffers,
      modelBuffers: m.modelBuffers,
      transient: m.transient,
      peak: m.peak,
      lowerBound: e.lowerBound,
    };
    report.comm[e.strategy] = {
      collective: e.comm.map((c) => c.collective).join(' + ') || 'none',
      bytesPerStep: e.comm.reduce((sum, c) => sum + c.bytesPerStep, 0),
      secondsPerStep: e.comm.length ? e.commSecondsPerStep : 0,
    };
  }
  if (estimates[0])
    report.assumptions.push(...estimates[0].assumptions.filter((a) => !a.startsWith('lower bound: ')));
  return report;
}

function textReport(tree: ModuleTree, report: ClassReport): string {
  const count =
    report.params.total === null
      ? `≥ ${formatParams(tree.params.known)} params (the known part)`
      : `${formatParams(report.params.total)} params (${report.params.total.toLocaleString('en-US')}), ${formatParams(report.params.trainable)} trainable, ${formatParams(report.params.buffers)} buffer elements`;
  const lines = [`${report.name} (${report.file}:${report.line}): ${count}`];
  for (const [strategy, m] of Object.entries(report.memoryBytes)) {
    const c = report.comm[strategy];
    const comm = c.bytesPerStep
      ? `${formatBytes(c.bytesPerStep)}/step${c.secondsPerStep === null ? '' : ` ≈ ${formatSeconds(c.secondsPerStep)}`}`
      : 'no comm';
    const ge = m.lowerBound ? '≥ ' : '';
    lines.push(
      `  ${STRATEGY_LABELS[strategy as StrategyId].padEnd(14)} weights ${formatBytes(m.weights)}, grads ${formatBytes(m.grads)}, optimizer ${formatBytes(m.optimizer)}, activations ${ge}${formatBytes(m.activations)}, peak ${ge}${formatBytes(m.peak)}/GPU; ${comm}`,
    );
  }
  if (report.lowerBoundCauses.length)
    lines.push('  lower bound because:', ...report.lowerBoundCauses.map((c) => `    - ${c}`));
  lines.push(...report.assumptions.map((a) => `  - ${a}`));
  return `${lines.join('\n')}\n`;
}

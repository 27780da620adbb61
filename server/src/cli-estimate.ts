// `shardlens estimate PATH [--class NAME] [--gpus N] [--strategy S] [--precision P] [--batch B]
// [--seq T] [--format text|json]`: parameter counts, memory per GPU and communication per step
// for each nn.Module class of a file, with settings from the nearest pyproject (flags win).
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildFileModel } from './analysis/file-model';
import { loadPyprojectFor } from './config/pyproject';
import { mergeSettings, type PartialSettings } from './config/settings';
import {
  STRATEGIES,
  formatBytes,
  formatParams,
  formatSeconds,
  type StrategyId,
  type TrainingEstimate,
} from './estimate';
import {
  STRATEGY_LABELS,
  assumptionsLine,
  estimatesFor,
  modelInputOf,
  setupFor,
  withFirst,
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
  precision?: string;
  batch?: number;
  seq?: number;
  format: 'text' | 'json';
  model: ModelOptions;
}

class UsageError extends Error {}

const USAGE =
  'usage: shardlens estimate PATH [--class NAME] [--gpus N] [--strategy S] [--precision fp32|bf16|fp16|bf16-pure] [--batch B] [--seq T] [--format text|json] ' +
  MODEL_OPTIONS_USAGE;

function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!value || !Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} needs a positive integer, got ${value ?? 'nothing'}`);
  return n;
}

function parseArgs(argv: string[]): Options {
  const options: Partial<Options> = { format: 'text', model: {} };
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
      case '--class':
        options.className = value();
        if (!options.className) throw new UsageError('--class needs a class name');
        break;
      case '--gpus':
        options.gpus = positiveInt(flag, value());
        break;
      case '--strategy': {
        const s = value();
        if (!(STRATEGIES as readonly string[]).includes(s ?? ''))
          throw new UsageError(`--strategy must be one of ${STRATEGIES.join(', ')}, got ${s ?? 'nothing'}`);
        options.strategy = s as StrategyId;
        break;
      }
      case '--precision': {
        const p = value();
        if (!['fp32', 'bf16', 'fp16', 'bf16-pure'].includes(p ?? ''))
          throw new UsageError(`--precision must be fp32, bf16, fp16 or bf16-pure, got ${p ?? 'nothing'}`);
        options.precision = p;
        break;
      }
      case '--batch':
        options.batch = positiveInt(flag, value());
        break;
      case '--seq':
        options.seq = positiveInt(flag, value());
        break;
      case '--format': {
        const f = value();
        if (f !== 'text' && f !== 'json')
          throw new UsageError(`--format must be text or json, got ${f ?? 'nothing'}`);
        options.format = f;
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        if (options.path) throw new UsageError(`one PATH only (got ${options.path} and ${arg})`);
        options.path = arg;
    }
  }
  if (!options.path) throw new UsageError('missing PATH');
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
  if (options.precision) estimate.precision = options.precision;
  if (options.batch) estimate.batchSize = options.batch;
  if (options.seq) estimate.sequenceLength = options.seq;
  return { cluster, estimate };
}

/** One class of the JSON output. */
interface ClassReport {
  name: string;
  file: string;
  line: number;
  params: { total: number | null; known: number; lowerBound: boolean; trainable: number; buffers: number };
  memoryBytes: Record<
    string,
    { weights: number; grads: number; optimizer: number; activations: number; peak: number }
  >;
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
    const setup = setupFor({ settings, evaluation, tree });
    const strategies = withFirst(setup.strategy, STRATEGIES);
    const input = modelInputOf(tree);
    const estimates = input ? estimatesFor({ model: input, setup, strategies }) : [];
    return { tree, report: classReport({ tree, path, estimates, line: assumptionsLine(setup) }) };
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

function classReport(input: {
  tree: ModuleTree;
  path: string;
  estimates: TrainingEstimate[];
  line: string;
}): ClassReport {
  const { tree, path, estimates } = input;
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
    memoryBytes: {},
    comm: {},
    assumptions: [...tree.assumptions, input.line.replace(/^Assumptions: /, '')],
  };
  // One line per distinct cause (a block repeated 12 times says it once).
  for (const cause of tree.causes) report.assumptions.push(`unknown: ${cause.replace(/`/g, '')}`);
  for (const e of estimates) {
    const m = e.memory;
    report.memoryBytes[e.strategy] = {
      weights: m.weights,
      grads: m.grads,
      optimizer: m.optimizer,
      activations: m.activations,
      peak: m.peak,
    };
    report.comm[e.strategy] = {
      collective: e.comm.map((c) => c.collective).join(' + ') || 'none',
      bytesPerStep: e.comm.reduce((sum, c) => sum + c.bytesPerStep, 0),
      secondsPerStep: e.comm.length ? e.commSecondsPerStep : 0,
    };
  }
  if (estimates[0]) report.assumptions.push(...estimates[0].assumptions);
  return report;
}

function textReport(tree: ModuleTree, report: ClassReport): string {
  const count =
    report.params.total === null
      ? `≥ ${formatParams(tree.params.known)} params + unknown`
      : `${formatParams(report.params.total)} params (${report.params.total.toLocaleString('en-US')}), ${formatParams(report.params.trainable)} trainable, ${formatParams(report.params.buffers)} buffer elements`;
  const lines = [`${report.name} (${report.file}:${report.line}): ${count}`];
  for (const [strategy, m] of Object.entries(report.memoryBytes)) {
    const c = report.comm[strategy];
    const comm = c.bytesPerStep
      ? `${formatBytes(c.bytesPerStep)}/step${c.secondsPerStep === null ? '' : ` ≈ ${formatSeconds(c.secondsPerStep)}`}`
      : 'no comm';
    lines.push(
      `  ${STRATEGY_LABELS[strategy as StrategyId].padEnd(14)} weights ${formatBytes(m.weights)}, grads ${formatBytes(m.grads)}, optimizer ${formatBytes(m.optimizer)}, activations ${formatBytes(m.activations)}, peak ${formatBytes(m.peak)}/GPU; ${comm}`,
    );
  }
  lines.push(...report.assumptions.map((a) => `  - ${a}`));
  return `${lines.join('\n')}\n`;
}

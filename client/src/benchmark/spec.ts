// Builds the JSON spec files read by the Python harness from the panel's forms, and the
// default forms from the server's layerAt answer. Pure: no `vscode`, no file system.
import type { LayerAtResult } from '../../../server/src/protocol';
import type { CollectivesForm, LayerForm, LayerInfo } from './messages';

/** The layer spec written for `python -m shardlens_bench --spec FILE`. Field names are a contract. */
export interface LayerSpec {
  version: 1;
  kind: 'layer';
  runId: string;
  workspaceRoot: string;
  file: string | null;
  constructor: string;
  inputs: { shape: (number | string)[]; dtype: 'float' | 'long'; high?: number }[];
  dims: Record<string, number>;
  batchDim: string | null;
  batchSizes: number[];
  dtype: LayerForm['dtype'];
  modes: LayerForm['modes'];
  compile: boolean;
  device: string;
  warmupMs: number;
  measureMs: number;
  maxCaseSeconds: number;
}

/** The collectives spec. Field names are a contract. */
export interface CollectivesSpec {
  version: 1;
  kind: 'collectives';
  runId: string;
  worldSize: number;
  ops: CollectivesForm['ops'];
  sizesBytes: number[];
  backend: CollectivesForm['backend'];
  device: CollectivesForm['device'];
  warmup: number;
  repetitions: number;
}

/** triton.testing.do_bench defaults (python/triton/testing.py): warmup=25 ms, rep=100 ms. */
export const DO_BENCH_WARMUP_MS = 25;
export const DO_BENCH_MEASURE_MS = 100;
/** Cap on one case, so a slow CPU call cannot make a case take minutes. */
export const DEFAULT_MAX_CASE_SECONDS = 10;

export type BuildResult<T> = { spec: T; errors: [] } | { spec?: undefined; errors: string[] };

/** A run id that is unique enough and safe in file names. */
export function newRunId(
  prefix: 'r' | 'c',
  nowMs: number = Date.now(),
  random: number = Math.random(),
): string {
  return `${prefix}${nowMs.toString(36)}${Math.floor(random * 36 ** 4)
    .toString(36)
    .padStart(4, '0')}`;
}

/** Checks a layer form and turns it into a spec; lists every problem instead of throwing. */
export function buildLayerSpec(args: {
  form: LayerForm;
  runId: string;
  workspaceRoot: string;
  file: string | null;
}): BuildResult<LayerSpec> {
  const { form } = args;
  const errors: string[] = [];
  if (form.constructorExpression.trim() === '') errors.push('The constructor expression is empty.');
  if (form.inputs.length === 0) errors.push('Give at least one input shape.');
  const dimNames = new Set(Object.keys(form.dims));
  for (const [i, input] of form.inputs.entries()) {
    if (input.shape.length === 0) errors.push(`Input ${i + 1} has no dimensions.`);
    for (const d of input.shape) {
      if (typeof d === 'string' && !dimNames.has(d))
        errors.push(`Input ${i + 1} uses dim "${d}" which has no value.`);
    }
  }
  if (form.batchSizes.length > 0) {
    if (form.batchDim === null || form.batchDim === '')
      errors.push('A batch-size sweep needs a batch dim (e.g. B).');
    else if (!form.inputs.some((inp) => inp.shape.includes(form.batchDim!)))
      errors.push(`The batch dim "${form.batchDim}" does not appear in any input shape.`);
  }
  if (form.modes.length === 0) errors.push('Choose at least one mode.');
  if (form.warmupMs > 60_000 || form.measureMs > 600_000)
    errors.push('Warm-up must be at most 60000 ms and measurement at most 600000 ms.');
  if (form.maxCaseSeconds > 3600) errors.push('The cap per case must be at most 3600 s.');
  if (errors.length > 0) return { errors };
  const batchSizes = [...new Set(form.batchSizes)].sort((a, b) => a - b);
  return {
    errors: [],
    spec: {
      version: 1,
      kind: 'layer',
      runId: args.runId,
      workspaceRoot: args.workspaceRoot,
      file: args.file,
      constructor: form.constructorExpression.trim(),
      inputs: form.inputs.map((i) => ({
        shape: [...i.shape],
        dtype: i.dtype,
        ...(i.high ? { high: i.high } : {}),
      })),
      dims: { ...form.dims },
      batchDim: form.batchDim === '' ? null : form.batchDim,
      batchSizes,
      dtype: form.dtype,
      modes: [...new Set(form.modes)],
      compile: form.compile,
      device: form.device,
      warmupMs: form.warmupMs,
      measureMs: form.measureMs,
      maxCaseSeconds: form.maxCaseSeconds,
    },
  };
}

/** Checks a collectives form and turns it into a spec. */
export function buildCollectivesSpec(args: {
  form: CollectivesForm;
  runId: string;
}): BuildResult<CollectivesSpec> {
  const { form } = args;
  const errors: string[] = [];
  if (form.worldSize < 1 || form.worldSize > 64) errors.push('The process count must be between 1 and 64.');
  if (form.ops.length === 0) errors.push('Choose at least one collective.');
  if (form.sizesBytes.length === 0) errors.push('Give at least one message size.');
  if (form.sizesBytes.some((s) => s > 8 * 2 ** 30)) errors.push('Message sizes must be at most 8 GiB.');
  if (errors.length > 0) return { errors };
  return {
    errors: [],
    spec: {
      version: 1,
      kind: 'collectives',
      runId: args.runId,
      worldSize: form.worldSize,
      ops: [...new Set(form.ops)],
      sizesBytes: [...new Set(form.sizesBytes)].sort((a, b) => a - b),
      backend: form.backend,
      device: form.device,
      warmup: form.warmup,
      repetitions: form.repetitions,
    },
  };
}

/** The default batch-size sweep around a default batch size: powers of two up to it and one above. */
export function defaultBatchSizes(defaultBatch: number | undefined): number[] {
  const top = Math.max(1, Math.min(defaultBatch ?? 8, 4096));
  const sizes: number[] = [];
  for (let b = 1; b < top; b *= 2) sizes.push(b);
  sizes.push(top);
  return sizes;
}

/** The form the panel opens with: prefilled from layerAt, or empty for the user to fill in. */
export function defaultLayerForm(layer: LayerAtResult | null): LayerForm {
  const inputs = layer?.inputs.length ? layer.inputs : [{ shape: ['B', 128], dtype: 'float' as const }];
  const dims: Record<string, number> = { ...(layer?.dims ?? { B: 8 }) };
  for (const input of inputs) {
    for (const d of input.shape)
      if (typeof d === 'string' && dims[d] === undefined) dims[d] = d === 'B' ? 8 : 128;
  }
  const firstDim = inputs[0]?.shape[0];
  const batchDim = typeof firstDim === 'string' ? firstDim : null;
  return {
    constructorExpression: layer?.constructorExpression ?? '',
    inputs: inputs.map((i) => ({ shape: [...i.shape], dtype: i.dtype, ...(i.high ? { high: i.high } : {}) })),
    dims,
    batchDim,
    batchSizes: batchDim ? defaultBatchSizes(dims[batchDim]) : [],
    dtype: 'fp32',
    modes: ['forward', 'forward_backward'],
    compile: false,
    device: 'auto',
    warmupMs: DO_BENCH_WARMUP_MS,
    measureMs: DO_BENCH_MEASURE_MS,
    maxCaseSeconds: DEFAULT_MAX_CASE_SECONDS,
  };
}

/** Batch sizes kept when the run falls back to the CPU: the smallest ones. */
export const CPU_SWEEP_BATCH_SIZES = 2;

/**
 * The form sized for a CPU: the smallest two batch sizes of the sweep. A CPU call of a GPT-2
 * MLP at one sequence of 1024 tokens can take seconds, and the per-case cap bounds each case.
 */
export function cpuSizedForm(form: LayerForm): LayerForm {
  return { ...form, batchSizes: [...form.batchSizes].sort((a, b) => a - b).slice(0, CPU_SWEEP_BATCH_SIZES) };
}

/** How long a run of `form` takes, before it starts: cases, a typical total and a bound. */
export interface RunEstimate {
  cases: number;
  /** When every call is short: the warm-up and measurement budgets per case. */
  typicalSeconds: number;
  /** The per-case cap times the cases (twice per eager case on a GPU: eager, then graph replay). */
  maxSeconds: number;
}

/** Estimates a run from its form; `gpu` is whether the interpreter sees a GPU (null: unknown). */
export function estimateRun(form: LayerForm, gpu: boolean | null): RunEstimate {
  const sweeps = Math.max(new Set(form.batchSizes).size, 1) * new Set(form.modes).size;
  const eagerCases = sweeps;
  const compiledCases = form.compile ? sweeps : 0;
  // NOTE: on a GPU each eager case is timed twice (eager, then CUDA-graph replay); unknown counts as GPU.
  const timedPasses = eagerCases * (gpu === false ? 1 : 2) + compiledCases;
  const perPassSeconds = (form.warmupMs + form.measureMs) / 1000;
  return {
    cases: eagerCases + compiledCases,
    typicalSeconds: timedPasses * perPassSeconds,
    maxSeconds: timedPasses * form.maxCaseSeconds,
  };
}

/** "8 cases: about 1 s when calls are short, at most 80 s (10 s cap per case), plus start-up." */
export function describeEstimate(estimate: RunEstimate, form: LayerForm): string {
  const seconds = (s: number) => (s < 10 ? `${Math.round(s * 10) / 10} s` : `${Math.round(s)} s`);
  const cases = `${estimate.cases} case${estimate.cases === 1 ? '' : 's'}`;
  return (
    `${cases}: about ${seconds(estimate.typicalSeconds)} when each call takes under ${form.warmupMs} ms, ` +
    `at most ${seconds(estimate.maxSeconds)} (${form.maxCaseSeconds} s cap per case), plus start-up.`
  );
}

/** The collectives form used by the command: `worldSize` processes, 1 KiB to 64 MiB. */
export function defaultCollectivesForm(worldSize = 2): CollectivesForm {
  return {
    worldSize,
    ops: ['all_reduce', 'all_gather', 'reduce_scatter'],
    sizesBytes: [2 ** 10, 2 ** 14, 2 ** 18, 2 ** 22, 2 ** 26],
    backend: 'auto',
    device: 'auto',
    warmup: 2,
    repetitions: 5,
  };
}

/** Layer identity and estimate for the panel and the run history. */
export function layerInfoFrom(layer: LayerAtResult | null, fallbackFile: string | null): LayerInfo | null {
  if (!layer) return null;
  return {
    key: `${layer.file}::${layer.name}`,
    name: layer.name,
    file: layer.file ?? fallbackFile,
    estimate: layer.estimate
      ? {
          params: layer.estimate.params ?? null,
          forwardFlopsPerSample: layer.estimate.forwardFlopsPerSample ?? null,
          notes: layer.estimate.notes ?? [],
        }
      : null,
    notes: layer.notes ?? [],
  };
}

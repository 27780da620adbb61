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
  warmup: number;
  repetitions: number;
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
  if (form.repetitions > 100_000 || form.warmup > 100_000)
    errors.push('Warmup and repetitions must be at most 100000.');
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
      warmup: form.warmup,
      repetitions: form.repetitions,
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
  if (form.worldSize < 2 || form.worldSize > 64) errors.push('The process count must be between 2 and 64.');
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
    warmup: 5,
    repetitions: 20,
  };
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

// Shared by hover, inlay hints, layerAt and `shardlens estimate`: the module evaluation of a
// FileModel (cached per model, so a hover costs a lookup), the cluster profile from settings,
// the batch and sequence length the script uses, and the estimate for each strategy.
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';
import {
  STRATEGIES,
  estimateTraining,
  resolveClusterProfile,
  type ClusterProfile,
  type CustomProfiles,
  type ModelInput,
  type OptimizerId,
  type PrecisionId,
  type StrategyId,
  type TrainingEstimate,
} from '../estimate';
import { evaluateFile, type FileEvaluation, type ModuleTree, type WorkspaceFiles } from '../modules';

interface CacheEntry {
  generation: number;
  evaluation: FileEvaluation;
}

const cache = new WeakMap<object, CacheEntry>();

/** The evaluation of a file's modules, computed once per FileModel (and workspace generation). */
export function evaluationFor(input: {
  model: Pick<FileModel, 'root' | 'imports' | 'filePath'>;
  workspace?: WorkspaceFiles;
}): FileEvaluation {
  const { model, workspace } = input;
  const generation = workspace?.generation ?? 0;
  const cached = cache.get(model);
  if (cached && cached.generation === generation) return cached.evaluation;
  const evaluation = evaluateFile({
    root: model.root,
    imports: model.imports,
    filePath: model.filePath,
    workspace,
  });
  cache.set(model, { generation, evaluation });
  return evaluation;
}

/** The strategies of the hover table, in order. */
export const TABLE_STRATEGIES: StrategyId[] = ['ddp', 'zero1', 'zero2', 'zero3', 'fsdp-full'];

/** Display names of strategies. */
export const STRATEGY_LABELS: Record<StrategyId, string> = {
  ddp: 'DDP',
  zero1: 'ZeRO-1',
  zero2: 'ZeRO-2',
  zero3: 'ZeRO-3',
  'fsdp-full': 'FSDP full',
  'fsdp-grad-op': 'FSDP grad-op',
  'fsdp-hybrid': 'FSDP hybrid',
  'fsdp-no-shard': 'FSDP no-shard',
};

/** Settings validated into estimate ids, with the resolved cluster profile. */
export interface EstimateSetup {
  strategy: StrategyId;
  precision: PrecisionId;
  optimizer: OptimizerId;
  profile: ClusterProfile | null;
  /** Why the profile could not be resolved, if so. */
  profileError?: string;
  batch: { value: number; source: string };
  seq: { value: number; source: string };
}

const pick = <T extends string>(value: string, allowed: readonly T[], fallback: T): T =>
  (allowed as readonly string[]).includes(value) ? (value as T) : fallback;

/** Resolves the settings and the script's batch and sequence length into an estimate setup. */
export function setupFor(input: {
  settings: Settings;
  evaluation: FileEvaluation;
  tree?: ModuleTree;
}): EstimateSetup {
  const { settings, evaluation } = input;
  const resolved = resolveClusterProfile({
    ...settings.cluster,
    customProfiles: settings.cluster.customProfiles as CustomProfiles,
  });
  const dims = evaluation.scriptDims;
  const treeSeq = input.tree?.args
    .flatMap((a) => (a.kind === 'object' ? [a] : []))
    .find((a) => a.fields.has('block_size') || a.fields.has('max_seq_len'));
  const seqField = treeSeq?.fields.get('block_size') ?? treeSeq?.fields.get('max_seq_len');
  const seq =
    dims.seq ??
    (seqField?.kind === 'num' && treeSeq
      ? { value: seqField.value, source: `${treeSeq.className} default` }
      : undefined);
  return {
    strategy: pick(settings.estimate.strategy, STRATEGIES, 'ddp'),
    precision: pick(settings.estimate.precision, ['fp32', 'bf16', 'fp16', 'bf16-pure'] as const, 'bf16'),
    optimizer: pick(
      settings.estimate.optimizer,
      ['adamw', 'adam', 'sgd', 'sgd-momentum', 'adafactor', 'adam-8bit'] as const,
      'adamw',
    ),
    profile: resolved.ok ? resolved.profile : null,
    profileError: resolved.ok ? undefined : resolved.error,
    batch: dims.batch ?? { value: settings.estimate.batchSize, source: 'settings' },
    seq: seq ?? { value: settings.estimate.sequenceLength, source: 'settings' },
  };
}

/** The estimate module's model input for a fully known tree; undefined when the count is not exact. */
export function modelInputOf(tree: ModuleTree): ModelInput | undefined {
  if (tree.params.total === null) return undefined;
  return {
    params: tree.params.total,
    trainableParams: tree.params.trainable,
    largestLayerParams: tree.largestLayer?.params,
    transformer: tree.transformer ?? undefined,
  };
}

/** Estimates for `strategies` (the setup's strategy first, no repeats). */
export function estimatesFor(input: {
  model: ModelInput;
  setup: EstimateSetup;
  strategies: StrategyId[];
  gradAccumSteps?: number;
  noSync?: boolean;
}): TrainingEstimate[] {
  const { model, setup } = input;
  return input.strategies.map((strategy) =>
    estimateTraining({
      model,
      strategy,
      precision: setup.precision,
      optimizer: setup.optimizer,
      cluster: setup.profile,
      microBatch: setup.batch.value,
      seq: setup.seq.value,
      gradAccumSteps: input.gradAccumSteps,
      noSync: input.noSync,
    }),
  );
}

/** The requested strategy first, then the others of `list`. */
export function withFirst(first: StrategyId, list: readonly StrategyId[]): StrategyId[] {
  return [first, ...list.filter((s) => s !== first)];
}

/** The one-line "Assumptions:" text: precision, optimizer, strategy, GPUs, sequence length, batch. */
export function assumptionsLine(setup: EstimateSetup, strategy: StrategyId = setup.strategy): string {
  const gpus = setup.profile
    ? `${setup.profile.worldSize} GPUs (${setup.profile.label})`
    : `1 GPU (${setup.profileError ?? 'no cluster profile'})`;
  const source = (s: string) => (s === 'settings' ? 'settings' : s);
  return (
    `Assumptions: ${setup.precision} · ${setup.optimizer} · ${STRATEGY_LABELS[strategy]} · ${gpus} · ` +
    `sequence length ${setup.seq.value} (${source(setup.seq.source)}) · micro-batch ${setup.batch.value} (${source(setup.batch.source)})`
  );
}

// Shared by hover, inlay hints, layerAt and `shardlens estimate`: the module evaluation of a
// FileModel (cached per model, so a hover costs a lookup), the cluster profile from settings,
// the batch and sequence length the script uses, and the estimate for each strategy.
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';
import {
  OPTIMIZERS,
  PRECISIONS,
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
import { forwardActivationsOf } from '../forward';
import type { ModuleInstance } from '../modules/module-instance';
import { scriptSetup } from './script-setup';

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
  /** Activation checkpointing around each block (full recompute). */
  checkpointing: boolean;
  /** Image input [C, H, W] for convnets and ViTs; undefined: inferred from the model, else 3×224×224. */
  imageShape?: [number, number, number];
  /** Where precision, optimizer, checkpointing and image shape came from: "settings", "flag" or the script line. */
  sources: { precision: string; optimizer: string; checkpointing: string; imageShape?: string };
  /** Things seen in the script but not decided. */
  notes: string[];
}

/** Values given on the command line: they win over the script and the settings. */
export interface SetupOverrides {
  batch?: number;
  seq?: number;
  precision?: PrecisionId;
  optimizer?: OptimizerId;
  checkpointing?: boolean;
  imageShape?: [number, number, number];
}

const pick = <T extends string>(value: string, allowed: readonly T[], fallback: T): T =>
  (allowed as readonly string[]).includes(value) ? (value as T) : fallback;

/** Resolves the settings and the script's batch and sequence length into an estimate setup. */
export function setupFor(input: {
  settings: Settings;
  evaluation: FileEvaluation;
  tree?: ModuleTree;
  overrides?: SetupOverrides;
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
  const o = input.overrides ?? {};
  const script = scriptSetup(evaluation);
  const precision: [PrecisionId, string] = o.precision
    ? [o.precision, 'flag']
    : script.precision
      ? [script.precision.value, `inferred from ${script.precision.source}`]
      : [pick(settings.estimate.precision, PRECISIONS, 'bf16'), 'settings'];
  const optimizer: [OptimizerId, string] = o.optimizer
    ? [o.optimizer, 'flag']
    : script.optimizer
      ? [script.optimizer.value, `inferred from ${script.optimizer.source}`]
      : [pick(settings.estimate.optimizer, OPTIMIZERS, 'adamw'), 'settings'];
  const checkpointing: [boolean, string] =
    o.checkpointing !== undefined
      ? [o.checkpointing, 'flag']
      : script.checkpointing
        ? [true, `inferred from ${script.checkpointing.source}`]
        : [false, 'default'];
  const image = o.imageShape
    ? { value: o.imageShape, source: 'flag' }
    : script.imageShape
      ? { value: script.imageShape.value, source: `inferred from ${script.imageShape.source}` }
      : undefined;
  return {
    strategy: pick(settings.estimate.strategy, STRATEGIES, 'ddp'),
    precision: precision[0],
    optimizer: optimizer[0],
    profile: resolved.ok ? resolved.profile : null,
    profileError: resolved.ok ? undefined : resolved.error,
    batch: o.batch
      ? { value: o.batch, source: 'flag' }
      : (dims.batch ?? { value: settings.estimate.batchSize, source: 'settings' }),
    seq: o.seq
      ? { value: o.seq, source: 'flag' }
      : (seq ?? { value: settings.estimate.sequenceLength, source: 'settings' }),
    checkpointing: checkpointing[0],
    imageShape: image?.value,
    sources: {
      precision: precision[1],
      optimizer: optimizer[1],
      checkpointing: checkpointing[1],
      imageShape: image?.source,
    },
    notes: script.notes,
  };
}

/** The walk the estimates will ask for first (so that one walk serves both). */
function firstQuery(
  setup?: EstimateSetup,
): { precision: PrecisionId; batch: number; seq: number } | undefined {
  return setup && { precision: setup.precision, batch: setup.batch.value, seq: setup.seq.value };
}

/** One line per distinct cause that makes the figures of a tree a lower bound. */
export function lowerBoundCauses(tree: ModuleTree, walkCauses: string[] = []): string[] {
  const lines = new Set<string>();
  for (const cause of tree.causes) lines.add(cause);
  for (const c of walkCauses) lines.add(`activations: ${c}`);
  return [...lines];
}

/** True when some parameters are unknown: every figure is then a lower bound (the known part). */
export function isLowerBound(tree: ModuleTree): boolean {
  return tree.params.total === null;
}

/**
 * The estimate module's model input for a tree: exact when the count is, otherwise the known part
 * (a lower bound, see {@link isLowerBound}); undefined only when nothing at all was counted.
 */
export function modelInputOf(
  tree: ModuleTree,
  context: { setup?: EstimateSetup; workspace?: WorkspaceFiles } = {},
): ModelInput | undefined {
  if (tree.params.total === null && tree.params.known === 0 && !tree.root) return undefined;
  const params = tree.params.total ?? tree.params.known;
  const walked = tree.root
    ? forwardActivationsOf({
        root: tree.root,
        imageShape: context.setup?.imageShape,
        workspace: context.workspace,
        first: firstQuery(context.setup),
      })
    : undefined;
  return {
    lowerBoundCauses: lowerBoundCauses(tree, walked?.causes),
    params,
    trainableParams: Math.min(tree.params.trainable, params),
    largestLayerParams: tree.largestLayer?.params,
    transformer: tree.transformer ?? undefined,
    bufferElements: tree.params.buffers,
    forwardActivations: walked?.forwardActivations,
    castWeightParams: walked?.castWeightParams,
    flashAttention: walked?.flashAttention,
    imageInput: walked?.imageInput,
  };
}

/** The model input of a built module that has no class tree here (imported or library models). */
export function modelInputOfModule(input: {
  module: ModuleInstance;
  params: number;
  trainable: number;
  largestLayer?: number;
  transformer?: ModelInput['transformer'];
  setup?: EstimateSetup;
  workspace?: WorkspaceFiles;
}): ModelInput {
  const walked =
    input.module.kind === 'user'
      ? forwardActivationsOf({
          root: input.module,
          imageShape: input.setup?.imageShape,
          workspace: input.workspace,
          first: firstQuery(input.setup),
        })
      : undefined;
  return {
    params: input.params,
    trainableParams: input.trainable,
    largestLayerParams: input.largestLayer,
    transformer: input.transformer ?? undefined,
    forwardActivations: walked?.forwardActivations,
    castWeightParams: walked?.castWeightParams,
    flashAttention: walked?.flashAttention,
    lowerBoundCauses: walked?.causes.map((c) => `activations: ${c}`),
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
      activationCheckpointing: setup.checkpointing,
    }),
  );
}

/** The requested strategy first, then the others of `list`. */
export function withFirst(first: StrategyId, list: readonly StrategyId[]): StrategyId[] {
  return [first, ...list.filter((s) => s !== first)];
}

/** The one-line "Assumptions:" text: each value with where it came from (settings, flag, or the script line). */
export function assumptionsLine(setup: EstimateSetup, strategy: StrategyId = setup.strategy): string {
  const gpus = setup.profile
    ? `${setup.profile.worldSize} GPUs (${setup.profile.label})`
    : `1 GPU (${setup.profileError ?? 'no cluster profile'})`;
  const s = setup.sources;
  const image = setup.imageShape ? ` · image ${setup.imageShape.join('×')} (${s.imageShape})` : '';
  return (
    `Assumptions: ${setup.precision} (${s.precision}) · ${setup.optimizer} (${s.optimizer}) · ` +
    `${setup.checkpointing ? 'activation checkpointing' : 'no activation checkpointing'} (${s.checkpointing}) · ` +
    `${STRATEGY_LABELS[strategy]} · ${gpus} · ` +
    `sequence length ${setup.seq.value} (${setup.seq.source}) · micro-batch ${setup.batch.value} (${setup.batch.source})${image}`
  );
}

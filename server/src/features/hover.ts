// Hover on model code: an nn.Module class (parameters, per-strategy memory table, activations
// at the script's batch and sequence length, assumptions), a layer constructor (parameters,
// bytes per precision, FLOPs), DDP/FSDP/DeepSpeed setup and loss.backward()/optimizer.step()
// (communication per step). Numbers come from the estimate module and are formatted by it.
import type { Hover } from 'vscode-languageserver';
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';
import {
  bytesPerParam,
  formatBytes,
  formatParams,
  formatSeconds,
  type StrategyId,
  type TrainingEstimate,
} from '../estimate';
import { emptyTree, finishTree, type FileEvaluation, type ModuleTree, type WorkspaceFiles } from '../modules';
import { BACKWARD_OVER_FORWARD, layerForwardFlops } from '../modules/flops';
import { Env } from '../modules/interpreter';
import { countParams, type ModuleInstance } from '../modules/module-instance';
import type { SyntaxNode } from '../parse/syntax';
import {
  STRATEGY_LABELS,
  TABLE_STRATEGIES,
  assumptionsLine,
  estimatesFor,
  evaluationFor,
  modelInputOf,
  modelInputOfModule,
  setupFor,
  type EstimateSetup,
} from './estimate-context';
import {
  firstWrapper,
  gradientAccumulation,
  nodeAt,
  resolveModel,
  wrapperOf,
  zeroStageOf,
  type ResolvedModel,
} from './estimate-targets';

/** Hover markdown for the symbol at `position`. */
export function provideHover(input: {
  model: FileModel;
  position: { line: number; character: number };
  settings: Settings;
  workspace?: WorkspaceFiles;
}): Hover | null {
  try {
    const markdown = hoverMarkdown(input);
    return markdown ? { contents: { kind: 'markdown', value: markdown } } : null;
  } catch {
    // NOTE: a hover must never take the server down; an analysis bug shows no hover.
    return null;
  }
}

/** The hover's markdown, or undefined when there is nothing to say (exported for tests). */
export function hoverMarkdown(input: {
  model: Pick<FileModel, 'root' | 'imports' | 'filePath'>;
  position: { line: number; character: number };
  settings: Settings;
  workspace?: WorkspaceFiles;
}): string | undefined {
  const { model, position, settings } = input;
  const node = nodeAt(model.root, position);
  const evaluation = evaluationFor({ model, workspace: input.workspace });
  const classTree = evaluation.trees.find(
    (t) => t.line === position.line && t.classNode.start.line === position.line,
  );
  if (classTree) return classMarkdown({ tree: classTree, evaluation, settings });
  for (let current: SyntaxNode | null = node; current; current = current.parent) {
    if (current.type === 'dictionary' && zeroStageOf(current) !== undefined)
      return deepspeedDictMarkdown({ dict: current, evaluation, settings });
    if (current.type !== 'call') continue;
    const callee = current.children.find((c) => c.field === 'function');
    if (!callee || node.startIndex > callee.endIndex) continue;
    const text = callFeatureMarkdown({ call: current, callee, evaluation, settings });
    if (text) return text;
  }
  return undefined;
}

function callFeatureMarkdown(input: {
  call: SyntaxNode;
  callee: SyntaxNode;
  evaluation: FileEvaluation;
  settings: Settings;
}): string | undefined {
  const { call, callee, evaluation, settings } = input;
  const wrapper = wrapperOf({ call, evaluation });
  if (wrapper) {
    const model = wrapper.modelNode ? resolveModel({ node: wrapper.modelNode, evaluation }) : undefined;
    return strategyMarkdown({
      title: `**${wrapper.label}**`,
      strategy: wrapper.strategy,
      model,
      evaluation,
      settings,
    });
  }
  const method = /\.(backward|step)$/.exec(callee.text)?.[1];
  if (method) return trainStepMarkdown({ call, method, evaluation, settings });
  let built = evaluation.builtAt.get(call);
  if (!built) {
    const value = evaluation.interpreter.evalExpr(call, new Env(evaluation.scope));
    if (value.kind !== 'module') return undefined;
    built = value.module;
  }
  if (built.kind === 'layer') return layerMarkdown({ layer: built, text: call.text, evaluation, settings });
  const tree = evaluation.trees.find((t) => t.root?.cls === built!.cls && built!.kind === 'user');
  if (tree && tree.root === built) return classMarkdown({ tree, evaluation, settings });
  if (built.kind === 'user') return builtMarkdown({ built, call, callee, evaluation, settings });
  return instanceMarkdown(built, call.text);
}

function paramsLine(tree: ModuleTree): string {
  if (tree.params.total === null) {
    return `**Parameters:** ≥ ${formatParams(tree.params.known)} (the known part; the rest is unknown, see below)`;
  }
  const largest = tree.largestLayer
    ? ` · largest layer \`${tree.largestLayer.path}\` ${formatParams(tree.largestLayer.params)}`
    : '';
  return (
    `**Parameters:** ${formatParams(tree.params.total)} (${tree.params.total.toLocaleString('en-US')}) · ` +
    `trainable ${formatParams(tree.params.trainable)} · buffers ${formatParams(tree.params.buffers)}${largest}`
  );
}

function commCell(estimate: TrainingEstimate): string {
  if (!estimate.comm.length) return 'none';
  const bytes = estimate.comm.reduce((sum, c) => sum + c.bytesPerStep, 0);
  const ge = estimate.lowerBound ? '≥ ' : '';
  return estimate.commSecondsPerStep === null
    ? `${ge}${formatBytes(bytes)}`
    : `${ge}${formatBytes(bytes)} ≈ ${formatSeconds(estimate.commSecondsPerStep)}`;
}

function memoryTable(estimates: TrainingEstimate[], active: StrategyId): string[] {
  const rows = estimates.map((e) => {
    const m = e.memory;
    const label = e.strategy === active ? `**${STRATEGY_LABELS[e.strategy]}**` : STRATEGY_LABELS[e.strategy];
    const ge = e.lowerBound ? '≥ ' : '';
    const peak = `${ge}${formatBytes(m.peak)}${e.fits === false ? ' ⚠' : ''}`;
    return `| ${label} | ${ge}${formatBytes(m.weights)} | ${ge}${formatBytes(m.grads)} | ${ge}${formatBytes(m.optimizer)} | ${ge}${formatBytes(m.activations)} | ${peak} | ${commCell(e)} |`;
  });
  return [
    '| strategy | weights | grads | optimizer | activations | peak/GPU | comm/step |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}

function tableStrategies(setup: EstimateSetup): StrategyId[] {
  return TABLE_STRATEGIES.includes(setup.strategy) ? TABLE_STRATEGIES : [...TABLE_STRATEGIES, setup.strategy];
}

/** The hover of an nn.Module class. */
export function classMarkdown(input: {
  tree: ModuleTree;
  evaluation: FileEvaluation;
  settings: Settings;
}): string {
  const { tree, evaluation, settings } = input;
  const setup = setupFor({ settings, evaluation, tree });
  const lines = [`### ${tree.name} · nn.Module`, '', paramsLine(tree), ''];
  const modelInput = modelInputOf(tree, { setup, workspace: evaluation.interpreter.workspace });
  if (modelInput) {
    const estimates = estimatesFor({ model: modelInput, setup, strategies: tableStrategies(setup) });
    const where = setup.profile ? setup.profile.label : '1 GPU';
    const image = setup.imageShape ?? modelInput.imageInput;
    const shape = image ? ` × image ${image.join('×')}` : ` × sequence ${setup.seq.value}`;
    lines.push(
      `**Memory per GPU** (${where}; batch ${setup.batch.value}${shape}${estimates[0]?.lowerBound ? '; ≥: the known part only' : ''})`,
      '',
      ...memoryTable(estimates, setup.strategy),
      '',
    );
    const note = estimates[0]?.assumptions.find((a) => a.startsWith('activations:'));
    if (note) lines.push(note.replace(/^activations:/, '**Activations:**'), '');
    const t = tree.transformer;
    if (t)
      lines.push(
        `Transformer: ${t.layers} layers · hidden ${t.hidden} · ${t.heads} heads${t.kvHeads ? ` (${t.kvHeads} KV)` : ''} · ffn ${t.ffn ?? 4 * t.hidden}${t.vocab ? ` · vocab ${t.vocab}` : ''}`,
        '',
      );
    const causes = modelInput.lowerBoundCauses ?? [];
    if (causes.length) lines.push('**Lower bound because:**', ...causes.map((c) => `- ${c}`), '');
  } else {
    lines.push('Memory not estimated: nothing of the model could be counted.', '');
  }
  const notes = [...tree.assumptions, ...setup.notes].map((a) => `- ${a}`);
  if (notes.length) lines.push(...notes, '');
  lines.push(assumptionsLine(setup));
  return lines.join('\n');
}

/** A user model built by a call (`model = resnet50()`, a builder or factory): the class hover's estimate for that instance. */
function builtMarkdown(input: {
  built: ModuleInstance;
  call: SyntaxNode;
  callee: SyntaxNode;
  evaluation: FileEvaluation;
  settings: Settings;
}): string {
  const { built, call, callee, evaluation, settings } = input;
  const tree = emptyTree({
    name: `${callee.text}()`,
    file: evaluation.scope.filePath ?? null,
    at: call,
    classNode: call,
  });
  tree.constructorExpression = call.text;
  finishTree(tree, { build: () => ({ kind: 'module', module: built }) });
  return classMarkdown({ tree, evaluation, settings }).replace(
    / · nn\.Module\n/,
    ` · ${built.cls?.name ?? 'nn.Module'}\n`,
  );
}

function instanceMarkdown(module: ModuleInstance, text: string): string {
  const totals = countParams(module);
  const count = totals.unknowns.length
    ? `≥ ${formatParams(totals.known)} + unknown: ${totals.unknowns
        .slice(0, 3)
        .map((u) => `\`${u.text}\` (${u.reason})`)
        .join('; ')}`
    : `${formatParams(totals.known)} (${totals.known.toLocaleString('en-US')})`;
  const source = module.library ? `\n\nFrom the model catalog: ${module.library.note}` : '';
  return `**${text.split('(')[0]}** · ${count} params · trainable ${formatParams(totals.trainable)} · buffers ${formatParams(totals.buffers)}${source}`;
}

/** The hover of a layer constructor: parameters, bytes per precision, FLOPs. */
function layerMarkdown(input: {
  layer: ModuleInstance;
  text: string;
  evaluation: FileEvaluation;
  settings: Settings;
}): string {
  const { layer, text, evaluation, settings } = input;
  const totals = countParams(layer);
  const call = text.replace(/\s+/g, ' ');
  if (totals.unknowns.length) {
    return `**${call}** · parameters unknown: ${totals.unknowns.map((u) => `\`${u.text}\` (${u.reason})`).join('; ')}`;
  }
  const params = totals.known;
  const lines = [`**${call}** · ${formatParams(params)} params (${params.toLocaleString('en-US')})`, ''];
  lines.push('| precision | weight bytes |', '|---|---:|');
  for (const precision of ['fp32', 'bf16', 'fp16'] as const) {
    const per = bytesPerParam({ precision, optimizer: 'sgd', params });
    lines.push(`| ${precision} | ${formatBytes(per.weights * params)} |`);
  }
  const seq = setupFor({ settings, evaluation }).seq.value;
  const flops = layerForwardFlops(layer, seq);
  if (flops) {
    const total = flops.forward * (1 + BACKWARD_OVER_FORWARD);
    lines.push(
      '',
      `**FLOPs per ${flops.per}:** forward ${formatParams(flops.forward)}, forward + backward ${formatParams(total)}`,
      '',
      `${flops.formula}; backward ≈ 2× forward (input and weight gradients), as torch.utils.flop_counter counts.`,
    );
  }
  return lines.join('\n');
}

function modelLine(model: ResolvedModel | undefined): string {
  if (!model) return 'Model: not found (pass the model variable to the wrapper to get estimates).';
  const count =
    model.params === null ? 'parameter count not fully known' : `${formatParams(model.params)} params`;
  return `Model: **${model.name}** · ${count}${model.note ? ` (${model.note})` : ''}`;
}

function commLines(estimate: TrainingEstimate, setup: EstimateSetup): string[] {
  if (!estimate.comm.length) return ['No gradient communication (one data-parallel rank).'];
  const where = setup.profile ? ` on ${setup.profile.label}` : '';
  return estimate.comm.map(
    (c) =>
      `- ${c.collective}: ${formatBytes(c.bytesPerStep)} sent per GPU per step${c.secondsPerStep === null ? '' : ` ≈ ${formatSeconds(c.secondsPerStep)}${where}`}`,
  );
}

function estimateFor(input: {
  model: ResolvedModel;
  setup: EstimateSetup;
  strategy: StrategyId;
  gradAccumSteps?: number;
  noSync?: boolean;
  workspace?: WorkspaceFiles;
}): TrainingEstimate | undefined {
  const { model, setup } = input;
  // A user class: its tree gives the forward walk and, when part is unknown, a lower bound.
  const fromTree = model.tree ? modelInputOf(model.tree, { setup, workspace: input.workspace }) : undefined;
  if (!fromTree && model.params === null) return undefined;
  const modelInput =
    fromTree ??
    (model.module
      ? modelInputOfModule({
          module: model.module,
          params: model.params ?? 0,
          trainable: model.trainable,
          largestLayer: model.largestLayer,
          transformer: model.transformer ?? undefined,
          setup,
          workspace: input.workspace,
        })
      : {
          params: model.params ?? 0,
          trainableParams: model.trainable,
          largestLayerParams: model.largestLayer,
          transformer: model.transformer ?? undefined,
        });
  return estimatesFor({
    model: modelInput,
    setup,
    strategies: [input.strategy],
    gradAccumSteps: input.gradAccumSteps,
    noSync: input.noSync,
  })[0];
}

function strategyMarkdown(input: {
  title: string;
  strategy: StrategyId;
  model?: ResolvedModel;
  evaluation: FileEvaluation;
  settings: Settings;
}): string {
  const { title, strategy, model, evaluation, settings } = input;
  const setup = { ...setupFor({ settings, evaluation, tree: model?.tree }), strategy };
  const lines = [`${title} · ${STRATEGY_LABELS[strategy]}`, '', modelLine(model), ''];
  const estimate =
    model && estimateFor({ model, setup, strategy, workspace: evaluation.interpreter.workspace });
  if (estimate) {
    const m = estimate.memory;
    const ge = estimate.lowerBound ? '≥ ' : '';
    lines.push(
      `**Per GPU${ge ? ' (known part, a lower bound)' : ''}:** weights ${formatBytes(m.weights)} · grads ${formatBytes(m.grads)} · optimizer ${formatBytes(m.optimizer)} · activations ${formatBytes(m.activations)} · peak ${formatBytes(m.peak)}`,
      '',
      '**Communication per step:**',
      ...commLines(estimate, setup),
      '',
    );
  }
  lines.push(assumptionsLine(setup, strategy));
  return lines.join('\n');
}

function deepspeedDictMarkdown(input: {
  dict: SyntaxNode;
  evaluation: FileEvaluation;
  settings: Settings;
}): string {
  const stage = zeroStageOf(input.dict) ?? 0;
  const strategy = (['ddp', 'zero1', 'zero2', 'zero3'] as const)[Math.min(3, stage)];
  const wrapper = firstWrapper(input.evaluation);
  const model = wrapper?.modelNode
    ? resolveModel({ node: wrapper.modelNode, evaluation: input.evaluation })
    : undefined;
  return strategyMarkdown({
    title: `**DeepSpeed config: ZeRO stage ${stage}**`,
    strategy,
    model,
    evaluation: input.evaluation,
    settings: input.settings,
  });
}

function trainStepMarkdown(input: {
  call: SyntaxNode;
  method: string;
  evaluation: FileEvaluation;
  settings: Settings;
}): string | undefined {
  const { call, method, evaluation, settings } = input;
  const wrapper = firstWrapper(evaluation);
  const base = setupFor({ settings, evaluation });
  const strategy = wrapper?.strategy ?? base.strategy;
  const model = wrapper?.modelNode ? resolveModel({ node: wrapper.modelNode, evaluation }) : undefined;
  const accumulation =
    method === 'backward' ? gradientAccumulation({ call, root: evaluation.scope.root }) : undefined;
  const setup = { ...setupFor({ settings, evaluation, tree: model?.tree }), strategy };
  const what = method === 'backward' ? 'the gradient synchronisation of' : 'the optimizer step after';
  const lines = [
    `**${call.text.replace(/\s+/g, ' ')}** triggers ${what} ${wrapper ? wrapper.label : `${STRATEGY_LABELS[strategy]} (from settings; no wrapper found in this file)`}`,
    '',
    modelLine(model),
    '',
  ];
  const estimate =
    model &&
    estimateFor({
      model,
      setup,
      strategy,
      gradAccumSteps: accumulation?.steps,
      noSync: accumulation ? accumulation.noSync : undefined,
      workspace: evaluation.interpreter.workspace,
    });
  if (estimate) lines.push('**Communication per step:**', ...commLines(estimate, setup), '');
  if (accumulation && !accumulation.noSync) {
    lines.push(
      `Gradient accumulation without \`no_sync()\`: every micro-batch's backward triggers its own gradient sync${accumulation.steps ? ` (×${accumulation.steps} per step)` : ''}.`,
      '',
    );
  }
  lines.push(assumptionsLine(setup, strategy));
  return lines.join('\n');
}

// The `shardlens/layerAt` request: the module under the cursor (a layer constructor call or
// the enclosing nn.Module class), a Python expression that builds it in the file's namespace,
// its forward input template with default dims, and the analyzer's estimate beside it.
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';
import type { WorkspaceFiles } from '../modules';
import { layerForwardFlops } from '../modules/flops';
import { countParams, type ModuleInstance } from '../modules/module-instance';
import type { LayerAtResult } from '../protocol';
import type { SyntaxNode } from '../parse/syntax';
import { evaluationFor, setupFor } from './estimate-context';
import { nodeAt } from './estimate-targets';

/** The module under the cursor, or null. */
export function provideLayerAt(input: {
  model: FileModel;
  position: { line: number; character: number };
  settings: Settings;
  workspace?: WorkspaceFiles;
}): LayerAtResult | null {
  try {
    return layerAt(input);
  } catch {
    // NOTE: the request answers null rather than failing the client's command.
    return null;
  }
}

function layerAt(input: Parameters<typeof provideLayerAt>[0]): LayerAtResult | null {
  const { model, position, settings } = input;
  const evaluation = evaluationFor({ model, workspace: input.workspace });
  const setup = setupFor({ settings, evaluation });
  const file = model.filePath ?? '';
  for (let node: SyntaxNode | null = nodeAt(model.root, position); node; node = node.parent) {
    const built = node.type === 'call' ? evaluation.builtAt.get(node) : undefined;
    if (built?.kind === 'layer')
      return layerResult({ layer: built, node, file, batch: setup.batch.value, seq: setup.seq.value });
    if (node.type !== 'class_definition') continue;
    const tree = evaluation.trees.find((t) => t.classNode === node);
    if (!tree) continue;
    const dims = { ...tree.forward.dims, B: setup.batch.value, T: setup.seq.value };
    const notes = [...tree.forward.notes, ...tree.assumptions];
    if (!tree.constructorExpression)
      notes.push('constructor arguments unknown: edit the expression before benchmarking');
    const perSample =
      tree.params.total !== null && tree.transformer ? 2 * tree.params.total * setup.seq.value : null;
    return {
      name: tree.name,
      kind: 'class',
      file,
      line: tree.line,
      constructorExpression: tree.constructorExpression ?? `${tree.name}(...)`,
      inputs: tree.forward.inputs,
      dims,
      estimate: {
        params: tree.params.total,
        forwardFlopsPerSample: perSample,
        notes:
          perSample === null
            ? []
            : ['forward ≈ 2 · params FLOPs per token (Kaplan et al. 2020), attention scores excluded'],
      },
      notes,
    };
  }
  return null;
}

/** `torch.nn.X(...)` from the evaluated layer configuration, so it runs outside `__init__`. */
function layerExpression(layer: ModuleInstance, text: string): string | undefined {
  const c = layer.layerConfig ?? {};
  const flag = (v: unknown) => (v ? 'True' : 'False');
  switch (layer.typeName) {
    case 'Linear':
      return `torch.nn.Linear(${c.in_features}, ${c.out_features}, bias=${flag(c.bias)})`;
    case 'Embedding':
      return `torch.nn.Embedding(${c.num_embeddings}, ${c.embedding_dim})`;
    default:
      if (/^Conv(Transpose)?[123]d$/.test(layer.typeName) && Array.isArray(c.kernel_size)) {
        return `torch.nn.${layer.typeName}(${c.in_channels}, ${c.out_channels}, kernel_size=(${c.kernel_size.join(', ')},), groups=${c.groups}, bias=${flag(c.bias)})`;
      }
      return /^[\w.]+\((\s*[-\d.]+\s*,?|\s*\w+=[-\w.]+\s*,?)*\)$/.test(text.replace(/\s+/g, ' '))
        ? text
        : undefined;
  }
}

function layerResult(input: {
  layer: ModuleInstance;
  node: SyntaxNode;
  file: string;
  batch: number;
  seq: number;
}): LayerAtResult {
  const { layer, node, file, batch, seq } = input;
  const totals = countParams(layer);
  const c = layer.layerConfig ?? {};
  const notes: string[] = [];
  const expression = layerExpression(layer, node.text);
  if (!expression)
    notes.push('arguments could not be turned into literals: edit the expression before benchmarking');
  const width = (c.in_features ?? c.width ?? c.embed_dim ?? c.input_size) as number | undefined;
  const channels = c.in_channels as number | undefined;
  let inputs: LayerAtResult['inputs'] = [];
  const dims: Record<string, number> = { B: batch, T: seq };
  if (layer.typeName === 'Embedding')
    inputs = [{ shape: ['B', 'T'], dtype: 'long', high: c.num_embeddings as number }];
  else if (typeof width === 'number') inputs = [{ shape: ['B', 'T', width], dtype: 'float' }];
  else if (typeof channels === 'number' && /2d$/.test(layer.typeName)) {
    inputs = [{ shape: ['B', channels, 'H', 'W'], dtype: 'float' }];
    Object.assign(dims, { H: 224, W: 224 });
    notes.push('spatial size H = W = 224 assumed');
  } else notes.push('input shape not inferred');
  const flops = layerForwardFlops(layer, seq);
  const perSample = flops && flops.per !== 'output position' ? flops.forward * seq : null;
  return {
    name: `nn.${layer.typeName}`,
    kind: 'layer',
    file,
    line: node.start.line,
    constructorExpression: expression ?? node.text,
    inputs,
    dims,
    estimate: {
      params: totals.unknowns.length ? null : totals.known,
      forwardFlopsPerSample: perSample,
      notes: flops ? [`${flops.formula}; per sample = per token × T`] : [],
    },
    notes,
  };
}

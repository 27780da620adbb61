// Activations from the forward pass of a built module tree: builds the inputs (from the first
// layer the model registers: token ids for an Embedding, images for a Conv, features for a
// Linear), walks `forward` for a precision and shape, and turns the saved storages into
// activation bytes, the backward transient, and, with checkpointing, block inputs plus one
// block's activations. Entry points: walkForward (one walk) and forwardActivationsOf (estimates).
import type { ActivationQuery, ActivationResult, PrecisionId } from '../estimate';
import { Interpreter } from '../modules/interpreter';
import { forEachModule, type ModuleInstance } from '../modules/module-instance';
import type { WorkspaceFiles } from '../modules';
import { fieldOf } from '../analysis/syntax-helpers';
import type { FValue } from './layer-ops';
import { crossEntropy } from './ops';
import { fresh, type FTensor } from './tensor';
import { Trace, type DeviceKind, type RunMode } from './trace';
import { WalkBudget, Walker } from './walker';

/** The result of one forward walk. */
export interface ForwardWalk {
  /** Saved bytes at the end of forward (each storage once). */
  savedBytes: number;
  /** Bytes of the outputs forward returns that autograd does not save (the caller holds them into backward). */
  heldOutputBytes: number;
  /** Largest gradient temporaries in backward. */
  transientBytes: number;
  castWeightParams: number;
  flash: boolean;
  /** Blocks a checkpoint would wrap: their input bytes and saved bytes. */
  blocks: { inputBytes: number; savedBytes: number }[];
  /** What could not be followed (then savedBytes is a lower bound); one line per cause. */
  causes: string[];
  /** What the walk assumed (inputs, loss). */
  notes: string[];
  /** The input's dims after the batch when the model starts with a convolution (an image, C×H×W). */
  imageInput?: number[];
}

/** Children of list containers whose children are all one user type (the repeated blocks). */
function repeatedBlocks(root: ModuleInstance): Set<ModuleInstance> {
  const blocks = new Set<ModuleInstance>();
  forEachModule(root, (m) => {
    if (m.containerKind !== 'list' || m.children.size < 2) return;
    const children = [...m.children.values()];
    if (children.every((c) => c.kind === 'user' && c.typeName === children[0].typeName))
      children.forEach((c) => blocks.add(c));
  });
  return blocks;
}

/** The first catalog layer the model registers that takes the input, and the input it implies. */
function inputFor(
  root: ModuleInstance,
  dims: { batch: number; seq: number; image?: [number, number, number] },
): { t: FTensor; note: string; image?: number[] } | undefined {
  let first: ModuleInstance | undefined;
  forEachModule(root, (m) => {
    if (!first && m.kind === 'layer' && /^(Embedding|Conv[123]d|Linear|LSTM|GRU|RNN)$/.test(m.typeName))
      first = m;
  });
  if (!first) return undefined;
  const c = first.layerConfig ?? {};
  const { batch: b, seq: t } = dims;
  if (first.typeName === 'Embedding')
    return {
      t: fresh({ shape: [b, t], dtype: 'i64', requiresGrad: false }),
      note: `input token ids [${b}, ${t}]`,
    };
  if (/^Conv/.test(first.typeName)) {
    const d = Number(first.typeName[4]);
    const channels = c.in_channels as number;
    const [, h, w] = dims.image ?? [channels, 224, 224];
    const spatial = d === 2 ? [h, w] : d === 1 ? [t] : [16, h, w];
    return {
      t: fresh({ shape: [b, channels, ...spatial], dtype: 'f32', requiresGrad: false }),
      image: [channels, ...spatial],
      note: `input [${[b, channels, ...spatial].join(', ')}]${dims.image ? '' : ' (224×224 by default)'}`,
    };
  }
  const width = (c.in_features ?? c.input_size) as number;
  return {
    t: fresh({ shape: [b, width], dtype: 'f32', requiresGrad: false }),
    note: `input [${b}, ${width}]`,
  };
}

const MODES: Record<PrecisionId, RunMode> = {
  fp32: 'fp32',
  'amp-bf16': 'autocast',
  'amp-fp16': 'autocast',
  bf16: 'half',
  fp16: 'half',
  'bf16-pure': 'half',
};

/** Walks `forward` of `root` once. */
export function walkForward(input: {
  root: ModuleInstance;
  precision: PrecisionId;
  batch: number;
  seq: number;
  image?: [number, number, number];
  workspace?: WorkspaceFiles;
  /** 'cpu' and sdpa false reproduce torch 1.13 on a CPU (the CI check); default CUDA, torch ≥ 2. */
  device?: DeviceKind;
  sdpa?: boolean;
}): ForwardWalk | undefined {
  const { root } = input;
  const made = inputFor(root, { batch: input.batch, seq: input.seq, image: input.image });
  if (!made) return undefined;
  const trace = new Trace(MODES[input.precision], input.device ?? 'cuda', input.sdpa ?? true);
  const walker = new Walker(trace, new Interpreter(input.workspace), repeatedBlocks(root));
  const notes = [made.note];
  const args: FValue[] = [made.t];
  const keywords = new Map<string, FValue>();
  const forward =
    root.cls &&
    new Interpreter(input.workspace)
      .mro(root.cls)
      .map((c) => c.methods.get('forward'))
      .find(Boolean);
  const labels =
    forward &&
    (fieldOf(forward, 'parameters')?.children ?? [])
      .map((p) => fieldOf(p, 'name')?.text ?? p.text)
      .find((n) => /^(targets?|labels|y)$/.test(n));
  if (labels && made.t.dtype === 'i64') {
    keywords.set(labels, fresh({ shape: made.t.shape, dtype: 'i64', requiresGrad: false }));
    notes.push(`\`${labels}\` given`);
  }
  let out: FValue;
  try {
    out = walker.callModule(root, args, keywords);
  } catch (error) {
    if (!(error instanceof WalkBudget)) throw error;
    trace.unknown('forward walk budget exceeded');
    out = { kind: 'none' };
  }
  const first = out.kind === 'seq' ? (out.items[0] as FValue) : out;
  const outputs = (out.kind === 'seq' ? out.items : [out]) as FValue[];
  const heldOutputBytes = outputs
    .filter((o): o is FTensor => o?.kind === 'ftensor' && !trace.saved.has(o.storage.id))
    .reduce((sum, o) => sum + o.storage.bytes, 0);
  if (!trace.lossSeen && first?.kind === 'ftensor' && first.requiresGrad && first.shape.length >= 2) {
    crossEntropy(trace, { logits: first });
    notes.push("cross-entropy on the output as the step's loss");
  }
  return {
    savedBytes: trace.savedBytes(),
    heldOutputBytes,
    transientBytes: trace.transientBytes,
    castWeightParams: trace.castWeightParams,
    flash: trace.flash,
    blocks: trace.blocks,
    causes: [...trace.causes],
    notes,
    imageInput: made.image,
  };
}

/** Activation bytes for a query from one walk (checkpointing keeps block inputs + one block's activations). */
function activationsFromWalk(walk: ForwardWalk, query: ActivationQuery): ActivationResult {
  // The outputs the training step holds (logits) are alive with the saved tensors.
  let bytes = walk.savedBytes + walk.heldOutputBytes;
  let how = 'no checkpointing';
  if (query.recompute !== 'none' && walk.blocks.length) {
    const saved = walk.blocks.reduce((s, b) => s + b.savedBytes, 0);
    const inputs = walk.blocks.reduce((s, b) => s + b.inputBytes, 0);
    const largest = Math.max(...walk.blocks.map((b) => b.savedBytes));
    bytes = bytes - saved + inputs + largest;
    how = `checkpointing ${walk.blocks.length} blocks (their inputs + one block recomputed)`;
  } else if (query.recompute !== 'none') how = 'checkpointing asked, but no repeated block to wrap';
  const lower = walk.causes.length ? ', a lower bound' : '';
  return {
    bytes: Math.round(bytes),
    backwardTransientBytes: Math.round(walk.transientBytes),
    note: `activations: what autograd saves, following forward${walk.flash ? ' (flash/SDPA attention)' : ''}; ${how}${lower}; ${walk.notes.join('; ')}`,
  };
}

/** What the estimates need from the forward walk of a tree. */
export interface ForwardActivations {
  forwardActivations: (query: ActivationQuery) => ActivationResult | undefined;
  castWeightParams?: number;
  flashAttention?: boolean;
  /** Causes of the first walk (fp32), for "lower bound" lines. */
  causes: string[];
  /** The input's dims after the batch when it is an image (C×H×W), for the hover's header. */
  imageInput?: number[];
}

const cache = new WeakMap<ModuleInstance, Map<string, ForwardActivations | undefined>>();

/** Walk-backed activations for a built module, memoised per module, image shape and query; undefined when no input could be built. */
export function forwardActivationsOf(input: {
  root: ModuleInstance;
  imageShape?: [number, number, number];
  workspace?: WorkspaceFiles;
  /** The setup first asked for (the walk reused by the estimates); default fp32, batch 1, 8 tokens. */
  first?: { precision: PrecisionId; batch: number; seq: number };
}): ForwardActivations | undefined {
  const f = input.first;
  const key = `${input.imageShape?.join('x') ?? ''}|${f ? `${f.precision}|${f.batch}|${f.seq}` : ''}`;
  let perRoot = cache.get(input.root);
  if (!perRoot) cache.set(input.root, (perRoot = new Map()));
  if (!perRoot.has(key)) perRoot.set(key, buildForwardActivations(input));
  return perRoot.get(key);
}

function buildForwardActivations(input: {
  root: ModuleInstance;
  imageShape?: [number, number, number];
  workspace?: WorkspaceFiles;
  first?: { precision: PrecisionId; batch: number; seq: number };
}): ForwardActivations | undefined {
  const root = input.root;
  const memo = new Map<string, ForwardWalk | undefined>();
  const walk = (precision: PrecisionId, batch: number, seq: number): ForwardWalk | undefined => {
    const key = `${precision}|${batch}|${seq}`;
    if (!memo.has(key)) {
      let result: ForwardWalk | undefined;
      try {
        result = walkForward({
          root,
          precision,
          batch,
          seq,
          image: input.imageShape,
          workspace: input.workspace,
        });
      } catch {
        // NOTE: a walker bug must not take the estimate down; the formula paths remain.
        result = undefined;
      }
      memo.set(key, result);
    }
    return memo.get(key);
  };
  const probe = input.first
    ? walk(input.first.precision, input.first.batch, input.first.seq)
    : walk('fp32', 1, 8);
  if (!probe || probe.savedBytes === 0) return undefined;
  return {
    forwardActivations: (query) => {
      const w = walk(query.precision, query.microBatch, query.seq);
      return w && activationsFromWalk(w, query);
    },
    castWeightParams: probe.castWeightParams,
    flashAttention: probe.flash,
    causes: probe.causes,
    imageInput: probe.imageInput,
  };
}

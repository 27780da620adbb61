// What a value is, as far as the rules care (a tensor, a module, an optimizer, a plain
// number, ...), and the tables of PyTorch APIs that tell: which calls return tensors,
// which construct modules, optimizers, loaders, samplers and scalers; and the kinds that
// a name's uses reveal (`loss.backward()`, `model.parameters()`).
import type { SyntaxNode } from '../parse/syntax';
import {
  enclosingFunction,
  fieldOf,
  firstPositionalArg,
  methodCall,
  positionalArgs,
  unwrap,
} from './syntax-helpers';
import { isScalerCallable } from './training-step';

const NO_NAMES: ReadonlySet<string> = new Set();

/** The kinds of value the analysis tracks. `unknown` means the analysis cannot tell. */
export type Kind =
  | 'tensor'
  | 'module'
  | 'optimizer'
  | 'scheduler'
  | 'loader'
  | 'dataset'
  | 'sampler'
  | 'scaler'
  | 'event'
  | 'stream'
  | 'device'
  | 'number'
  | 'string'
  | 'numpy'
  | 'collection'
  | 'none'
  | 'unknown';

/** torch.* functions that return tensors (a value computed on the tensor's device). */
const TORCH_TENSOR_FUNCTIONS = new Set(
  (
    'tensor as_tensor from_numpy zeros ones empty full zeros_like ones_like empty_like full_like rand randn randint ' +
    'rand_like randn_like randint_like randperm arange linspace logspace eye cat concat concatenate stack hstack vstack ' +
    'dstack matmul mm bmm addmm baddbmm einsum where masked_select nonzero unique unique_consecutive sum mean std var ' +
    'prod max min amax amin argmax argmin softmax log_softmax sigmoid tanh relu exp log log1p sqrt rsqrt abs clamp ' +
    'clip sort argsort topk gather scatter index_select take chunk split flatten reshape squeeze unsqueeze transpose ' +
    'permute movedim swapaxes narrow tril triu outer dot cross norm cumsum cumprod diff repeat_interleave roll flip ' +
    'isnan isinf isfinite logical_and logical_or logical_not eq ne lt le gt ge isclose any all argwhere ' +
    'multinomial bernoulli normal polar complex real imag view_as_real view_as_complex bucketize searchsorted ' +
    'cdist pdist tensordot kron block_diag cartesian_prod combinations triu_indices tril_indices lerp addcmul ' +
    'addcdiv pow square sin cos erf floor ceil round sign logsumexp count_nonzero bincount histc'
  ).split(' '),
);

/** torch.* functions that return Python scalars or booleans, not tensors. */
const TORCH_SCALAR_FUNCTIONS = new Set([
  // `allclose` and `equal` return a Python bool (and so synchronise to produce it).
  'allclose',
  'equal',
  'is_tensor',
  'numel',
  'is_floating_point',
  'is_grad_enabled',
  'get_default_dtype',
]);

/** Tensor methods whose result is not a tensor. */
export const TENSOR_METHODS_TO_PYTHON: Record<string, Kind> = {
  item: 'number',
  tolist: 'collection',
  numpy: 'numpy',
  size: 'number',
  dim: 'number',
  numel: 'number',
  element_size: 'number',
  nelement: 'number',
  stride: 'collection',
  data_ptr: 'number',
  is_contiguous: 'number',
  get_device: 'number',
  untyped_storage: 'unknown',
  storage: 'unknown',
  type: 'string',
  __len__: 'number',
  backward: 'none',
  register_hook: 'unknown',
  record_stream: 'none',
  copy_: 'tensor',
  allclose: 'number',
  equal: 'number',
  is_nonzero: 'number',
};

/** Tensor attributes whose value is not a tensor. */
export const TENSOR_ATTRIBUTES_NOT_TENSOR: Record<string, Kind> = {
  shape: 'collection',
  dtype: 'unknown',
  device: 'device',
  ndim: 'number',
  is_cuda: 'number',
  requires_grad: 'number',
  is_leaf: 'number',
  layout: 'unknown',
  names: 'collection',
  grad_fn: 'unknown',
};

/** Classes (qualified names) whose instances are not modules but matter to the rules. */
const CONSTRUCTED_KINDS: [RegExp, Kind][] = [
  [/^torch\.optim\.lr_scheduler\./, 'scheduler'],
  [/^torch\.optim\.[A-Z]/, 'optimizer'],
  [/^(bitsandbytes|bnb)\.optim\.[A-Z]/, 'optimizer'],
  [/^(transformers\.)?(AdamW|Adafactor)$/, 'optimizer'],
  [/^torch\.utils\.data\.(DataLoader|dataloader\.DataLoader)$/, 'loader'],
  // torchdata's StatefulDataLoader subclasses torch.utils.data.DataLoader (torchdata docs, "Stateful DataLoader").
  [/^torchdata\.stateful_dataloader\.(stateful_dataloader\.)?StatefulDataLoader$/, 'loader'],
  [/^torch\.utils\.data\.(distributed\.)?DistributedSampler$/, 'sampler'],
  [/^torch\.utils\.data\.[A-Za-z]*Sampler$/, 'sampler'],
  [/^torch\.utils\.data\.(TensorDataset|Dataset|IterableDataset|ConcatDataset|Subset)$/, 'dataset'],
  [/^torch\.(cuda\.)?amp\.(grad_scaler\.)?GradScaler$/, 'scaler'],
  [/^torch\.cuda\.Event$/, 'event'],
  [/^torch\.cuda\.Stream$/, 'stream'],
  [/^torch\.device$/, 'device'],
  [/^torch\.nn\.parallel\.(DistributedDataParallel|DataParallel)$/, 'module'],
  [
    /^torch\.distributed\.fsdp\.(FullyShardedDataParallel|fully_sharded_data_parallel\.FullyShardedDataParallel)$/,
    'module',
  ],
  [/^torch\.nn\.(parameter\.)?(Parameter|Buffer)$/, 'tensor'],
  [/^torch\.nn\.utils\.(clip_grad\.)?(clip_grad_norm_|get_total_norm|parameters_to_vector)$/, 'tensor'],
  [/^torch\.nn\.[A-Z]\w*$/, 'module'],
  [/^torch\.nn\.modules\.\w+\.[A-Z]\w*$/, 'module'],
  [/^torch\.compile$/, 'module'],
  [/^torchvision\.models\.\w+$/, 'module'],
  [/^numpy\./, 'numpy'],
  [/^math\./, 'number'],
];

/**
 * The kind of value returned by calling the qualified name (e.g. `torch.zeros`,
 * `torch.nn.Linear`, `torch.optim.AdamW`); `unknown` when the tables say nothing.
 */
export function kindOfQualifiedCall(qualified: string): Kind {
  let kind = qualifiedCallKinds.get(qualified);
  if (kind === undefined) {
    kind = computeQualifiedCallKind(qualified);
    // NOTE: bounded by the distinct callee names seen, a few thousand at most.
    if (qualifiedCallKinds.size < 50_000) qualifiedCallKinds.set(qualified, kind);
  }
  return kind;
}

/** Memo of {@link kindOfQualifiedCall}: the answer depends on the name alone, and the pattern scan is hot. */
const qualifiedCallKinds = new Map<string, Kind>();

function computeQualifiedCallKind(qualified: string): Kind {
  for (const [pattern, kind] of CONSTRUCTED_KINDS) if (pattern.test(qualified)) return kind;
  const torchFunction = /^torch\.(?:special\.|linalg\.|fft\.)?(\w+)$/.exec(qualified);
  if (torchFunction) {
    if (TORCH_TENSOR_FUNCTIONS.has(torchFunction[1])) return 'tensor';
    if (TORCH_SCALAR_FUNCTIONS.has(torchFunction[1])) return 'number';
  }
  if (/^torch\.nn\.functional\.\w+$/.test(qualified)) return 'tensor';
  if (/^torch\.distributions\./.test(qualified)) return 'unknown';
  return 'unknown';
}

/** Python builtins whose result kind is fixed. */
export const BUILTIN_RESULT_KINDS: Record<string, Kind> = {
  float: 'number',
  int: 'number',
  bool: 'number',
  len: 'number',
  round: 'number',
  abs: 'unknown',
  str: 'string',
  repr: 'string',
  format: 'string',
  list: 'collection',
  dict: 'collection',
  tuple: 'collection',
  set: 'collection',
  sorted: 'collection',
  range: 'collection',
  enumerate: 'collection',
  zip: 'collection',
  isinstance: 'number',
  hasattr: 'number',
  print: 'none',
};

/** Merges the kinds a name may have after two control-flow paths join. */
export function joinKinds(a: Kind | undefined, b: Kind | undefined): Kind {
  if (a === undefined) return b ?? 'unknown';
  if (b === undefined || a === b) return a;
  if (a === 'tensor' || b === 'tensor') return 'tensor';
  if (a === 'module' || b === 'module') return 'module';
  if (a === 'none') return b;
  if (b === 'none') return a;
  return 'unknown';
}

/** Module methods no tensor, optimizer or container has: calling one shows the receiver is a module. */
const MODULE_ONLY_METHODS =
  /^(parameters|named_parameters|named_modules|train|no_sync|register_forward_hook)$/;
/** Every method name whose calls show a kind (see `collectUsageEvidence`). */
const EVIDENCE_METHODS = [
  'backward',
  'manual_backward',
  'scale',
  'parameters',
  'named_parameters',
  'named_modules',
  'train',
  'no_sync',
  'register_forward_hook',
];
/** Calls whose first argument must be a tensor: `x.backward(loss)` (Accelerate, DeepSpeed, Fabric), `scaler.scale(loss)`. */
const TENSOR_ARGUMENT_METHODS = /^(backward|manual_backward|scale)$/;

/** Whether a method call's first argument must be a tensor: `accelerator.backward(loss)`, `scaler.scale(loss)`. */
export function takesTensorArgument(
  method: { receiver: SyntaxNode; name: string },
  receiverKind: Kind | undefined,
): boolean {
  if (!TENSOR_ARGUMENT_METHODS.test(method.name)) return false;
  return method.name !== 'scale' || receiverKind === 'scaler' || /scaler$/i.test(method.receiver.text);
}

/**
 * Kinds shown by how names are used in each scope (function body or module): `loss.backward()`
 * means `loss` holds a tensor, `accelerator.backward(loss)` too, `model.parameters()` means
 * `model` holds a module. Keys are a scope node, then a name (`loss`, `self.model`). The
 * inference consults these only for names whose kind it could not tell otherwise.
 */
export function collectUsageEvidence(
  root: SyntaxNode,
  callNames: {
    namedAny(names: Iterable<string>): readonly SyntaxNode[];
    plainCalls(): readonly SyntaxNode[];
  },
): Map<SyntaxNode, Map<string, Kind>> {
  const evidence = new Map<SyntaxNode, Map<string, Kind>>();
  const note = (name: SyntaxNode | undefined, kind: Kind) => {
    const target = name && unwrap(name);
    if (!target || !isNameOrSelfAttribute(target)) return;
    const scope = enclosingFunction(target) ?? root;
    const names = evidence.get(scope) ?? new Map<string, Kind>();
    if (names.get(target.text) && names.get(target.text) !== kind) names.set(target.text, 'unknown');
    else names.set(target.text, kind);
    evidence.set(scope, names);
  };
  // A name's evidence is one kind or `unknown` whatever order the calls are read in.
  for (const node of callNames.plainCalls()) {
    // `grad_scaler_fn(loss, optimizer)`: a callable that runs backward on its first argument.
    if (isScalerCallable(node, NO_NAMES)) note(firstPositionalArg(node), 'tensor');
  }
  for (const node of callNames.namedAny(EVIDENCE_METHODS)) {
    const method = methodCall(node);
    if (!method) continue;
    const args = positionalArgs(node);
    if (method.name === 'backward' && args.length === 0) note(method.receiver, 'tensor');
    if (args.length > 0 && takesTensorArgument(method, undefined)) note(args[0], 'tensor');
    if (MODULE_ONLY_METHODS.test(method.name)) note(method.receiver, 'module');
  }
  return evidence;
}

function isNameOrSelfAttribute(node: SyntaxNode): boolean {
  if (node.type === 'identifier') return true;
  return node.type === 'attribute' && fieldOf(node, 'object')?.text === 'self';
}

// The record of one forward walk: which storages autograd saves for backward (each counted once,
// as torch.autograd.graph.saved_tensors_hooks sees them), the dtype rules of the precision
// (PyTorch autocast docs op lists), the largest gradient temporaries, the blocks a checkpoint
// would wrap, and the causes of anything that could not be followed.
import { DTYPE_BYTES, fresh, numel, type Dtype, type FTensor } from './tensor';

/** How the model runs: fp32, torch.autocast to a 16-bit type, or cast to 16-bit (`model.to(bf16)`). */
export type RunMode = 'fp32' | 'autocast' | 'half';

/** Where the masks and kernels live: CUDA keeps bool dropout masks; CPU (torch 1.13) a float mask. */
export type DeviceKind = 'cuda' | 'cpu';

/** Saved bytes attributed to one call of a repeated block (for activation checkpointing). */
export interface BlockRecord {
  inputBytes: number;
  savedBytes: number;
}

/** See the file comment. */
export class Trace {
  readonly saved = new Map<number, number>();
  /** Largest simultaneous gradient temporaries seen (bytes). */
  transientBytes = 0;
  /** Parameters autocast casts to 16-bit (its weight cache). */
  castWeightParams = 0;
  flash = false;
  lossSeen = false;
  readonly causes = new Set<string>();
  readonly blocks: BlockRecord[] = [];
  /** Bytes saved while inside the current block. */
  private blockSaved: number | null = null;
  /** Depth of `torch.no_grad()` blocks. */
  noGrad = 0;
  private readonly castCache = new Map<string, FTensor>();
  steps = 0;

  constructor(
    readonly mode: RunMode,
    readonly device: DeviceKind,
    /** torch ≥ 2.0: F.scaled_dot_product_attention and MultiheadAttention's SDPA path exist. */
    readonly sdpa: boolean,
  ) {}

  /** The 16-bit dtype of the mode (autocast and half both use bf16 bytes). */
  get lowDtype(): Dtype {
    return this.mode === 'fp32' ? 'f32' : 'bf16';
  }

  /** The float dtype of new tensors the model creates (parameters' dtype). */
  get paramDtype(): Dtype {
    return this.mode === 'half' ? 'bf16' : 'f32';
  }

  /** Records that autograd saves `t` (once per storage); model state is not an activation. */
  save(t: FTensor | undefined): void {
    if (!t || this.noGrad > 0 || t.storage.modelState || this.saved.has(t.storage.id)) return;
    this.saved.set(t.storage.id, t.storage.bytes);
    if (this.blockSaved !== null) this.blockSaved += t.storage.bytes;
  }

  /** Saves a small new tensor (statistics, logsumexp, indices) of `shape` and `dtype`. */
  saveNew(shape: number[], dtype: Dtype): void {
    this.save(fresh({ shape, dtype, requiresGrad: false }));
  }

  /** Notes the gradient temporaries of an op: its output gradient and input gradient live together. */
  gradTemporaries(bytes: number): void {
    if (this.noGrad === 0) this.transientBytes = Math.max(this.transientBytes, bytes);
  }

  /** Whether ops record anything: a tensor requiring grad flows in and grad mode is on. */
  tracks(...inputs: (FTensor | undefined)[]): boolean {
    return this.noGrad === 0 && inputs.some((t) => t?.requiresGrad);
  }

  /**
   * The input as an op of `policy` sees it: autocast casts float inputs of "lower" ops (matmul,
   * linear, conv, bmm, baddbmm, SDPA) to 16-bit and of "fp32" ops (softmax, log_softmax, norms,
   * losses, exp, log, pow, sum) to fp32; a cast makes a new storage. Casts of one tensor are
   * shared (autocast caches weight casts; activation casts happen once per use, we share them).
   */
  castFor(t: FTensor, policy: 'lower' | 'fp32' | 'promote'): FTensor {
    if (this.mode !== 'autocast' || policy === 'promote' || t.dtype === 'i64' || t.dtype === 'bool') return t;
    const target: Dtype = policy === 'lower' ? this.lowDtype : 'f32';
    if (t.dtype === target) return t;
    const key = `${t.storage.id}:${target}:${t.shape.join('x')}:${t.perm.join(',')}`;
    const hit = this.castCache.get(key);
    if (hit) return hit;
    const cast = fresh({ shape: t.shape, dtype: target, requiresGrad: t.requiresGrad });
    if (t.storage.modelState) cast.storage.bytes = 0; // the weight cache is counted from castWeightParams
    this.castCache.set(key, cast);
    return cast;
  }

  /** Result dtype of an elementwise op on float inputs (type promotion: fp32 wins). */
  promote(...inputs: (FTensor | undefined)[]): Dtype {
    const dtypes = inputs.filter((t): t is FTensor => !!t).map((t) => t.dtype);
    if (dtypes.includes('f32')) return 'f32';
    if (dtypes.includes('bf16')) return 'bf16';
    if (dtypes.includes('f16')) return 'f16';
    return dtypes[0] ?? this.paramDtype;
  }

  /** Bytes of a dropout mask of `shape` for input dtype `dtype`. */
  maskDtype(dtype: Dtype): Dtype {
    // NOTE: torch 1.13 on CPU multiplies by a noise tensor of the input dtype; CUDA's fused
    // native_dropout keeps a bool mask (1 byte).
    return this.device === 'cuda' ? 'bool' : dtype;
  }

  /** Names something the walk could not follow (one line per distinct cause). */
  unknown(cause: string): void {
    this.causes.add(cause);
  }

  /** Enters a repeated block; returns the function that closes it. */
  enterBlock(input: FTensor | undefined): () => void {
    if (this.blockSaved !== null) return () => undefined;
    this.blockSaved = 0;
    return () => {
      this.blocks.push({
        inputBytes: input ? numel(input.shape) * DTYPE_BYTES[input.dtype] : 0,
        savedBytes: this.blockSaved ?? 0,
      });
      this.blockSaved = null;
    };
  }

  /** Total saved bytes, each storage rounded up to the CUDA caching allocator's 512-byte blocks. */
  savedBytes(): number {
    let total = 0;
    for (const bytes of this.saved.values())
      total += this.device === 'cuda' ? Math.ceil(bytes / 512) * 512 : bytes;
    return total;
  }
}

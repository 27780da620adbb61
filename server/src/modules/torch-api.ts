// Which torch APIs exist in which release, so that `hasattr(torch.nn.functional,
// "scaled_dot_product_attention")`, `getattr(nn, "RMSNorm", None)` and `callable(...)` on
// torch names are decided for a given torch version (default: the current release) instead
// of blanking the estimate. Each entry names the release that added it, from the PyTorch
// release notes (github.com/pytorch/pytorch/releases) and the API's page on pytorch.org/docs.

/** The torch release assumed when none is configured (the newest one this table knows). */
export const CURRENT_TORCH_RELEASE = '2.9';

/** Qualified name → the first release that has it. */
const ADDED_IN: Record<string, string> = {
  // 2.0 release notes ("Accelerated PyTorch 2 Transformers"; torch.compile; torch.func).
  'torch.nn.functional.scaled_dot_product_attention': '2.0',
  'torch.compile': '2.0',
  'torch.func': '2.0',
  'torch.backends.cuda.sdp_kernel': '2.0',
  'torch.backends.cuda.flash_sdp_enabled': '2.0',
  'torch.backends.cuda.enable_flash_sdp': '2.0',
  'torch.set_default_device': '2.0',
  // 2.1 release notes: float8 dtypes; LayerNorm/Transformer layers take `bias`.
  'torch.float8_e4m3fn': '2.1',
  'torch.float8_e5m2': '2.1',
  'torch.nn.CircularPad1d': '2.1',
  'torch.nn.CircularPad2d': '2.1',
  'torch.nn.CircularPad3d': '2.1',
  // 2.2 release notes: FlashAttention-2 backend; torch.nn.attention module in 2.3.
  'torch.nn.attention': '2.3',
  'torch.nn.attention.sdpa_kernel': '2.3',
  'torch.nn.attention.SDPBackend': '2.3',
  // 2.4 release notes: nn.RMSNorm and F.rms_norm.
  'torch.nn.RMSNorm': '2.4',
  'torch.nn.functional.rms_norm': '2.4',
  // 2.5 release notes: FlexAttention (prototype).
  'torch.nn.attention.flex_attention': '2.5',
  // Older APIs still probed by model code.
  'torch.nn.functional.silu': '1.7',
  'torch.nn.SiLU': '1.7',
  'torch.nn.functional.mish': '1.9',
  'torch.nn.Mish': '1.9',
  'torch.autocast': '1.10',
  'torch.cuda.amp': '1.6',
  'torch.cuda.is_bf16_supported': '1.10',
  'torch.bfloat16': '1.3',
  'torch.utils.checkpoint': '0.4',
  'torch.nn.functional.gelu': '1.2',
  'torch.nn.GELU': '1.4',
  'torch.nn.functional.softmax': '0.1',
  'torch.nn.functional.layer_norm': '0.4',
  'torch.nn.functional.linear': '0.2',
  'torch.nn.MultiheadAttention': '1.1',
  'torch.nn.Transformer': '1.2',
  'torch.nn.TransformerEncoder': '1.2',
  'torch.nn.TransformerEncoderLayer': '1.2',
  'torch.nn.TransformerDecoder': '1.2',
  'torch.nn.TransformerDecoderLayer': '1.2',
  'torch.nn.Identity': '1.1',
  'torch.nn.Flatten': '1.2',
  'torch.nn.Unflatten': '1.7',
  'torch.distributed.fsdp': '1.11',
};

/** Namespaces this table speaks for: a name under them that is not listed stays undecided. */
const NAMESPACES = new Set(
  Object.keys(ADDED_IN).flatMap((name) => {
    const parts = name.split('.');
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('.'));
  }),
);

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/**
 * Whether torch `version` has `owner.attribute` (`torch.nn.functional` + `silu`): true or
 * false when the table knows it, undefined when it does not.
 */
export function torchHas(input: { owner: string; attribute: string; version?: string }): boolean | undefined {
  const name = `${input.owner}.${input.attribute}`;
  const since = ADDED_IN[name];
  if (since !== undefined) return compareVersions(input.version ?? CURRENT_TORCH_RELEASE, since) >= 0;
  if (NAMESPACES.has(name)) return true;
  return undefined;
}

/** Whether a qualified name is torch's (the table's concern). */
export function isTorchName(name: string): boolean {
  return name === 'torch' || name.startsWith('torch.');
}

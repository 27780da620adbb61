// SL504: `torch.cuda.amp.autocast(...)` / `torch.cuda.amp.GradScaler(...)`, deprecated since
// PyTorch 2.4 in favour of the device-generic `torch.amp` spellings. Version-aware: silent
// when the workspace's torch is known to be older than 2.4, and the fix names the version
// its spelling needs (`torch.amp.GradScaler` exists only from 2.3).
import { fieldOf, hasSplat, positionalArgs, unwrap } from '../analysis/syntax-helpers';
import { torchAtLeast } from '../config/torch-version';
import { calleeName, callsTo } from './distributed-helpers';
import { DEPRECATED_CUDA_AMP } from './callee-patterns';
import { sl504Text } from './messages/sl5';
import type { Fix, Rule } from './types';

/** The torch release that deprecated the `torch.cuda.amp` spellings (FutureWarning). */
const DEPRECATED_SINCE = '2.4';

/**
 * The first torch release with each `torch.amp` spelling. `torch.amp.GradScaler`: added in
 * 2.3 (PyTorch 2.3 docs, `torch/cuda/amp/grad_scaler.py`: "`torch.cuda.amp.GradScaler(args...)`
 * is equivalent to `torch.amp.GradScaler("cuda", args...)`"; absent from `torch.amp` in 1.13
 * through 2.2). `torch.amp.autocast(device_type, ...)`: present in 1.13, the oldest release
 * Shardlens supports (checked with Debian's python3-torch 1.13).
 */
const AMP_SINCE: Record<string, string> = { GradScaler: '2.3', autocast: '1.13' };

/**
 * `torch.cuda.amp.autocast` / `GradScaler` are deprecated (PyTorch 2.4); use `torch.amp.X("cuda",
 * ...)`.
 *
 * ## What it does
 * Flags calls of `torch.cuda.amp.autocast` and `torch.cuda.amp.GradScaler` in any import spelling
 * (`from torch.cuda.amp import autocast, GradScaler` included). Silent when the workspace's
 * PyTorch is known to be older than 2.4 (nothing is deprecated there): the version comes from
 * `shardlens.torchVersion`, `[tool.shardlens] torch-version`, the selected interpreter's torch,
 * or a `torch>=X` pin in `[project] dependencies`.
 *
 * ## Why is this bad?
 * Since PyTorch 2.4 both are deprecated: each call site emits a `FutureWarning`
 * ("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda',
 * args...)` instead.") and they are slated for removal. The device-generic
 * `torch.amp.autocast(device_type, ...)` (present in 1.13, the oldest release Shardlens supports)
 * and `torch.amp.GradScaler(device, ...)` (since 2.3; PyTorch 2.3 docs, `torch.cuda.amp.GradScaler`
 * "is equivalent to `torch.amp.GradScaler("cuda", args...)`") work the same on CUDA, ROCm, XPU and CPU. No performance cost; the risk is a future
 * upgrade that breaks the script.
 *
 * ## Example
 * ```python
 * scaler = torch.cuda.amp.GradScaler()
 * with torch.cuda.amp.autocast(dtype=torch.float16):
 *     loss = model(x, y)
 * ```
 *
 * ## Use instead
 * ```python
 * scaler = torch.amp.GradScaler("cuda")
 * with torch.amp.autocast("cuda", dtype=torch.float16):
 *     loss = model(x, y)
 * ```
 *
 * ## Quick fix
 * For a call spelled `torch.cuda.amp.X(...)` with keyword arguments only, rewrites it to
 * `torch.amp.X("cuda", ...)`, keeping the arguments. No fix for positional arguments (the first
 * positional of `torch.cuda.amp.autocast` is `enabled`, but the second of `torch.amp.autocast` is
 * `dtype`) or for names imported with `from torch.cuda.amp import ...` (the import would have to
 * change too). Each fix's title names the PyTorch it needs (`GradScaler`: 2.3, `autocast`:
 * 1.13); "Fix all" applies it only when the workspace's torch is known to be at least that.
 */
export const sl504: Rule = {
  code: 'SL504',
  name: 'deprecated-cuda-amp',
  category: 'pipeline',
  severity: 'information',
  summary:
    '`torch.cuda.amp.autocast` / `GradScaler` are deprecated (PyTorch 2.4); use `torch.amp.X("cuda", ...)`.',
  check({ model, settings, report }) {
    // NOTE: before 2.4 nothing is deprecated, and `torch.amp.GradScaler` may not exist yet.
    if (torchAtLeast(settings.torchVersion, DEPRECATED_SINCE) === false) return;
    for (const call of callsTo(model, DEPRECATED_CUDA_AMP)) {
      const match = DEPRECATED_CUDA_AMP.qualified.exec(calleeName(model, call)!)!;
      const member = match[2];
      const callee = unwrap(fieldOf(call, 'function')!);
      const args = fieldOf(call, 'arguments');
      const fixes: Fix[] = [];
      // NOTE: positional arguments shift meaning (`autocast(True)` is `enabled`, but the second
      // positional of `torch.amp.autocast` is `dtype`), so only keyword-only calls are rewritten.
      const prefix = /^(\w+)\.cuda\.amp\.(autocast_mode\.|grad_scaler\.)?\w+$/.exec(callee.text);
      if (prefix && args?.type === 'argument_list' && !positionalArgs(call).length && !hasSplat(call)) {
        const hasKeywords = args.children.some((c) => c.type === 'keyword_argument');
        const open = { line: args.start.line, column: args.start.column + 1 };
        fixes.push({
          title: `Use \`${prefix[1]}.amp.${member}("cuda", ...)\` (needs PyTorch ≥ ${AMP_SINCE[member]})`,
          minTorch: AMP_SINCE[member],
          edits: [
            { range: { start: callee.start, end: callee.end }, newText: `${prefix[1]}.amp.${member}` },
            { range: { start: open, end: open }, newText: hasKeywords ? '"cuda", ' : '"cuda"' },
          ],
        });
      }
      report({
        node: call,
        ...sl504Text({ member, since: AMP_SINCE[member] }),
        fixes,
      });
    }
  },
};

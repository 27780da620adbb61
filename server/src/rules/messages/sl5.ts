// Message texts of the SL5xx (input pipeline and precision) rules: a short sentence for the
// Problems panel; the detail keeps the cost and the fix for the hover.
import type { RuleText } from './common';

/** SL501: a DataLoader feeding CUDA without workers and/or pinned memory. */
export function sl501Text(input: { noWorkers: boolean; noPin: boolean }): RuleText {
  const { noWorkers, noPin } = input;
  const missing = [noWorkers ? '`num_workers` is 0' : '', noPin ? '`pin_memory` is off' : '']
    .filter(Boolean)
    .join(' and ');
  const lacks = [noWorkers ? '`num_workers=0`' : '', noPin ? 'no `pin_memory`' : '']
    .filter(Boolean)
    .join(' and ');
  return {
    message: `This DataLoader has ${lacks}, so ${noWorkers ? 'the GPU waits for data' : 'copies cannot overlap'}.`,
    detail:
      `This DataLoader feeds a CUDA device but ${missing}. ` +
      (noWorkers
        ? 'With no workers the training process loads and collates every batch while the GPU waits; set ' +
          '`num_workers` to a few workers per GPU (e.g. 4–8, bounded by CPU cores / GPUs) and ' +
          '`persistent_workers=True`. '
        : '') +
      (noPin
        ? 'Without pinned memory the host-to-device copy stages through pageable memory and ' +
          '`.to(device, non_blocking=True)` cannot overlap; set `pin_memory=True`.'
        : ''),
  };
}

/** SL502: float16 autocast in a training step with no GradScaler. */
export function sl502Text(): RuleText {
  return {
    message: 'float16 autocast without a `GradScaler`: small gradients underflow to zero.',
    detail:
      'float16 autocast in a training step with no `GradScaler`: fp16 cannot represent values below ' +
      '≈6e-8, so small gradients flush to zero and the layers they feed stop learning. Create ' +
      '`scaler = torch.amp.GradScaler("cuda")` (PyTorch ≥ 2.3; `torch.cuda.amp.GradScaler()` before) and ' +
      'use `scaler.scale(loss).backward()`, `scaler.step(optimizer)`, `scaler.update()` — or use ' +
      '`dtype=torch.bfloat16`, which needs no scaler.',
  };
}

/** SL503: a GradScaler with bf16 autocast. */
export function sl503Text(): RuleText {
  return {
    message: 'A `GradScaler` with bf16 autocast adds a pass and a host sync, and fixes nothing.',
    detail:
      "A `GradScaler` with bf16 autocast: bfloat16 has float32's exponent range, so gradients do not underflow " +
      'and scaling fixes nothing, while unscaling and the inf/NaN check add a pass over every gradient and a host ' +
      'sync per step. Drop the scaler (call `loss.backward()` and `optimizer.step()` directly), or enable it only ' +
      'for float16: `GradScaler("cuda", enabled=(dtype == torch.float16))`.',
  };
}

/** SL504: `torch.cuda.amp.autocast` / `GradScaler`, deprecated since PyTorch 2.4. */
export function sl504Text(input: { member: string; since: string }): RuleText {
  const { member, since } = input;
  return {
    message: `\`torch.cuda.amp.${member}\` is deprecated since PyTorch 2.4; use \`torch.amp.${member}\`.`,
    detail:
      `\`torch.cuda.amp.${member}\` is deprecated since PyTorch 2.4 (it emits a FutureWarning): use ` +
      `\`torch.amp.${member}("cuda", ...)\` with the same keyword arguments. \`torch.amp.${member}\` ` +
      `exists since PyTorch ${since}.`,
  };
}

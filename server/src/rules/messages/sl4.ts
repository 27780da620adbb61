// Message texts of the SL4xx (distributed training) rules: a short sentence for the
// Problems panel; the detail keeps the cost, the evidence and the fix for the hover.
import { code, type RuleText } from './common';

/** SL401: `nn.DataParallel`. */
export function sl401Text(): RuleText {
  return {
    message: '`nn.DataParallel` is bound by one process and GPU 0; use DistributedDataParallel.',
    detail:
      '`nn.DataParallel` runs one Python process with a thread per GPU: every step it scatters the batch ' +
      'from GPU 0, copies the whole model to every GPU and gathers outputs and gradients back onto GPU 0, ' +
      'so the GIL and GPU 0 bound the step. PyTorch recommends `DistributedDataParallel` even on one node: ' +
      'one process per GPU (`torchrun --nproc_per_node=N`), `DDP(model.to(local_rank), device_ids=[local_rank])`.',
  };
}

/** SL402: gradient accumulation without `no_sync()` (`how` says what guards the step). */
export function sl402Text(input: { ddp: boolean; how: string }): RuleText {
  const { ddp, how } = input;
  return ddp
    ? {
        message: 'Gradient accumulation on DDP all-reduces every micro-batch; use `model.no_sync()`.',
        detail:
          `Gradient accumulation (${how}) on a DDP model: every \`backward()\` all-reduces all gradients ` +
          `(2Ψ bytes per rank for Ψ parameters), once per micro-batch instead of once per optimizer step. ` +
          `Run the non-final micro-batches under \`model.no_sync()\` (or set ` +
          `\`model.require_backward_grad_sync = is_last_micro_step\`).`,
      }
    : {
        message: 'Gradient accumulation on FSDP reduce-scatters every micro-batch (see `no_sync()`).',
        detail:
          `Gradient accumulation (${how}) on an FSDP model: every \`backward()\` reduce-scatters the ` +
          `gradients, once per micro-batch. \`model.no_sync()\` (FSDP2: \`set_requires_gradient_sync(False)\`) ` +
          `skips that traffic but keeps unsharded gradients in memory until the last micro-batch; choose ` +
          `deliberately.`,
      };
}

/** SL403: an epoch loop without `sampler.set_epoch(epoch)`. */
export function sl403Text(input: { sampler?: string; epoch: string }): RuleText {
  const sampler = input.sampler ?? 'sampler';
  return {
    message: `This epoch loop never calls ${code(`${sampler}.set_epoch()`, '`set_epoch()`', 32)}: every epoch repeats one order.`,
    detail:
      `This epoch loop never calls \`${sampler}.set_epoch(${input.epoch})\`: a \`DistributedSampler\` ` +
      `seeds its shuffle with \`seed + epoch\` and its epoch stays 0, so every epoch replays the same order ` +
      `on every rank. Call \`set_epoch\` at the start of each epoch, before iterating the loader.`,
  };
}

/** SL404: a DataLoader without a sampler in a DDP/FSDP script. */
export function sl404Text(): RuleText {
  return {
    message: 'DataLoader without `sampler=` in a DDP/FSDP script: every rank reads the whole dataset.',
    detail:
      'This DataLoader of a DDP/FSDP script has no `sampler=`: every rank iterates the whole dataset, so an ' +
      'epoch costs N× the compute and, with equal seeds, each rank draws the same batches — the averaged ' +
      "gradient is one GPU's gradient. Pass `sampler=DistributedSampler(dataset)` (and drop `shuffle=True`), " +
      'then call `sampler.set_epoch(epoch)` every epoch.',
  };
}

/** SL405: a model moved to a device after it was wrapped in DDP or FSDP. */
export function sl405Text(input: { receiver: string; kind: 'ddp' | 'fsdp'; wrapLine: number }): RuleText {
  const { receiver, kind, wrapLine } = input;
  const what = kind === 'ddp' ? 'DistributedDataParallel' : 'FSDP';
  const short = kind === 'ddp' ? 'DDP' : 'FSDP';
  return {
    message: `${code(receiver, 'The model')} is moved to a device after the ${short} wrap on line ${wrapLine}; move it first.`,
    detail:
      `\`${receiver}\` is moved to a device after it was wrapped in ${what} (line ${wrapLine}). ` +
      (kind === 'ddp'
        ? 'DDP builds its gradient buckets and broadcasts parameters on the device the module is on when wrapped; ' +
          'move the model first: `DDP(model.to(local_rank), device_ids=[local_rank])`.'
        : 'FSDP flattens and shards the parameters when it wraps them; pass `device_id=torch.cuda.current_device()` ' +
          'to FSDP (or move the model before wrapping) instead.'),
  };
}

/** SL406: `dist.barrier()` in the step (`when`: `on every training step` or `once per log interval`). */
export function sl406BarrierText(input: { when: string }): RuleText {
  return {
    message: `\`dist.barrier()\` ${input.when} makes every rank wait for the slowest one.`,
    detail:
      `\`dist.barrier()\` ${input.when}: every rank waits for the slowest and the host blocks on ` +
      "the GPU, so per-rank jitter becomes everyone's step time. Collectives in backward already keep " +
      'ranks in step; keep barriers to setup, checkpointing and shutdown.',
  };
}

/** SL406: an object collective (`all_gather_object`, ...) in the step. */
export function sl406ObjectText(input: { name: string; when: string }): RuleText {
  const { name, when } = input;
  return {
    message: `${code(`dist.${name}`, 'This collective', 30)} ${when} pickles on the host and blocks twice.`,
    detail:
      `\`dist.${name}\` ${when} pickles objects on the host and runs two blocking ` +
      'collectives (sizes, then bytes) plus host–device copies. Reduce tensors on the device, and only ' +
      'once per log interval.',
  };
}

/** SL406: a per-step all-reduce of a scalar metric. */
export function sl406ScalarText(input: { name: string; tensor: string; readLine: number }): RuleText {
  const { name, tensor, readLine } = input;
  return {
    message: `${code(`dist.${name}`, 'This collective', 30)} every step, read on the host at line ${readLine}: all ranks stall.`,
    detail:
      `\`dist.${name}\` of \`${tensor.slice(0, 40)}\` every training step, and the host reads the result at ` +
      `line ${readLine}: a latency-bound collective plus a host sync, so every rank waits each step. ` +
      'Accumulate the metric on the device and reduce and read it once per log interval.',
  };
}

/** SL407: a training loop that never saves a checkpoint. */
export function sl407Text(): RuleText {
  return {
    message: 'This training loop never saves a checkpoint: a crash restarts the run from step 0.',
    detail:
      'This training loop never saves a checkpoint (no `torch.save`, `dcp.save`, `save_checkpoint` or ' +
      '`save_pretrained` in the file): any crash, preemption or node failure restarts the run from step 0. ' +
      'At scale failures are routine — Llama 3 pre-training saw 419 unexpected interruptions in 54 days on ' +
      '16,384 H100s. Save model, optimizer and step every N steps and resume from the latest.',
  };
}

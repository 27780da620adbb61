// Communication per optimizer step: collective volumes and times. Bus-bandwidth factors and the
// time model follow nccl-tests doc/PERFORMANCE.md; volumes follow the ZeRO paper (§7: 2Ψ for
// DDP/ZeRO-1/2, 3Ψ for ZeRO-3), Megatron-LM (arXiv:1909.08053 §3) and GPipe (bubble (p−1)/m).
import type { ClusterProfile } from './profile';
import type { StrategyId } from './memory';

export type CollectiveKind =
  'AllReduce' | 'ReduceScatter' | 'AllGather' | 'AlltoAll' | 'Broadcast' | 'Reduce' | 'SendRecv';
export type AllReduceAlgorithm = 'ring' | 'tree';

/** One line of the communication estimate. */
export interface CommEntry {
  /** Human-readable, e.g. "AllReduce grads (ring, 8 GPUs)". */
  collective: string;
  /** Bytes each rank sends per optimizer step (nccl-tests: factor × buffer size × count). */
  bytesPerStep: number;
  /** null when no bandwidth is known. */
  secondsPerStep: number | null;
}

/** nccl-tests bus-bandwidth factor: busbw = algbw × factor. */
export function busBandwidthFactor(kind: CollectiveKind, n: number): number {
  if (n <= 1) return 0;
  switch (kind) {
    case 'AllReduce':
      return (2 * (n - 1)) / n;
    case 'ReduceScatter':
    case 'AllGather':
    case 'AlltoAll':
      return (n - 1) / n;
    case 'Broadcast':
    case 'Reduce':
    case 'SendRecv':
      return 1;
  }
}

/** Latency steps of one collective: ring all-reduce 2(n−1), tree 2⌈log2 n⌉, others n−1 (p2p 1). */
export function latencySteps(
  kind: CollectiveKind,
  n: number,
  algorithm: AllReduceAlgorithm = 'ring',
): number {
  if (n <= 1) return 0;
  if (kind === 'SendRecv') return 1;
  if (kind === 'AllReduce') return algorithm === 'tree' ? 2 * Math.ceil(Math.log2(n)) : 2 * (n - 1);
  return n - 1;
}

/**
 * Time of one collective on a buffer of `bytes` (the whole buffer, nccl-tests' S):
 * factor · S / busbw + steps · latency. NCCL's double binary tree reaches the same bus
 * bandwidth as the ring for large buffers, with log-depth latency.
 */
export function collectiveSeconds(opts: {
  kind: CollectiveKind;
  bytes: number;
  n: number;
  busBandwidthGBps: number;
  latencyUs?: number;
  algorithm?: AllReduceAlgorithm;
}): number {
  const { kind, bytes, n, busBandwidthGBps } = opts;
  if (n <= 1 || bytes <= 0) return 0;
  const transfer = (busBandwidthFactor(kind, n) * bytes) / (busBandwidthGBps * 1e9);
  return transfer + latencySteps(kind, n, opts.algorithm) * (opts.latencyUs ?? 0) * 1e-6;
}

/** A group of ranks and the bandwidth its collectives see. */
export interface CommGroup {
  n: number;
  busBandwidthGBps: number | null;
  latencyUs: number;
  where: string;
}

/** The group of `n` ranks: inside one node when n ≤ gpusPerNode, else spanning nodes. */
export function groupFor(profile: ClusterProfile | null, n: number): CommGroup {
  if (!profile) return { n, busBandwidthGBps: null, latencyUs: 0, where: `${n} GPUs` };
  if (n <= profile.gpusPerNode || !profile.interNodeLink) {
    return {
      n,
      busBandwidthGBps: profile.intraNodeBusBandwidthGBps,
      latencyUs: profile.intraNodeLink.latencyUs,
      where: `${n} GPUs, ${profile.intraNodeLink.name}`,
    };
  }
  return {
    n,
    busBandwidthGBps: profile.interNodeBusBandwidthGBps,
    latencyUs: profile.interNodeLink.latencyUs,
    where: `${n} GPUs, ${profile.interNodeLink.name}`,
  };
}

/** One line for `count` collectives of `bytes` each on a group. */
export function commEntry(opts: {
  kind: CollectiveKind;
  what: string;
  bytes: number;
  count: number;
  group: CommGroup;
  algorithm?: AllReduceAlgorithm;
}): CommEntry {
  const { kind, bytes, count, group } = opts;
  const algo = kind === 'AllReduce' ? `${opts.algorithm ?? 'ring'}, ` : '';
  const times = count === 1 ? '' : ` ×${count}`;
  const seconds =
    group.busBandwidthGBps === null
      ? null
      : count *
        collectiveSeconds({
          ...opts,
          n: group.n,
          busBandwidthGBps: group.busBandwidthGBps,
          latencyUs: group.latencyUs,
        });
  return {
    collective: `${kind} ${opts.what} (${algo}${group.where})${times}`,
    bytesPerStep: Math.round(count * busBandwidthFactor(kind, group.n) * bytes),
    secondsPerStep: seconds,
  };
}

export interface DataParallelCommInput {
  strategy: StrategyId;
  /** Parameters whose gradients are synchronised (trainable). */
  params: number;
  /** Bytes per element of the communicated parameters and gradients (2 in bf16/fp16, 4 in fp32). */
  bytesPerElement: number;
  /** Data-parallel ranks. */
  worldSize: number;
  gpusPerNode: number;
  profile: ClusterProfile | null;
  gradAccumSteps?: number;
  /** Default true: gradients synchronised once per step (DDP/FSDP `no_sync`, DeepSpeed boundary). */
  noSync?: boolean;
  algorithm?: AllReduceAlgorithm;
}

/**
 * Data-parallel collectives per optimizer step (per-rank bytes ≈ the ZeRO paper's volumes):
 * DDP / NO_SHARD: AllReduce of the gradients (2Ψ). ZeRO-1/2: ReduceScatter of gradients +
 * AllGather of updated parameters (Ψ + Ψ = 2Ψ). SHARD_GRAD_OP: AllGather in forward +
 * ReduceScatter (2Ψ). ZeRO-3 / FULL_SHARD: AllGather in forward and in backward + ReduceScatter
 * (3Ψ). HYBRID_SHARD: those three inside a node, then an AllReduce of the gradient shard across
 * nodes. Parameter gathers repeat for every micro-batch; gradient syncs once per step with
 * no_sync, else once per micro-batch.
 */
export function dataParallelComm(input: DataParallelCommInput): CommEntry[] {
  const m = Math.max(1, input.gradAccumSteps ?? 1);
  const gradSyncs = input.noSync === false ? m : 1;
  const bytes = input.params * input.bytesPerElement;
  const all = groupFor(input.profile, input.worldSize);
  const algorithm = input.algorithm;
  if (input.worldSize <= 1) return [];
  switch (input.strategy) {
    case 'ddp':
    case 'fsdp-no-shard':
      return [
        commEntry({ kind: 'AllReduce', what: 'grads', bytes, count: gradSyncs, group: all, algorithm }),
      ];
    case 'zero1':
    case 'zero2':
      return [
        commEntry({ kind: 'ReduceScatter', what: 'grads', bytes, count: gradSyncs, group: all }),
        commEntry({ kind: 'AllGather', what: 'params', bytes, count: 1, group: all }),
      ];
    case 'fsdp-grad-op':
      return [
        commEntry({ kind: 'AllGather', what: 'params (forward)', bytes, count: m, group: all }),
        commEntry({ kind: 'ReduceScatter', what: 'grads', bytes, count: gradSyncs, group: all }),
      ];
    case 'zero3':
    case 'fsdp-full':
      return [
        commEntry({ kind: 'AllGather', what: 'params (forward)', bytes, count: m, group: all }),
        commEntry({ kind: 'AllGather', what: 'params (backward)', bytes, count: m, group: all }),
        commEntry({ kind: 'ReduceScatter', what: 'grads', bytes, count: gradSyncs, group: all }),
      ];
    case 'fsdp-hybrid': {
      const shard = Math.min(input.gpusPerNode, input.worldSize);
      const replicas = Math.ceil(input.worldSize / shard);
      const intra = groupFor(input.profile, shard);
      const entries = [
        commEntry({ kind: 'AllGather', what: 'params (forward)', bytes, count: m, group: intra }),
        commEntry({ kind: 'AllGather', what: 'params (backward)', bytes, count: m, group: intra }),
        commEntry({ kind: 'ReduceScatter', what: 'grads', bytes, count: gradSyncs, group: intra }),
      ];
      if (replicas > 1) {
        // One rank per node in each replica group; the gpusPerNode groups share the node's NICs.
        const p = input.profile;
        const perGroupGBps =
          p?.interNodeBusBandwidthGBps != null ? p.interNodeBusBandwidthGBps / shard : null;
        const inter: CommGroup = {
          n: replicas,
          busBandwidthGBps: perGroupGBps,
          latencyUs: p?.interNodeLink?.latencyUs ?? 0,
          where: `${replicas} nodes${p?.interNodeLink ? `, ${p.interNodeLink.name}` : ''}`,
        };
        entries.push(
          commEntry({
            kind: 'AllReduce',
            what: 'grad shard',
            bytes: bytes / shard,
            count: gradSyncs,
            group: inter,
            algorithm,
          }),
        );
      }
      return entries;
    }
  }
}

/**
 * Tensor parallelism (Megatron-LM, arXiv:1909.08053 §3): per layer 2 AllReduces of b·s·h elements
 * in forward and 2 in backward; with sequence parallelism an AllGather + ReduceScatter pair of the
 * same volume replaces each AllReduce. Per micro-batch, × gradAccumSteps.
 */
export function tensorParallelComm(opts: {
  layers: number;
  microBatch: number;
  seq: number;
  hidden: number;
  tensorParallel: number;
  bytesPerElement: number;
  sequenceParallel?: boolean;
  gradAccumSteps?: number;
  profile: ClusterProfile | null;
}): CommEntry[] {
  const t = opts.tensorParallel;
  if (t <= 1) return [];
  const bytes = opts.microBatch * opts.seq * opts.hidden * opts.bytesPerElement;
  const count = 4 * opts.layers * Math.max(1, opts.gradAccumSteps ?? 1);
  const group = groupFor(opts.profile, t);
  if (!opts.sequenceParallel)
    return [commEntry({ kind: 'AllReduce', what: 'TP activations', bytes, count, group })];
  return [
    commEntry({ kind: 'AllGather', what: 'SP activations', bytes, count, group }),
    commEntry({ kind: 'ReduceScatter', what: 'SP activations', bytes, count, group }),
  ];
}

/** GPipe / 1F1B bubble fraction (p − 1)/m for p stages and m micro-batches. */
export function pipelineBubbleFraction(opts: { stages: number; microBatches: number }): number {
  return (opts.stages - 1) / Math.max(1, opts.microBatches);
}

/**
 * Pipeline send/recv per step for an inner stage: each micro-batch sends its b·s·h activations
 * forward and its activation gradients backward (2 transfers per micro-batch per boundary).
 */
export function pipelineComm(opts: {
  stages: number;
  microBatches: number;
  microBatch: number;
  seq: number;
  hidden: number;
  bytesPerElement: number;
  /** Bandwidth between adjacent stages, GB/s (usually the inter-node link per GPU); null if unknown. */
  busBandwidthGBps: number | null;
  latencyUs?: number;
}): CommEntry[] {
  if (opts.stages <= 1) return [];
  const bytes = opts.microBatch * opts.seq * opts.hidden * opts.bytesPerElement;
  const group: CommGroup = {
    n: 2,
    busBandwidthGBps: opts.busBandwidthGBps,
    latencyUs: opts.latencyUs ?? 0,
    where: `${opts.stages} stages`,
  };
  return [
    commEntry({ kind: 'SendRecv', what: 'activations + grads', bytes, count: 2 * opts.microBatches, group }),
  ];
}

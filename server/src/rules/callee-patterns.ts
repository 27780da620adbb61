// The qualified callee names the rules look for, each with every last name (the part after
// the last dot) a name it matches can end with: `callsTo` looks those up in the file's call
// index (analysis/call-names.ts) and resolves only the calls found there.
// test/unit/analysis/call-names.test.ts checks each pair against a scan of every call.

/** A qualified callee name to find, and the last names it can end with. */
export interface CalleePattern {
  /** The qualified name, as `imports.resolve` gives it for the callee. */
  qualified: RegExp;
  /** Matches every last part a name matching `qualified` can have (a superset is fine). */
  lastName: RegExp;
}

/** `torch.nn.parallel.DistributedDataParallel`. */
export const DDP_CLASS: CalleePattern = {
  qualified: /^torch\.nn\.parallel\.(distributed\.)?DistributedDataParallel$/,
  lastName: /^DistributedDataParallel$/,
};

/** FSDP (FSDP1 class and FSDP2's `fully_shard`). */
export const FSDP_CLASS: CalleePattern = {
  qualified:
    /^torch\.distributed\.fsdp\.(fully_sharded_data_parallel\.)?FullyShardedDataParallel$|^torch\.distributed\.(_composable\.)?fsdp\.fully_shard$/,
  lastName: /^(FullyShardedDataParallel|fully_shard)$/,
};

/** `torch.nn.DataParallel`. */
export const DATA_PARALLEL: CalleePattern = {
  qualified: /^torch\.nn\.(parallel\.)?(data_parallel\.)?DataParallel$/,
  lastName: /^DataParallel$/,
};

/** `torch.distributed.init_process_group`. */
export const INIT_PROCESS_GROUP: CalleePattern = {
  qualified: /^torch\.distributed\.init_process_group$/,
  lastName: /^init_process_group$/,
};

/** `torch.utils.data.DataLoader`. */
export const DATA_LOADER: CalleePattern = {
  qualified: /^torch\.utils\.data\.(dataloader\.)?DataLoader$/,
  lastName: /^DataLoader$/,
};

/** `torch.utils.data.distributed.DistributedSampler`. */
export const DISTRIBUTED_SAMPLER: CalleePattern = {
  qualified: /^torch\.utils\.data\.(distributed\.)?DistributedSampler$/,
  lastName: /^DistributedSampler$/,
};

/** A gradient scaler: `torch.amp.GradScaler`, the older `torch.cuda.amp` one, FSDP's `ShardedGradScaler`. */
export const GRAD_SCALER: CalleePattern = {
  qualified:
    /^torch\.(cuda\.amp\.|amp\.|amp\.grad_scaler\.|cuda\.amp\.grad_scaler\.)?GradScaler$|ShardedGradScaler$/,
  lastName: /^GradScaler$|ShardedGradScaler$/,
};

/** `torch.autocast` and its older spellings. */
export const AUTOCAST: CalleePattern = {
  qualified:
    /^torch\.(autocast|amp\.autocast|amp\.autocast_mode\.autocast|cuda\.amp\.autocast|cuda\.amp\.autocast_mode\.autocast)$/,
  lastName: /^autocast$/,
};

/** A container of blocks: `nn.ModuleList`, `nn.Sequential`. */
export const BLOCK_CONTAINER: CalleePattern = {
  qualified: /^torch\.nn\.(ModuleList|Sequential)$/,
  lastName: /^(ModuleList|Sequential)$/,
};

/** Collectives that block the host (SL406). */
export const BLOCKING_COLLECTIVE: CalleePattern = {
  qualified:
    /^torch\.distributed\.(barrier|all_gather_object|broadcast_object_list|gather_object|scatter_object_list|monitored_barrier)$/,
  lastName:
    /^(barrier|all_gather_object|broadcast_object_list|gather_object|scatter_object_list|monitored_barrier)$/,
};

/** Reductions whose result the host may read (SL406). */
export const REDUCE_COLLECTIVE: CalleePattern = {
  qualified: /^torch\.distributed\.(all_reduce|reduce)$/,
  lastName: /^(all_reduce|reduce)$/,
};

/** `torch.cuda.amp`'s deprecated autocast and scaler (SL504); the groups name the member. */
export const DEPRECATED_CUDA_AMP: CalleePattern = {
  qualified: /^torch\.cuda\.amp\.(autocast_mode\.|grad_scaler\.)?(autocast|GradScaler)$/,
  lastName: /^(autocast|GradScaler)$/,
};

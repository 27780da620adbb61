// SL401: `nn.DataParallel` — one process driving every GPU with threads; DDP is faster even
// on a single node, as PyTorch's own documentation says.
import { callsTo } from './distributed-helpers';
import { DATA_PARALLEL } from './callee-patterns';
import type { Rule } from './types';
import { sl401Text } from './messages/sl4';

/**
 * `nn.DataParallel` replicates the model and scatters inputs every step from one process; use DDP.
 *
 * ## What it does
 * Flags construction of `torch.nn.DataParallel` (resolved through the imports: `nn.DataParallel`,
 * `torch.nn.DataParallel`, `from torch.nn import DataParallel`). `isinstance(model,
 * nn.DataParallel)` checks and local classes with the same name stay silent.
 *
 * ## Why is this bad?
 * `DataParallel` is one Python process driving every GPU with a thread each. Every step it
 * scatters the batch from GPU 0, **replicates the whole model onto every GPU** (a broadcast of 4Ψ
 * bytes for Ψ fp32 parameters from GPU 0), runs the replicas in threads that contend for the GIL,
 * gathers all outputs back onto GPU 0 and reduces gradients there, so GPU 0 also carries the
 * gathered logits, the loss and the optimizer. PyTorch's documentation (`torch.nn.DataParallel`,
 * and "CUDA semantics — Use nn.parallel.DistributedDataParallel instead of multiprocessing or
 * nn.DataParallel") says DDP is faster *even on a single machine*: "due to GIL contention across
 * threads, per-iteration replicated model, and additional overhead introduced by scattering inputs
 * and gathering outputs". DDP keeps one process per GPU, broadcasts parameters once, and overlaps
 * a bucketed all-reduce (2Ψ bytes per rank per step, ZeRO paper arXiv:1910.02054 §5) with
 * backward.
 *
 * ## Example
 * ```python
 * model = MyModel()
 * model = nn.DataParallel(model).cuda()
 * for x, y in loader:
 *     loss = F.cross_entropy(model(x.cuda()), y.cuda())
 * ```
 *
 * ## Use instead
 * ```python
 * # launch: torchrun --nproc_per_node=8 train.py
 * dist.init_process_group("nccl")
 * local_rank = int(os.environ["LOCAL_RANK"])
 * torch.cuda.set_device(local_rank)
 * model = DDP(MyModel().to(local_rank), device_ids=[local_rank])
 * sampler = DistributedSampler(dataset)
 * loader = DataLoader(dataset, batch_size=per_gpu_batch, sampler=sampler, num_workers=4, pin_memory=True)
 * ```
 *
 * ## Quick fix
 * None: moving to DDP changes how the script is launched and how data is sharded.
 */
export const sl401: Rule = {
  code: 'SL401',
  name: 'data-parallel',
  category: 'distributed',
  severity: 'warning',
  summary: '`nn.DataParallel` replicates the model and scatters inputs every step from one process; use DDP.',
  check({ model, report }) {
    for (const call of callsTo(model, DATA_PARALLEL)) {
      report({
        node: call,
        ...sl401Text(),
      });
    }
  },
};

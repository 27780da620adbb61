// SL401: `nn.DataParallel` — one process driving every GPU with threads; DDP is faster even
// on a single node, as PyTorch's own documentation says.
import { callsTo } from './distributed-helpers';
import type { Rule } from './types';
import { sl401Text } from './messages/sl4';

const DATA_PARALLEL = /^torch\.nn\.(parallel\.)?(data_parallel\.)?DataParallel$/;

/**
 * ## What it does
 * Flags construction of `torch.nn.DataParallel` (resolved through the imports, so a local
 * class of the same name stays silent; `isinstance(m, nn.DataParallel)` is not a call of it).
 *
 * ## Why is this bad?
 * DataParallel is one Python process with one thread per GPU: every step it scatters the
 * batch from GPU 0, replicates the whole model onto every GPU, gathers the outputs back to
 * GPU 0 and reduces the gradients there. The GIL serialises the threads and GPU 0 carries
 * the gathered outputs, the loss and the optimizer. PyTorch's docs ("Use
 * nn.parallel.DistributedDataParallel instead of multiprocessing or nn.DataParallel")
 * recommend DDP even on a single machine.
 *
 * ## Example
 * ```python
 * model = nn.DataParallel(model).cuda()
 * ```
 *
 * ## Use instead
 * One process per GPU, launched with `torchrun --nproc_per_node=8 train.py`:
 * ```python
 * dist.init_process_group("nccl")
 * local_rank = int(os.environ["LOCAL_RANK"])
 * torch.cuda.set_device(local_rank)
 * model = DDP(model.to(local_rank), device_ids=[local_rank])
 * ```
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

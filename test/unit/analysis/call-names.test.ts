// The call index (analysis/call-names.ts): every call under the last name of what it calls,
// in document order, and callsTo (rules/distributed-helpers.ts) reading it: for every callee
// pattern of rules/callee-patterns.ts, the calls found through the index are the calls a
// scan of every call finds, on a file spelling each pattern's names in several ways and on
// the real-like files of the edit-equivalence test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { buildFileModel, type FileModel } from '../../../server/src/analysis/file-model';
import { fieldOf, unwrap } from '../../../server/src/analysis/syntax-helpers';
import { callsTo } from '../../../server/src/rules/distributed-helpers';
import * as patterns from '../../../server/src/rules/callee-patterns';
import { realLikeFiles } from '../../helpers/edit-equivalence';
import { wasmDir } from '../../helpers/paths';

const SPELLINGS = `import torch
import torch.nn as nn
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.fsdp import FullyShardedDataParallel
from torch.distributed._composable.fsdp import fully_shard as shard
from torch.utils.data import DataLoader as Loader, DistributedSampler
from torch.utils.checkpoint import checkpoint as ckpt
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler
from torch.cuda.amp import autocast, GradScaler

model = DDP(model)
model = torch.nn.parallel.distributed.DistributedDataParallel(model)
model = FullyShardedDataParallel(model)
shard(model)
torch.distributed.fsdp.fully_shard(model)
model = nn.DataParallel(model)
model = torch.nn.parallel.data_parallel.DataParallel(model)
dist.init_process_group("nccl")
loader = Loader(data, sampler=DistributedSampler(data))
loader = torch.utils.data.dataloader.DataLoader(data)
sampler = torch.utils.data.distributed.DistributedSampler(data)
scaler = torch.amp.GradScaler()
scaler = ShardedGradScaler()
scaler = GradScaler()
with torch.autocast("cuda"), autocast(), torch.cuda.amp.autocast_mode.autocast():
    y = ckpt(block, x)
blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(8)])
stack = torch.nn.Sequential(*blocks)
dist.barrier()
dist.all_gather_object(out, obj)
dist.monitored_barrier()
(dist.all_reduce)(loss)
torch.distributed.reduce(loss, 0)
x.synchronize()
`;

async function modelOf(text: string): Promise<FileModel> {
  const parser = await initParser({ wasmDir });
  return buildFileModel({ parsed: parseSource(parser, text), filePath: null });
}

/** The calls whose unwrapped callee resolves to a name `qualified` matches, by reading every call. */
function scan(model: FileModel, qualified: RegExp): string[] {
  return model.nodes.call
    .filter((call) => qualified.test(model.imports.resolve(unwrap(fieldOf(call, 'function')!)) ?? ''))
    .map((call) => `${call.start.line}:${call.text}`);
}

test('the index files a call under its attribute, its name, and the name an import renamed', async () => {
  const model = await modelOf(SPELLINGS);
  const texts = (name: string) => model.callNames.named(name).map((call) => call.text);
  assert.deepEqual(texts('DistributedDataParallel'), [
    'DDP(model)',
    'torch.nn.parallel.distributed.DistributedDataParallel(model)',
  ]);
  assert.deepEqual(texts('fully_shard'), ['shard(model)', 'torch.distributed.fsdp.fully_shard(model)']);
  assert.deepEqual(texts('shard'), ['shard(model)']);
  assert.deepEqual(texts('all_reduce'), ['(dist.all_reduce)(loss)']);
  assert.deepEqual(texts('no_such_name'), []);
  // Under two names asked for together, a renamed call comes once, in document order.
  const both = model.callNames.namedAny(['checkpoint', 'ckpt', 'barrier']).map((call) => call.text);
  assert.deepEqual(both, ['ckpt(block, x)', 'dist.barrier()']);
});

test('callsTo through the index finds what a scan of every call finds, for every callee pattern', async () => {
  const files = [{ name: 'spellings', text: SPELLINGS }, ...realLikeFiles()];
  const entries = Object.entries(patterns) as [string, patterns.CalleePattern][];
  assert.ok(entries.length >= 12, 'every pattern of callee-patterns.ts is checked');
  const spelled = await modelOf(SPELLINGS);
  for (const [name, pattern] of entries) {
    // Each pattern is spelled in SPELLINGS, so a last name missing from it would drop a call here.
    assert.ok(scan(spelled, pattern.qualified).length > 0, `${name} is spelled in SPELLINGS`);
    for (const file of files) {
      const model = await modelOf(file.text);
      const found = callsTo(model, pattern).map((call) => `${call.start.line}:${call.text}`);
      assert.deepEqual(found, scan(model, pattern.qualified), `${name} on ${file.name}`);
    }
  }
});

// Seeded generator of realistic PyTorch training code for the benchmarks and the
// robustness tests: model classes, config dataclasses, DDP setup, training loops with
// `.item()`, logging branches, eval loops, views and f-strings, varied by a seed.

/** A small, fast, seeded PRNG (mulberry32); returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Helpers over a seeded PRNG. */
export class Dice {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  /** An integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const ACTIVATIONS = ['nn.GELU()', 'nn.ReLU()', 'nn.SiLU()', 'nn.Tanh()'];
const NORMS = ['nn.LayerNorm', 'nn.BatchNorm1d', 'nn.RMSNorm'];
const NAMES = ['Block', 'Mixer', 'Encoder', 'Decoder', 'Expert', 'Attention', 'FeedForward', 'Adapter'];
const PREFIXES = ['Causal', 'Sparse', 'Gated', 'Residual', 'Shard', 'Fused', 'Tiny', 'Deep'];
const OPTIMIZERS = ['torch.optim.AdamW', 'torch.optim.SGD', 'torch.optim.Adam'];

function header(dice: Dice): string[] {
  const lines = [
    '# Generated training script (Shardlens benchmark corpus).',
    'import math',
    'import os',
    'import time',
    'from dataclasses import dataclass',
    '',
    'import torch',
    'import torch.nn as nn',
    'import torch.nn.functional as F',
  ];
  if (dice.chance(0.7)) {
    lines.push('import torch.distributed as dist');
    lines.push('from torch.nn.parallel import DistributedDataParallel as DDP');
  }
  if (dice.chance(0.4)) lines.push('from torch.utils.data import DataLoader, DistributedSampler');
  lines.push('', '');
  return lines;
}

function configBlock(dice: Dice, id: number): string[] {
  const lines = ['@dataclass', `class Config${id}:`];
  const fields = [
    ['n_layer', dice.int(2, 48)],
    ['n_head', dice.pick([4, 8, 12, 16, 32])],
    ['n_embd', dice.pick([256, 512, 768, 1024, 2048, 4096])],
    ['vocab_size', dice.pick([32000, 50304, 128256])],
    ['block_size', dice.pick([512, 1024, 2048, 4096])],
    ['dropout', dice.pick([0.0, 0.1, 0.2])],
  ] as const;
  for (const [name, value] of fields) {
    const type = Number.isInteger(value) ? 'int' : 'float';
    lines.push(`    ${name}: ${type} = ${type === 'float' ? value.toFixed(1) : value}`);
  }
  if (dice.chance(0.5)) lines.push(`    bias: bool = ${dice.pick(['True', 'False'])}`);
  lines.push('', '');
  return lines;
}

function moduleBlock(dice: Dice, id: number): string[] {
  const name = `${dice.pick(PREFIXES)}${dice.pick(NAMES)}${id}`;
  const hidden = dice.pick([128, 256, 512, 768, 1024]);
  const layers = dice.int(1, 6);
  const lines = [
    `class ${name}(nn.Module):`,
    `    """${dice.pick(['A residual block', 'Multi-head attention', 'A gated MLP', 'An expert layer'])} (#${id})."""`,
    '',
    `    def __init__(self, dim: int = ${hidden}, n_layers: int = ${layers}, dropout: float = 0.1):`,
    '        super().__init__()',
    `        self.norm = ${dice.pick(NORMS)}(dim)`,
    '        self.proj_in = nn.Linear(dim, 4 * dim, bias=False)',
    '        self.proj_out = nn.Linear(4 * dim, dim)',
    `        self.act = ${dice.pick(ACTIVATIONS)}`,
    '        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(n_layers)])',
    '        self.drop = nn.Dropout(dropout)',
  ];
  if (dice.chance(0.4)) lines.push(`        self.embed = nn.Embedding(${dice.pick([32000, 50304])}, dim)`);
  if (dice.chance(0.3))
    lines.push("        self.register_buffer('mask', torch.tril(torch.ones(1024, 1024)))");
  lines.push('', '    def forward(self, x):', '        b, t, c = x.size()');
  const body = dice.int(2, 6);
  for (let i = 0; i < body; i++) {
    lines.push(
      dice.pick([
        '        h = self.act(self.proj_in(self.norm(x)))',
        '        x = x + self.drop(self.proj_out(h))',
        '        q = x.view(b, t, 4, c // 4).transpose(1, 2)',
        '        y = q.transpose(1, 2).contiguous().view(b, t, c)',
        '        x = x.permute(0, 2, 1).reshape(b, c, t).permute(0, 2, 1)',
        '        att = (q @ q.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))',
        '        att = F.softmax(att.float(), dim=-1).type_as(x)',
        '        for layer in self.layers:\n            x = x + layer(x)',
        "        if self.training and x.isnan().any():  # a sync, on purpose\n            raise RuntimeError('nan in activations')",
      ]),
    );
  }
  lines.push('        return x', '', '');
  return lines;
}

function helperBlock(dice: Dice, id: number): string[] {
  return dice.pick([
    [
      `def get_lr_${id}(it, warmup_iters=2000, lr_decay_iters=600000, max_lr=6e-4, min_lr=6e-5):`,
      '    if it < warmup_iters:',
      '        return max_lr * (it + 1) / (warmup_iters + 1)',
      '    if it > lr_decay_iters:',
      '        return min_lr',
      '    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)',
      '    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))',
      '    return min_lr + coeff * (max_lr - min_lr)',
      '',
      '',
    ],
    [
      `def setup_distributed_${id}():`,
      "    rank = int(os.environ.get('RANK', 0))",
      "    world_size = int(os.environ.get('WORLD_SIZE', 1))",
      "    dist.init_process_group(backend='nccl', rank=rank, world_size=world_size)",
      "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))",
      '    return rank, world_size',
      '',
      '',
    ],
    [
      `def collate_${id}(batch):`,
      "    xs = torch.stack([item['input_ids'] for item in batch])",
      "    ys = torch.stack([item['labels'] for item in batch])",
      '    return xs.pin_memory(), ys.pin_memory()',
      '',
      '',
    ],
    [
      `def estimate_loss_${id}(model, loader, eval_iters=200):`,
      '    out = {}',
      '    model.eval()',
      '    with torch.no_grad():',
      '        losses = torch.zeros(eval_iters)',
      '        for k, (x, y) in enumerate(loader):',
      '            logits = model(x)',
      '            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))',
      '            losses[k] = loss.item()',
      "    out['val'] = losses.mean()",
      '    model.train()',
      '    return out',
      '',
      '',
    ],
  ]);
}

function trainBlock(dice: Dice, id: number, modelName: string): string[] {
  const optimizer = dice.pick(OPTIMIZERS);
  const lines = [`def train_${id}(config, loader, device='cuda'):`, `    model = ${modelName}().to(device)`];
  if (dice.chance(0.6)) lines.push('    model = DDP(model, device_ids=[int(os.environ["LOCAL_RANK"])])');
  lines.push(
    `    optimizer = ${optimizer}(model.parameters(), lr=${dice.pick(['3e-4', '1e-3', '6e-4'])})`,
    "    scaler = torch.cuda.amp.GradScaler(enabled=(config.dtype == 'float16'))",
    '    t0 = time.time()',
    `    for step, (x, y) in enumerate(loader):`,
    '        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)',
    "        with torch.autocast(device_type='cuda', dtype=torch.bfloat16):",
    '            logits = model(x)',
    '            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))',
    '        scaler.scale(loss).backward()',
  );
  if (dice.chance(0.5)) lines.push('        total_loss += loss.item()  # sync every step');
  if (dice.chance(0.4))
    lines.push(
      '        print(f"step {step}: loss {loss.item():.4f}, lr {optimizer.param_groups[0][\'lr\']}")',
    );
  if (dice.chance(0.3)) lines.push('        if torch.isnan(loss):\n            break');
  lines.push(
    '        scaler.unscale_(optimizer)',
    '        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)',
    '        scaler.step(optimizer)',
    '        scaler.update()',
    '        optimizer.zero_grad(set_to_none=True)',
    `        if step % ${dice.pick([10, 50, 100])} == 0:`,
    '            dt = time.time() - t0',
    "            print(f'iter {step}: loss {loss.item():.4f}, time {dt * 1000:.2f}ms')",
    '            t0 = time.time()',
    '    return model',
    '',
    '',
  );
  return lines;
}

/** Generates about `lines` lines of training code (never fewer), deterministic per `seed`. */
export function generateTrainingFile(input: { lines: number; seed: number }): string {
  const dice = new Dice(input.seed);
  const out = header(dice);
  let id = 0;
  let lastModel = 'nn.Identity';
  while (out.length < input.lines) {
    id++;
    const kind = dice.next();
    if (kind < 0.15) out.push(...configBlock(dice, id));
    else if (kind < 0.55) {
      const block = moduleBlock(dice, id);
      lastModel = /^class (\w+)/.exec(block[0])![1];
      out.push(...block);
    } else if (kind < 0.75) out.push(...helperBlock(dice, id));
    else out.push(...trainBlock(dice, id, lastModel));
  }
  return out.join('\n').split('\n').slice(0, Math.max(input.lines, 1)).join('\n') + '\n';
}

/**
 * `text` with blocks of comment lines put in, as long notes and commented-out code sit in real
 * files: after each line `every` lines apart (from line `first`), `min` to `max` comment lines at
 * the next line's indentation, one level less or column 0, with a blank line or a `# noqa` among
 * them now and then. Never after a line continued by a backslash.
 */
export function withCommentBlocks(
  text: string,
  options: { seed: number; first: number; every: number; min: number; max: number },
): string {
  const dice = new Dice(options.seed);
  const lines = text.split('\n');
  const out: string[] = [];
  lines.forEach((line, k) => {
    out.push(line);
    if (k < options.first || (k - options.first) % options.every !== 0) return;
    if (line.endsWith('\\') || k + 1 >= lines.length) return;
    const next = /^[ \t]*/.exec(lines[k + 1])![0];
    const indent = dice.pick([next, next, next.slice(4), '']);
    const count = dice.int(options.min, options.max);
    for (let n = 0; n < count; n++) {
      if (dice.chance(0.08)) out.push('');
      out.push(
        dice.chance(0.03)
          ? `${indent}# noqa: SL101`
          : `${indent}# note ${n}: why the step below is shaped so`,
      );
    }
  });
  return out.join('\n');
}

// Generates a file that is mostly one large trainer class, shaped like the large classes of
// public training code (an inference context or a trainer thousands of lines long): dozens
// of methods, some decorated, training and evaluation loops with host syncs, section
// comments at the body's indentation and at column 0, a decorated class, and module-level
// code after it. Such a class is parsed member by member when the text has a syntax error
// (server/src/parse/definition-chunks.ts); the equivalence test and the benchmark type into it.
import { Dice } from './generate';

/** One method of the trainer, numbered `id`, in one of several shapes. */
function method(dice: Dice, id: number): string[] {
  const shapes: (() => string[])[] = [
    () => [
      `    def train_step_${id}(self, batch):`,
      '        inputs, targets = batch',
      '        inputs = inputs.to(self.device, non_blocking=True)',
      '        targets = targets.to(self.device, non_blocking=True)',
      '        logits = self.model(inputs)',
      '        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))',
      '        loss.backward()',
      '        self.optimizer.step()',
      '        self.optimizer.zero_grad(set_to_none=True)',
      '        return loss',
    ],
    () => [
      `    def fit_${id}(self, epochs: int = ${dice.int(1, 90)}):`,
      '        total = 0.0',
      '        for epoch in range(epochs):',
      '            for step, batch in enumerate(self.loader):',
      `                loss = self.train_step_${Math.max(1, id - 1)}(batch)`,
      '                total += loss.item()',
      '                if step % self.log_every == 0:',
      "                    print(f'epoch {epoch} step {step} loss {loss.item():.4f}')",
      '        return total',
    ],
    () => [
      '    @torch.no_grad()',
      `    def evaluate_${id}(self, loader):`,
      '        self.model.eval()',
      '        correct = torch.zeros((), device=self.device)',
      '        for inputs, targets in loader:',
      '            logits = self.model(inputs.to(self.device))',
      '            correct += (logits.argmax(dim=-1) == targets.to(self.device)).sum()',
      '        self.model.train()',
      '        return correct.item() / len(loader.dataset)',
    ],
    () => [
      '    @property',
      `    def world_size_${id}(self) -> int:`,
      '        # One process when not launched with torchrun.',
      '        return dist.get_world_size() if dist.is_initialized() else 1',
    ],
    () => [
      `    def save_${id}(self, path):`,
      '        state = {',
      "            'model': self.model.state_dict(),",
      "            'optimizer': self.optimizer.state_dict(),",
      `            'step': ${dice.int(0, 10_000)},`,
      '        }',
      '        if self.rank == 0:',
      '            torch.save(state, path)',
      '        dist.barrier()',
    ],
    () => [
      '    @staticmethod',
      `    def lr_at_${id}(step, warmup=${dice.pick([100, 2000, 500])}, peak=${dice.pick(['3e-4', '6e-4', '1e-3'])}):`,
      '        """Linear warm-up, then cosine decay."""',
      '        if step < warmup:',
      '            return peak * step / warmup',
      '        progress = min(1.0, (step - warmup) / 100_000)',
      '        return 0.5 * peak * (1 + math.cos(math.pi * progress))',
    ],
    () => [
      `    def project_${id}(self, hidden):`,
      '        b, t, c = hidden.size()',
      '        heads = hidden.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)',
      '        merged = heads.transpose(1, 2).contiguous().view(b, t, c)',
      '        return self.proj(merged)',
    ],
  ];
  return [...dice.pick(shapes)(), ''];
}

/** About `methods` methods of one trainer class, with a little module-level code before and after. */
export function generateTrainerFile(input: { methods: number; seed: number }): string {
  const dice = new Dice(input.seed);
  const lines = [
    '"""A trainer for a sequence model (generated for tests)."""',
    'import math',
    '',
    'import torch',
    'import torch.distributed as dist',
    'import torch.nn.functional as F',
    'from torch.nn.parallel import DistributedDataParallel as DDP',
    '',
    'from registry import register_trainer',
    '',
    '',
    `@register_trainer('seq-${input.seed}')`,
    'class SequenceTrainer:',
    '    """Runs the training loop, evaluation and checkpoints on one rank."""',
    '',
    `    log_every = ${dice.pick([10, 50, 100])}`,
    '',
    '    def __init__(self, model, optimizer, loader, device, rank=0):',
    '        self.model = DDP(model.to(device), device_ids=[device])',
    '        self.optimizer = optimizer',
    '        self.loader = loader',
    '        self.device = device',
    '        self.rank = rank',
    '        self.n_head = 8',
    '        self.proj = torch.nn.Linear(512, 512)',
    '',
  ];
  for (let id = 1; id <= input.methods; id++) {
    if (dice.chance(0.08)) lines.push('    # ' + '-'.repeat(dice.int(20, 60)), '');
    if (dice.chance(0.04)) lines.push('# ' + '='.repeat(dice.int(20, 60)));
    lines.push(...method(dice, id));
  }
  lines.push(
    '',
    'DEFAULT_TRAINER = SequenceTrainer',
    '',
    '',
    'def main():',
    '    trainer = DEFAULT_TRAINER(None, None, [], "cuda")',
    '    trainer.fit_1()',
    '',
    '',
    "if __name__ == '__main__':",
    '    main()',
    '',
  );
  return lines.join('\n');
}

// Generates a training script whose work is done by a few long functions, shaped like the
// large public training scripts (a `train` or `pretrain` function hundreds of lines long):
// set-up statements, calls spread over several lines, `if`/`elif`/`else` and
// `try`/`except`/`finally` chains, loops with host syncs, nested and decorated helper
// functions, comments at the body's indentation and at column 0, a docstring, a
// triple-quoted string whose lines start at column 0, and a continued line. Such a function
// is parsed statement group by statement group when the text has a syntax error
// (server/src/parse/definition-chunks.ts); the equivalence test types into it.
import { Dice } from './generate';

/** One piece of a long function's body (indented by `pad`), numbered `id`, in one of several shapes. */
function piece(dice: Dice, id: number, pad: string): string[] {
  const shapes: (() => string[])[] = [
    () => [`x${id} = torch.randn(${dice.int(2, 64)}, ${dice.int(2, 64)}, device=device)`],
    () => [
      `scheduler_${id} = torch.optim.lr_scheduler.OneCycleLR(`,
      '    optimizer,',
      `    max_lr=${dice.pick(['3e-4', '1e-3'])},`,
      '    total_steps=args.steps,',
      ')',
    ],
    () => [
      `if args.mode == 'a${id}':`,
      `    width = ${dice.int(1, 9)}`,
      `elif args.mode == 'b${id}':`,
      '    width = 2 * args.width',
      'else:',
      '    width = args.width',
    ],
    () => [
      'try:',
      `    state = torch.load(args.resume_${id}, map_location='cpu')`,
      '    model.load_state_dict(state)',
      'except FileNotFoundError:',
      '    state = None',
      'finally:',
      '    dist.barrier()',
    ],
    () => [
      'for step, (inputs, targets) in enumerate(loader):',
      '    inputs = inputs.to(device, non_blocking=True)',
      '    loss = F.cross_entropy(model(inputs), targets.to(device))',
      '    loss.backward()',
      '    optimizer.step()',
      '    optimizer.zero_grad(set_to_none=True)',
      `    if step % ${dice.pick([10, 50, 100])} == 0:`,
      "        print(f'step {step} loss {loss.item():.4f}')",
    ],
    () => [
      '@torch.no_grad()',
      `def evaluate_${id}(loader):`,
      '    correct = 0',
      '    for inputs, targets in loader:',
      '        correct += (model(inputs).argmax(-1) == targets).sum()',
      '    return correct.item()',
    ],
    () => [`# ${'-'.repeat(dice.int(10, 40))} section ${id}`],
    () => ['|# ' + '='.repeat(dice.int(10, 40)), `total_${id} = 0`],
    () => [
      `with torch.autocast(device_type='cuda', dtype=torch.bfloat16):`,
      '    hidden = model(x)',
      `    hidden = hidden.transpose(1, 2).reshape(-1, ${dice.int(2, 64)})`,
    ],
    () => [`usage_${id} = '''`, '|Usage:', '|  train.py --steps N', "|'''"],
    () => [`scale_${id} = args.width * \\`, '    args.depth'],
    () => [
      `while step_${id} < args.steps:`,
      `    step_${id} += 1`,
      '    grads = [p.grad for p in model.parameters() if p.grad is not None]',
      '    norm = torch.norm(torch.stack([g.norm() for g in grads]))',
      '    if norm.item() > args.clip:',
      '        continue',
    ],
  ];
  // A line marked with `|` starts at column 0 (a comment, or a string's lines).
  return dice
    .pick(shapes)()
    .map((line) => (line.startsWith('|') ? line.slice(1) : pad + line));
}

/** A function of `pieces` pieces named `name`, after `decorators`, `def` or `async def`. */
function longFunction(
  dice: Dice,
  name: string,
  pieces: number,
  decorators: string[] = [],
  keyword = 'def',
): string[] {
  const lines = [
    ...decorators,
    `${keyword} ${name}(`,
    '    args,',
    '    model,',
    '    loader,',
    '    optimizer,',
    '):',
    `    """${name}: the loop over the data, generated for tests."""`,
    "    device = torch.device('cuda', args.local_rank)",
  ];
  for (let id = 1; id <= pieces; id++) lines.push(...piece(dice, id, '    '));
  lines.push('    return model', '', '');
  return lines;
}

/** A training script of three long functions (one decorated, one async) and module-level code. */
export function generateLongFunctionFile(input: { pieces: number; seed: number }): string {
  const dice = new Dice(input.seed);
  return [
    '"""A training script (generated for tests)."""',
    'import torch',
    'import torch.distributed as dist',
    'import torch.nn.functional as F',
    '',
    '',
    ...longFunction(dice, 'pretrain', input.pieces),
    ...longFunction(dice, 'finetune', input.pieces, ['@torch.no_grad()']),
    ...longFunction(dice, 'serve', input.pieces, [], 'async def'),
    "if __name__ == '__main__':",
    '    pretrain(None, None, [], None)',
    '',
  ].join('\n');
}

// Message texts of the SL2xx (layout) and SL3xx (memory and checkpointing) rules: a short
// sentence for the Problems panel; the detail keeps the evidence and the fix for the hover.
import { code, type RuleText } from './common';

/**
 * SL201: `.view()` on a tensor that is not contiguous. `definite` says it always raises;
 * `cause` is the op that broke contiguity (e.g. `transpose(1, 2)`); `detail` is the full
 * explanation the rule composed (shape, dims, strides).
 */
export function sl201Text(input: { definite: boolean; cause?: string; detail: string }): RuleText {
  const after = input.cause ? ` after ${code(input.cause, 'a layout change', 24)}` : '';
  return {
    message: input.definite
      ? `\`.view()\` raises: the tensor is not contiguous${after}; use \`.reshape()\`.`
      : `\`.view()\` may raise on a non-contiguous tensor${after}; try \`.reshape()\`.`,
    detail: input.detail,
  };
}

/**
 * SL201 for a tensor built from untyped parameters, judged at every rank the code allows:
 * `definite` when the view raises at all of them.
 */
export function sl201ParameterText(input: {
  definite: boolean;
  parameters: string[];
  detail: string;
}): RuleText {
  const names = input.parameters.join(', ');
  const from = code(names, 'its parameters', 16);
  return {
    message: input.definite
      ? `\`.view()\` raises at every rank ${from} can have: not contiguous; use \`.reshape()\`.`
      : `\`.view()\` may raise, depending on the ranks or sizes of ${from}; try \`.reshape()\`.`,
    detail: input.detail,
  };
}

/** SL301: a deep stack of blocks without activation checkpointing. */
export function sl301Text(input: { stackName: string; depth: string | number }): RuleText {
  const { stackName, depth } = input;
  return {
    message:
      `${code(stackName, 'This stack')} holds ${code(String(depth), 'all its', 16)} blocks' activations ` +
      'with no checkpointing.',
    detail:
      `\`${stackName}\` stacks ${depth} blocks and every block's activations stay in memory ` +
      `until backward: about sbh(34 + 5as/h) bytes per transformer layer (Korthikanti et al. 2022), ` +
      `versus 2sbh with activation checkpointing, for about one extra forward pass. Wrap the block call in ` +
      `\`torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)\` when activations limit the batch or sequence.`,
  };
}

/** SL302: `checkpoint(...)` without `use_reentrant=`. */
export function sl302Text(): RuleText {
  return {
    message: '`checkpoint` without `use_reentrant=` warns, and may compute no parameter gradients.',
    detail:
      '`checkpoint` without `use_reentrant=`: PyTorch warns (and will raise) and the implicit reentrant ' +
      'variant computes no parameter gradients when no input requires grad. Pass `use_reentrant=False` ' +
      '(the recommended variant).',
  };
}

/** SL303: `use_cache=True` while gradient checkpointing is on. */
export function sl303Text(): RuleText {
  return {
    message: '`use_cache=True` with gradient checkpointing keeps the KV memory it should save.',
    detail:
      '`use_cache=True` while gradient checkpointing is enabled: in training the KV cache keeps every ' +
      "layer's keys and values, the memory checkpointing is meant to save (Transformers overrides it with a " +
      'warning; other models keep it). Set `use_cache=False` for training.',
  };
}

/** SL304: a loss accumulated with its autograd graph (`value` is the accumulated expression, clipped). */
export function sl304Text(input: { name: string; value: string }): RuleText {
  const { name, value } = input;
  return {
    message: `${code(name, 'The total')} keeps every step's autograd graph alive, so memory grows each step.`,
    detail:
      `\`${name}\` accumulates \`${value}\`, a tensor that still holds its autograd graph: ` +
      `every step's graph stays reachable from \`${name}\`, so memory grows each step until out-of-memory. ` +
      `Accumulate \`${value}.detach()\` (stays on the device; call \`.item()\` only when logging).`,
  };
}

/** SL305: a tensor with its graph appended to a list every step. */
export function sl305Text(input: { list: string; value: string }): RuleText {
  const { list, value } = input;
  return {
    message: `${code(`${list}.append()`, 'This append', 28)} keeps each step's autograd graph, so memory grows.`,
    detail:
      `\`${list}.append(${value})\` keeps a tensor that still holds its autograd graph, once per step: ` +
      `every step's graph stays alive in \`${list}\` and memory grows until out-of-memory. ` +
      `Append \`${value}.detach()\` (or \`.detach().cpu()\` to keep it off the GPU).`,
  };
}

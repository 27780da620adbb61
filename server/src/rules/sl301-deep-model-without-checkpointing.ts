// SL301: a deep nn.Module (a stack of ≥ 8 blocks, or a depth read from a config) whose
// forward loops over its blocks, with no activation checkpointing anywhere in the file.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, positionalArgs, unwrap, walk } from '../analysis/syntax-helpers';
import { blockLoops, blockStacks, isModuleClass, usesActivationCheckpointing } from './memory-helpers';
import type { Fix, Rule } from './types';
import type { FileModel } from '../analysis/file-model';
import { sl301Text } from './messages/sl2-sl3';
import { checkpointedElsewhere } from './checkpointing-elsewhere';
import { perModel } from '../analysis/per-model';

/**
 * A deep model loops over its blocks with no activation checkpointing anywhere in the file.
 *
 * ## What it does
 * Flags the `for block in self.blocks:` loop in the `forward` of an `nn.Module` subclass whose
 * blocks are built as `nn.ModuleList([Block(...) for _ in range(n)])` or `nn.Sequential(*[...])`
 * (also as a keyword of `nn.ModuleDict(dict(h=...))`, as nanoGPT does) with `n` a literal ≥ 8 or a
 * value from a config or argument, when nothing in the file turns activation checkpointing on: no
 * `torch.utils.checkpoint` import or call, `checkpoint_sequential`,
 * `gradient_checkpointing_enable()` or a `gradient_checkpointing` flag, `checkpoint_wrapper` /
 * `apply_activation_checkpointing`, an `activation_checkpointing` option (Lightning, FSDP),
 * torchtitan's `apply_ac`, DeepSpeed or fairscale checkpointing.
 *
 * It reports whether or not the file trains: model definitions usually live apart from the
 * training script, so the rule cannot see the loop that trains them; that is also why it is
 * information, not a warning. Stacks built one by one (`self.layers[str(i)] = Block()`, torchtitan
 * style) are not recognised. A model that another workspace file imports and checkpoints (a
 * trainer calling `apply_activation_checkpointing(model, ...)`, wrapping its blocks in
 * `checkpoint_wrapper`, or calling `torch.utils.checkpoint` on them) is not reported when the
 * workspace is known (the editor's folders, the CLI's working folder).
 *
 * ## Why is this bad?
 * Training keeps each transformer layer's activations until the backward pass: about sbh(34 +
 * 5as/h) bytes per layer in 16-bit (s sequence, b micro-batch, h hidden, a heads; Korthikanti et
 * al. 2022, arXiv:2205.05198, Table 2; the 5as/h term disappears with flash attention). Full
 * recomputation keeps only the layer input, 2sbh bytes, and costs about one extra forward pass
 * (roughly a third more compute per step). For s = 2048, b = 8, h = 4096, a = 32: 17.2 GB per
 * layer without checkpointing (2.2 GB with flash attention) versus 0.13 GB with it; for 32 layers,
 * 550 GB versus 4.3 GB.
 *
 * ## Example
 * ```python
 * def forward(self, x):
 *     for block in self.blocks:
 *         x = block(x)
 * ```
 *
 * ## Use instead
 * ```python
 * from torch.utils.checkpoint import checkpoint
 *
 * def forward(self, x):
 *     for block in self.blocks:
 *         x = checkpoint(block, x, use_reentrant=False) if self.training else block(x)
 * ```
 *
 * ## Quick fix
 * Wrap the block call in `checkpoint(block, x, use_reentrant=False)`, importing `checkpoint` from
 * `torch.utils.checkpoint` if needed (offered only for `x = block(x)` and when the name
 * `checkpoint` is free).
 */
export const sl301: Rule = {
  code: 'SL301',
  name: 'deep-model-without-checkpointing',
  category: 'memory',
  severity: 'information',
  summary: 'A deep model loops over its blocks with no activation checkpointing anywhere in the file.',
  check({ model, report, workspace }) {
    const deep: { cls: SyntaxNode; loops: ReturnType<typeof blockLoops> }[] = [];
    for (const cls of model.nodes.class_definition) {
      if (!isModuleClass(model, cls)) continue;
      const stacks = blockStacks(model, cls);
      if (stacks.size === 0) continue;
      const loops = blockLoops(cls, stacks);
      if (loops.length) deep.push({ cls, loops });
    }
    // NOTE: the deep loops first: the checkpointing test scans the whole text.
    if (!deep.length || usesActivationCheckpointing(model)) return;
    // A trainer elsewhere may import these models and checkpoint them: the outer classes
    // (a model holding the stack) are the ones such a trainer names.
    const names = model.nodes.class_definition
      .filter((cls) => isModuleClass(model, cls))
      .map((cls) => fieldOf(cls, 'name')?.text ?? '')
      .filter(Boolean);
    if (workspace && checkpointedElsewhere(model, names, workspace)) return;
    for (const { loops } of deep) {
      for (const found of loops) {
        const header = fieldOf(found.loop, 'right') ?? found.loop;
        report({
          node: found.loop,
          range: { start: found.loop.start, end: header.end },
          ...sl301Text({ stackName: found.stackName, depth: found.depth }),
          fixes: checkpointFix(model, found.call),
        });
      }
    }
  },
};

/** Per model: whether any identifier is spelled `checkpoint` (asked once per finding; a whole-tree walk). */
const mentionsCheckpointName = perModel((model) => {
  let found = false;
  walk(model.root, (n) => {
    // NOTE: the length test first: reading `text` slices the document.
    if (!found && n.type === 'identifier' && n.endIndex - n.startIndex === 10 && n.text === 'checkpoint')
      found = true;
  });
  return found;
});

/** `x = block(x)` → `x = checkpoint(block, x, use_reentrant=False)`, importing `checkpoint` if needed. */
function checkpointFix(model: FileModel, call: SyntaxNode | undefined): Fix[] {
  if (!call) return [];
  const statement = call.parent;
  const args = positionalArgs(call);
  const left = statement?.type === 'assignment' ? fieldOf(statement, 'left') : undefined;
  const argList = fieldOf(call, 'arguments');
  if (!left || left.type !== 'identifier' || args.length !== 1 || unwrap(args[0]).text !== left.text)
    return [];
  if (argList?.children.length !== 1) return [];
  const edits: Fix['edits'] = [];
  let name = 'checkpoint';
  const bound = model.imports.lookup('checkpoint');
  if (bound !== 'torch.utils.checkpoint.checkpoint') {
    if (bound || mentionsCheckpointName(model)) return [];
    const imports = model.root.children.filter(
      (c) => c.type === 'import_statement' || c.type === 'import_from_statement',
    );
    const line = imports.length ? imports[imports.length - 1].end.line + 1 : 0;
    edits.push({
      range: { start: { line, column: 0 }, end: { line, column: 0 } },
      newText: 'from torch.utils.checkpoint import checkpoint\n',
    });
    name = 'checkpoint';
  }
  const callee = fieldOf(call, 'function')!;
  edits.push({
    range: { start: call.start, end: call.end },
    newText: `${name}(${callee.text}, ${args[0].text}, use_reentrant=False)`,
  });
  return [{ title: 'Checkpoint each block (`torch.utils.checkpoint`)', edits }];
}

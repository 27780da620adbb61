// SL303: Hugging Face gradient checkpointing turned on while `use_cache=True` is requested:
// the two are incompatible in training; the KV cache is memory spent for nothing.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, keywordArg, methodCall } from '../analysis/syntax-helpers';
import { scopeOf } from '../analysis/reaching-definitions';
import type { Rule } from './types';
import { sl303Text } from './messages/sl2-sl3';

/**
 * `use_cache=True` with Hugging Face gradient checkpointing: incompatible, the cache is wasted
 * memory.
 *
 * ## What it does
 * In a function (or module top level) that enables Hugging Face gradient checkpointing
 * (`model.gradient_checkpointing_enable()` or `gradient_checkpointing=True`), flags
 * `use_cache=True` passed to `from_pretrained` or a forward call, and `model.config.use_cache =
 * True`. `generate(..., use_cache=True)` is not flagged: caching is right for generation.
 *
 * ## Why is this bad?
 * A training forward with a KV cache keeps every layer's keys and values: 2·b·s·h values per
 * layer, 268 MB per layer in bf16 for b = 8, s = 2048, h = 4096 (8.6 GB for 32 layers) — the
 * memory checkpointing is trying not to keep. Transformers detects the combination in training,
 * logs "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`"
 * and overrides it (transformers `modeling_*` forward); custom models keep the cache.
 *
 * ## Example
 * ```python
 * model = AutoModelForCausalLM.from_pretrained(name, use_cache=True)
 * model.gradient_checkpointing_enable()
 * ```
 *
 * ## Use instead
 * ```python
 * model = AutoModelForCausalLM.from_pretrained(name, use_cache=False)
 * model.gradient_checkpointing_enable()
 * ```
 *
 * ## Quick fix
 * `use_cache=False`.
 */
export const sl303: Rule = {
  code: 'SL303',
  name: 'use-cache-with-gradient-checkpointing',
  category: 'memory',
  severity: 'information',
  summary:
    '`use_cache=True` with Hugging Face gradient checkpointing: incompatible, the cache is wasted memory.',
  check({ model, report }) {
    // Both ways of enabling it spell `gradient_checkpointing`: one search of the text spares
    // most files the passes over every call.
    if (!model.source.text.includes('gradient_checkpointing')) return;
    const enablers = model.nodes.call.filter(
      (call) =>
        methodCall(call)?.name === 'gradient_checkpointing_enable' ||
        keywordArg(call, 'gradient_checkpointing')?.text === 'True',
    );
    if (enablers.length === 0) return;
    // NOTE: only sites in a scope that enables checkpointing (or any scope when it is enabled at module level).
    const scopes = new Set(enablers.map((call) => scopeOf(call)));
    const inScope = (node: SyntaxNode) =>
      scopes.has(scopeOf(node)) || [...scopes].some((s) => s.type === 'module');
    const text = sl303Text();
    const flag = (node: SyntaxNode, value: SyntaxNode) =>
      report({
        node,
        range: { start: value.start, end: value.end },
        ...text,
        fixes: [
          {
            title: 'Use `use_cache=False`',
            edits: [{ range: { start: value.start, end: value.end }, newText: 'False' }],
          },
        ],
      });
    for (const call of model.nodes.call) {
      const value = keywordArg(call, 'use_cache');
      if (!value || value.text !== 'True') continue;
      const name = methodCall(call)?.name ?? fieldOf(call, 'function')?.text;
      if (name === 'generate' || name === 'prepare_inputs_for_generation' || !inScope(call)) continue;
      flag(call, value);
    }
    for (const assignment of model.nodes.assignment) {
      const left = fieldOf(assignment, 'left');
      const right = fieldOf(assignment, 'right');
      if (
        left?.type === 'attribute' &&
        /\.config\.use_cache$|^config\.use_cache$/.test(left.text) &&
        right?.text === 'True' &&
        inScope(assignment)
      )
        flag(assignment, right);
    }
  },
};

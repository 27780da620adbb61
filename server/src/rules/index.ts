// The rule registry: a plain array, one import per rule file, in code order.
import type { Rule } from './types';
import { sl101 } from './sl101-item-in-hot-loop';

/** Every rule Shardlens knows, in code order. */
export const rules: readonly Rule[] = [sl101];

/** The rule with this code, if any. */
export function ruleByCode(code: string): Rule | undefined {
  return rules.find((rule) => rule.code === code);
}

// The rule registry: a plain array, assembled from one list per family (SL1xx ... SL5xx),
// in code order. Each rule lives in its own file (`sl101-item-in-hot-loop.ts`).
import type { Rule } from './types';
import { syncRules } from './registry-sl1';
import { layoutRules } from './registry-sl2';
import { memoryRules } from './registry-sl3';
import { distributedRules } from './registry-sl4';
import { pipelineRules } from './registry-sl5';

/** Every rule Shardlens knows, in code order. */
export const rules: readonly Rule[] = [
  ...syncRules,
  ...layoutRules,
  ...memoryRules,
  ...distributedRules,
  ...pipelineRules,
];

/** The rule with this code, if any. */
export function ruleByCode(code: string): Rule | undefined {
  return rules.find((rule) => rule.code === code);
}

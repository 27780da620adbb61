// Rules of the distributed training (SL4xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';

/** The distributed training (SL4xx) rules. */
export const distributedRules: readonly Rule[] = [];

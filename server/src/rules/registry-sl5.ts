// Rules of the input pipeline and precision (SL5xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';

/** The input pipeline and precision (SL5xx) rules. */
export const pipelineRules: readonly Rule[] = [];

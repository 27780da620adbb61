// Rules of the memory and checkpointing (SL3xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';

/** The memory and checkpointing (SL3xx) rules. */
export const memoryRules: readonly Rule[] = [];

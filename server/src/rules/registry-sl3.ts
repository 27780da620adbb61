// Rules of the memory and checkpointing (SL3xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';
import { sl301 } from './sl301-deep-model-without-checkpointing';
import { sl302 } from './sl302-checkpoint-without-use-reentrant';
import { sl303 } from './sl303-use-cache-with-gradient-checkpointing';
import { sl304 } from './sl304-loss-accumulated-with-graph';
import { sl305 } from './sl305-graph-kept-in-list';

/** The memory and checkpointing (SL3xx) rules. */
export const memoryRules: readonly Rule[] = [sl301, sl302, sl303, sl304, sl305];

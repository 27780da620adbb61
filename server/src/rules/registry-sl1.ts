// Rules of the host–device synchronisation (SL1xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';
import { sl101 } from './sl101-item-in-hot-loop';

/** The host–device synchronisation (SL1xx) rules. */
export const syncRules: readonly Rule[] = [sl101];

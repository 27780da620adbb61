// Rules of the layout and contiguity (SL2xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';
import { sl201 } from './sl201-view-on-non-contiguous';

/** The layout and contiguity (SL2xx) rules. */
export const layoutRules: readonly Rule[] = [sl201];

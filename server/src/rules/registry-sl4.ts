// Rules of the distributed training (SL4xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';
import { sl401 } from './sl401-data-parallel';
import { sl402 } from './sl402-accumulation-without-no-sync';
import { sl403 } from './sl403-sampler-without-set-epoch';
import { sl404 } from './sl404-ddp-loader-without-sampler';
import { sl405 } from './sl405-move-after-wrap';
import { sl406 } from './sl406-collective-in-hot-loop';
import { sl407 } from './sl407-no-checkpoint';

/** The distributed training (SL4xx) rules. */
export const distributedRules: readonly Rule[] = [sl401, sl402, sl403, sl404, sl405, sl406, sl407];

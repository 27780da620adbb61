// Rules of the input pipeline and precision (SL5xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';
import { sl501 } from './sl501-loader-without-workers-or-pinning';
import { sl502 } from './sl502-fp16-without-grad-scaler';
import { sl503 } from './sl503-grad-scaler-with-bf16';
import { sl504 } from './sl504-deprecated-cuda-amp';

/** The input pipeline and precision (SL5xx) rules. */
export const pipelineRules: readonly Rule[] = [sl501, sl502, sl503, sl504];

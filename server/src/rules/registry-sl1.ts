// Rules of the host–device synchronisation (SL1xx) family, in code order. Owned by whoever works on this family.
import type { Rule } from './types';
import { sl101 } from './sl101-item-in-hot-loop';
import { sl102 } from './sl102-device-to-host-copy';
import { sl103 } from './sl103-python-scalar-of-tensor';
import { sl104 } from './sl104-format-tensor';
import { sl105 } from './sl105-branch-on-tensor';
import { sl106 } from './sl106-data-dependent-shape';
import { sl107 } from './sl107-explicit-synchronize';
import { sl108 } from './sl108-tensor-from-python-on-device';
import { sl109 } from './sl109-host-to-device-copy';
import { sl110 } from './sl110-unsynced-async-host-copy';

/** The host–device synchronisation (SL1xx) rules. */
export const syncRules: readonly Rule[] = [
  sl101,
  sl102,
  sl103,
  sl104,
  sl105,
  sl106,
  sl107,
  sl108,
  sl109,
  sl110,
];

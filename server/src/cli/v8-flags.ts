// V8 settings for the CLI's process: a `shardlens check` run lasts seconds, and V8's
// optimizing compiler, inlining callees into every hot rule and analysis function, spends
// as much CPU compiling as the run saves (each worker thread compiles its own copy). The
// measured effect is in docs/performance-log.md ("The CLI's compile budget").
import { setFlagsFromString } from 'node:v8';

/** Flags the CLI sets for its whole process (worker threads share V8's flags). */
export const BATCH_V8_FLAGS: readonly string[] = ['--no-turbo-inlining'];

/**
 * Sets {@link BATCH_V8_FLAGS} before any analysis code is compiled, unless
 * `SHARDLENS_V8_DEFAULTS=1` asks for V8's defaults; returns the flags it set.
 */
export function tuneV8ForBatch(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  if (env.SHARDLENS_V8_DEFAULTS === '1') return [];
  for (const flag of BATCH_V8_FLAGS) setFlagsFromString(flag);
  return BATCH_V8_FLAGS;
}

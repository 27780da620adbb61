// `shardlens estimate` (placeholder until the module evaluator lands).
/** Runs `shardlens estimate`; resolves to the exit code. */
export async function runEstimate(
  _argv: string[],
  io: { stdout: (s: string) => void; stderr: (s: string) => void; cwd: string; wasmDir: string },
): Promise<number> {
  io.stderr('shardlens estimate: not available yet');
  return 2;
}

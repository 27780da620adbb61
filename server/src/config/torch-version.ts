// PyTorch version strings as the workspace reports them (`2.4.0+cu121`, `1.13.0a0`, `2.1`):
// parsing and comparison, so version-dependent rules and fixes can ask "is this at least X?".

/** `[major, minor, patch]` of a version string, or undefined when it is not one. */
export function parseTorchVersion(text: string | undefined): [number, number, number] | undefined {
  const match = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text ?? '');
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

/**
 * Whether `version` is at least `required` (`'2.3'`): true or false when the version is
 * known, undefined when it is not (callers must treat unknown as "not shown to be safe").
 */
export function torchAtLeast(version: string | undefined, required: string): boolean | undefined {
  const have = parseTorchVersion(version);
  const need = parseTorchVersion(required);
  if (!have || !need) return undefined;
  for (let i = 0; i < 3; i++) if (have[i] !== need[i]) return have[i] > need[i];
  return true;
}

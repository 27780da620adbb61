// Small hand-written type guards shared by the extension and the webview to validate
// harness events and panel messages. No dependencies, no `vscode` import.

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number. */
export function isNum(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A finite number or null. */
export function isNumOrNull(value: unknown): value is number | null {
  return value === null || isNum(value);
}

/** A non-negative integer. */
export function isCount(value: unknown): value is number {
  return isNum(value) && Number.isInteger(value) && value >= 0;
}

/** A string. */
export function isStr(value: unknown): value is string {
  return typeof value === 'string';
}

/** A string or null. */
export function isStrOrNull(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/** A value from a fixed set of strings. */
export function isOneOf<T extends string>(value: unknown, options: readonly T[]): value is T {
  return typeof value === 'string' && (options as readonly string[]).includes(value);
}

/** An array whose every element passes `check`. */
export function isArrayOf<T>(value: unknown, check: (item: unknown) => item is T): value is T[] {
  return Array.isArray(value) && value.every((item) => check(item));
}

/** Optional property: absent (undefined) or passes `check`. */
export function isOptional<T>(value: unknown, check: (item: unknown) => item is T): value is T | undefined {
  return value === undefined || check(value);
}

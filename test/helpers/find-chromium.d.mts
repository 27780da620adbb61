// Types of find-chromium.mjs (plain ESM so that scripts and tests share it without a build).
export declare const CHROMIUM_CANDIDATES: readonly string[];
export declare function findChromium(env?: Record<string, string | undefined>): string | undefined;

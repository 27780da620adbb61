// Types of test-setup.mjs, for its unit test.
export declare const PACKAGES: readonly { name: string; why: string }[];
export declare function osRelease(path?: string): { id: string; like: string[] };
export declare function isInstalled(name: string): boolean;
export declare function planInstall(options?: {
  installed?: (name: string) => boolean;
  chromium?: string | null;
  ubuntu?: boolean;
  ownTorchPython?: boolean;
}): { missing: string[]; browserMissing: boolean };
export declare function aptCandidate(name: string): string | null;
export declare function unusableCandidate(name: string, candidate: string | null): string | undefined;

// Where the tests find a Chromium for headless runs (webview panel tests, end-to-end suite):
// SHARDLENS_CHROMIUM (or the older SHARDLENS_E2E_CHROMIUM), else the first existing binary among
// Debian's chromium, Google Chrome and Ubuntu's snap. Shared by scripts/test-setup.mjs and tests.
import { existsSync } from 'node:fs';

/** Paths tried in order when no environment variable names one. */
export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/snap/bin/chromium',
  '/usr/bin/chromium-browser',
];

/** The Chromium binary to use, or undefined when none is installed. */
export function findChromium(env = process.env) {
  const named = env.SHARDLENS_CHROMIUM || env.SHARDLENS_E2E_CHROMIUM;
  if (named) return named;
  return CHROMIUM_CANDIDATES.find((path) => existsSync(path));
}

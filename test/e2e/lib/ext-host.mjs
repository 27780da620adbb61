// Builds the extension-host suite (test/e2e/suite/*.ts) with esbuild into out/e2e/suite/,
// and runs it inside code-server through the smoke-test driver's payload URL: the page
// calls window.codeAutomationExit(code) when the suite's run() settles.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import * as esbuild from 'esbuild';
import { startCodeServer, writeUserSettings } from './code-server.mjs';
import { launchBrowser } from './workbench.mjs';
import { repoRoot, userSettings } from '../workspace.mjs';

/** Where the compiled suite goes; its entry is `index.js`. */
export const suiteOutDir = join(repoRoot, 'out', 'e2e', 'suite');

/** Bundles index.ts and every *.e2e.ts of the suite (vscode and mocha stay external). */
export async function buildSuite() {
  const srcDir = join(repoRoot, 'test', 'e2e', 'suite');
  const entryPoints = readdirSync(srcDir)
    .filter((n) => n === 'index.ts' || n.endsWith('.e2e.ts'))
    .map((n) => join(srcDir, n));
  rmSync(suiteOutDir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints,
    outdir: suiteOutDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    logLevel: 'warning',
    external: ['vscode', 'mocha'],
  });
  return join(suiteOutDir, 'index.js');
}

/**
 * Runs the compiled suite in code-server with the repository as the development extension.
 * Returns `{ code, output }`; code 0 means every test passed.
 */
export async function runSuiteInCodeServer({ ctx, folder, trusted, name, outputDir, timeoutMs = 300_000 }) {
  const userDataDir = join(ctx.runDir, `user-${name}`);
  // NOTE: the installed .vsix and the development copy share one id: this run gets its own,
  // empty extensions folder so only the development copy loads.
  const extensionsDir = join(ctx.runDir, `extensions-${name}`);
  writeUserSettings(userDataDir, userSettings({ trusted }));
  const server = await startCodeServer({
    tools: ctx.tools,
    runDir: ctx.runDir,
    userDataDir,
    extensionsDir,
    logFile: join(outputDir, `code-server-${name}.log`),
    smokeTestDriver: true,
  });
  const lines = [];
  let browser;
  try {
    browser = await launchBrowser({
      executablePath: ctx.chromium,
      profileDir: join(ctx.runDir, `chromium-${name}`),
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    let settle;
    const exited = new Promise((resolve) => (settle = resolve));
    await page.exposeFunction('codeAutomationExit', (code, logs) => settle({ code, logs }));
    page.on('console', async (message) => {
      try {
        const args = await Promise.all(message.args().map((a) => a.jsonValue().catch(() => String(a))));
        // The extension host's console arrives as console.log('%c INFO', css, fmt, ...args).
        const text =
          typeof args[0] === 'string' && args[0].startsWith('%c')
            ? format(...args.slice(2))
            : format(...args);
        if (/ENOTFOUND|vsda|open-vsx|Failed to load resource/.test(text)) return;
        lines.push(text);
        if (
          process.env.SHARDLENS_E2E_VERBOSE ||
          /^\s*(\d+\) |✓|✔|passing|failing|pending|\s{2}Shardlens|shardlens e2e)/.test(text)
        )
          console.log(`    ${text.replace(/\n/g, '\n    ')}`);
      } catch {
        /* page closed */
      }
    });
    const remote = (path) => `vscode-remote://127.0.0.1:${server.port}${path}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(repoRoot)],
      ['extensionTestsPath', remote(join(suiteOutDir, 'index.js'))],
    ]);
    await page.goto(
      `${server.url}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(payload)}`,
    );
    const result = await Promise.race([
      exited,
      new Promise((resolve) =>
        setTimeout(
          () => resolve({ code: 124, logs: `suite did not finish within ${timeoutMs} ms` }),
          timeoutMs,
        ),
      ),
    ]);
    if (result.code !== 0) {
      await page.screenshot({ path: join(outputDir, `${name}-failure.png`) }).catch(() => {});
    }
    return { code: result.code, output: lines.join('\n') + (result.code === 124 ? `\n${result.logs}` : '') };
  } finally {
    await browser?.close().catch(() => {});
    await server.stop();
  }
}

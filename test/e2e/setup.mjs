// Prepares an end-to-end run: Node 24 and code-server in the cache (reused when complete),
// Chromium from Debian, the packaged .vsix (`npm run package`), a fresh extensions folder
// with it installed, and a started code-server that is always stopped by PID.
// Run alone (`node test/e2e/setup.mjs`) it does all that once and checks /healthz.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installExtension, startCodeServer, writeUserSettings } from './lib/code-server.mjs';
import { chromiumPath, ensureToolchain, runCommand } from './lib/toolchain.mjs';
import { prepareWorkspace, repoRoot, userSettings } from './workspace.mjs';

/** Where scenario screenshots, logs and the summary go. */
export const outputDir = join(repoRoot, 'test-output', 'e2e');

/** Measures an async step; returns its result and records the seconds under `name`. */
export async function timed(timings, name, fn) {
  const start = Date.now();
  try {
    return await fn();
  } finally {
    timings[name] = (Date.now() - start) / 1000;
  }
}

/**
 * Builds and packages the extension with `npm run package`, unless SHARDLENS_E2E_VSIX names
 * a ready .vsix. SHARDLENS_E2E_BREAK=no-wasm removes dist/tree-sitter-python.wasm from a copy
 * of the package, to show that the suite fails on a broken build.
 */
export async function packageExtension(runDir) {
  let vsix = process.env.SHARDLENS_E2E_VSIX;
  if (!vsix) {
    await runCommand({
      command: 'npm',
      args: ['run', 'package'],
      cwd: repoRoot,
      label: 'package',
      quiet: true,
    });
    vsix = join(repoRoot, 'shardlens.vsix');
  }
  const copy = join(runDir, 'shardlens.vsix');
  copyFileSync(vsix, copy);
  const breakWith = process.env.SHARDLENS_E2E_BREAK;
  if (breakWith === 'no-wasm') {
    console.log(
      'e2e: SHARDLENS_E2E_BREAK=no-wasm: removing extension/dist/tree-sitter-python.wasm from the copied .vsix',
    );
    const script = [
      'import sys, zipfile, shutil',
      'src, dst, drop = sys.argv[1], sys.argv[1] + ".tmp", sys.argv[2]',
      'with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:',
      '    names = zin.namelist()',
      '    assert drop in names, drop + " not in the package"',
      '    for item in zin.infolist():',
      '        if item.filename != drop: zout.writestr(item, zin.read(item.filename))',
      'shutil.move(dst, src)',
    ].join('\n');
    const result = spawnSync('python3', ['-c', script, copy, 'extension/dist/tree-sitter-python.wasm'], {
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`could not break the package: ${result.stderr}`);
  } else if (breakWith) {
    throw new Error(`unknown SHARDLENS_E2E_BREAK=${breakWith} (known: no-wasm)`);
  }
  return copy;
}

/** A fresh folder for one run under the OS temp folder (removed by `cleanup`). */
export function makeRunDir() {
  return mkdtempSync(join(tmpdir(), 'shardlens-e2e-'));
}

/**
 * Everything before the scenarios: toolchain, Chromium, package, extension installed into a
 * fresh extensions folder. Returns paths and the timings of each step (seconds).
 */
export async function setup({ timings = {} } = {}) {
  mkdirSync(outputDir, { recursive: true });
  const chromium = chromiumPath();
  const tools = await timed(timings, 'install', () => ensureToolchain());
  console.log(
    `e2e: toolchain ${tools.installed ? 'installed' : 'reused'} from ${tools.cache} (${timings.install.toFixed(1)} s)`,
  );
  const runDir = makeRunDir();
  const vsixPath = await timed(timings, 'package', () => packageExtension(runDir));
  console.log(`e2e: packaged ${vsixPath} (${timings.package.toFixed(1)} s)`);
  const extensionsDir = join(runDir, 'extensions-vsix');
  await timed(timings, 'installExtension', () =>
    installExtension({ tools, vsixPath, userDataDir: join(runDir, 'user-install'), extensionsDir, runDir }),
  );
  return { tools, chromium, runDir, vsixPath, extensionsDir };
}

/** Starts code-server for the UI scenarios with the installed .vsix and a fresh user-data folder. */
export async function startUiServer({ ctx, folder, name = 'ui' }) {
  const userDataDir = join(ctx.runDir, `user-${name}`);
  // Auto-save: scenarios close all editors between them without a save prompt.
  writeUserSettings(userDataDir, { ...userSettings({ trusted: true }), 'files.autoSave': 'afterDelay' });
  return startCodeServer({
    tools: ctx.tools,
    runDir: ctx.runDir,
    userDataDir,
    extensionsDir: ctx.extensionsDir,
    folder,
    logFile: join(outputDir, `code-server-${name}.log`),
  });
}

/** Removes the run folder unless SHARDLENS_E2E_KEEP is set. */
export function cleanup(ctx) {
  if (!ctx?.runDir) return;
  if (process.env.SHARDLENS_E2E_KEEP) console.log(`e2e: kept ${ctx.runDir}`);
  else rmSync(ctx.runDir, { recursive: true, force: true });
}

async function main() {
  const timings = {};
  const ctx = await setup({ timings });
  let server;
  try {
    const folder = prepareWorkspace({ dir: join(ctx.runDir, 'workspace') });
    server = await timed(timings, 'start', () => startUiServer({ ctx, folder, name: 'setup-check' }));
    const response = await fetch(`${server.url}/healthz`);
    console.log(`e2e: code-server ${server.url} healthz ${response.status}: ${await response.text()}`);
  } finally {
    await server?.stop();
    cleanup(ctx);
  }
  console.log(`e2e: setup timings (s): ${JSON.stringify(timings)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(`e2e setup failed: ${error.stack ?? error}`);
    process.exit(1);
  });
}

// `npm run try`: builds and packages the extension, installs it into code-server (Node 24 and
// code-server come from the e2e cache, installed on first use), and serves VS Code with
// examples/ open on 127.0.0.1 until Ctrl+C. Env: PORT (default: a free port), SHARDLENS_E2E_CACHE.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installExtension, startCodeServer, writeUserSettings } from '../test/e2e/lib/code-server.mjs';
import { ensureToolchain } from '../test/e2e/lib/toolchain.mjs';
import { packageExtension } from '../test/e2e/setup.mjs';
import { repoRoot, userSettings } from '../test/e2e/workspace.mjs';

async function main() {
  const tools = await ensureToolchain();
  const runDir = mkdtempSync(join(tmpdir(), 'shardlens-try-'));
  const stopAll = [];
  const finish = async (code) => {
    for (const stop of stopAll) await stop();
    rmSync(runDir, { recursive: true, force: true });
    process.exit(code);
  };
  try {
    console.log('try: building and packaging the extension…');
    const vsixPath = await packageExtension(runDir);
    const userDataDir = join(runDir, 'user');
    const extensionsDir = join(runDir, 'extensions');
    await installExtension({ tools, vsixPath, userDataDir, extensionsDir, runDir });
    writeUserSettings(userDataDir, {
      ...userSettings({ trusted: true }),
      'shardlens.benchmark.pythonPath': process.env.SHARDLENS_TORCH_PYTHON ?? '/usr/bin/python3',
    });
    const folder = join(repoRoot, 'examples');
    const server = await startCodeServer({
      tools,
      runDir,
      userDataDir,
      extensionsDir,
      folder,
      logFile: join(runDir, 'code-server.log'),
      port: process.env.PORT ? Number(process.env.PORT) : undefined,
    });
    stopAll.push(server.stop);
    console.log(`\n  Shardlens in VS Code: ${server.url}/?folder=${encodeURIComponent(folder)}\n`);
    console.log(`  (server log: ${server.logFile}; press Ctrl+C to stop)`);
  } catch (error) {
    console.error(`try failed: ${error?.stack ?? error}`);
    await finish(1);
    return;
  }
  // NOTE: code-server's own exit handlers kill the server on signals; these also remove the temp folder.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void finish(0));
  process.on('SIGTERM', () => void finish(0));
  setInterval(() => {}, 1 << 30);
}

main();

// Starts and stops code-server for the end-to-end suite: installs a .vsix into a fresh
// extensions folder, starts the server on 127.0.0.1 with a free port and a fresh user-data
// folder, waits for /healthz, and always stops it by PID (also on failure, SIGINT, SIGTERM).
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runCommand } from './toolchain.mjs';

const running = new Set();

function killGroup(child, signal) {
  try {
    // The server runs in its own process group (detached), so its extension hosts,
    // pty host and terminals go with it.
    process.kill(-child.pid, signal);
  } catch {
    try {
      process.kill(child.pid, signal);
    } catch {
      /* already gone */
    }
  }
}

function killAllNow() {
  for (const child of running) killGroup(child, 'SIGKILL');
  running.clear();
}

let handlersInstalled = false;
function installExitHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      console.error(`e2e: ${signal}, stopping code-server`);
      killAllNow();
      process.exit(130);
    });
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Environment for code-server: Node 24 first on PATH, config written into the run's folder. */
function serverEnv(tools, runDir, extraEnv) {
  return {
    ...process.env,
    PATH: `${join(tools.nodeDir, 'bin')}:${process.env.PATH}`,
    // NOTE: code-server writes ~/.config/code-server/config.yaml on first start; keep it in the run folder.
    XDG_CONFIG_HOME: join(runDir, 'xdg-config'),
    XDG_DATA_HOME: join(runDir, 'xdg-data'),
    // NOTE: benchmarks import the workspace's model.py; without this, Python writes
    // __pycache__/model.cpython-*.pyc beside it and Quick Open's "model.py" can pick the .pyc
    // (seen on a fresh Debian, where PYTHONDONTWRITEBYTECODE is not set as it is on dev boxes).
    PYTHONDONTWRITEBYTECODE: '1',
    ...extraEnv,
  };
}

/** Installs a .vsix into `extensionsDir` with code-server's own CLI. */
export async function installExtension({ tools, vsixPath, userDataDir, extensionsDir, runDir }) {
  mkdirSync(extensionsDir, { recursive: true });
  await runCommand({
    command: tools.nodeBin,
    args: [
      tools.codeServerEntry,
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--install-extension',
      vsixPath,
    ],
    env: serverEnv(tools, runDir),
    label: 'install-extension',
  });
}

/** Writes the user settings of a fresh user-data folder. */
export function writeUserSettings(userDataDir, settings) {
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
}

async function waitForHealthz(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`code-server exited with ${child.exitCode} before it was healthy`);
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3000) });
      if (response.ok) return;
      lastError = `HTTP ${response.status}`;
    } catch (error) {
      lastError = String(error?.cause?.code ?? error?.message ?? error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`code-server did not answer ${url}/healthz within ${timeoutMs} ms (${lastError})`);
}

/**
 * Starts code-server and resolves once /healthz answers. `stop()` kills it by PID and waits
 * for it to exit. `folder` is opened by default; `smokeTestDriver` enables the payload URL;
 * `port` defaults to a free one.
 */
export async function startCodeServer({
  tools,
  runDir,
  userDataDir,
  extensionsDir,
  folder,
  logFile,
  smokeTestDriver = false,
  env = {},
  port: fixedPort,
}) {
  installExitHandlers();
  const port = fixedPort ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const args = [
    tools.codeServerEntry,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
  ];
  if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  if (folder) args.push(folder);
  const log = createWriteStream(logFile);
  const child = spawn(tools.nodeBin, args, {
    env: serverEnv(tools, runDir, env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const stop = async () => {
    if (!running.has(child)) return;
    running.delete(child);
    killGroup(child, 'SIGTERM');
    const timedOut = await Promise.race([
      exited.then(() => false),
      new Promise((resolve) => setTimeout(() => resolve(true), 5000)),
    ]);
    if (timedOut) killGroup(child, 'SIGKILL');
    // Terminals and extension hosts share the group; make sure nothing is left behind.
    killGroup(child, 'SIGKILL');
  };
  try {
    await waitForHealthz(url, child, 90_000);
  } catch (error) {
    await stop();
    throw new Error(`${error.message}\n(code-server log: ${logFile})`);
  }
  return { url, port, pid: child.pid, stop, logFile };
}

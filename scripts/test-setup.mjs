#!/usr/bin/env node
// `pretest`: installs the Debian/Ubuntu packages the tests need, found missing with dpkg, by
// apt-get as root or through sudo; otherwise exits 1 naming them and the command to run.
// SHARDLENS_SKIP_TEST_SETUP=1 skips it; SHARDLENS_TORCH_PYTHON replaces python3-torch(vision).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { findChromium } from '../test/helpers/find-chromium.mjs';

/** What the tests need from the system, and which suite needs it. */
export const PACKAGES = [
  { name: 'python3', why: 'Python harness tests, view and sync truth tables' },
  { name: 'python3-torch', why: 'harness tests run real PyTorch (CPU)' },
  { name: 'python3-torchvision', why: 'torchvision model truth tables' },
  { name: 'chromium', why: 'webview panel tests and the end-to-end suite (headless)' },
  { name: 'fonts-liberation', why: 'text in headless Chromium screenshots' },
  { name: 'build-essential', why: "compiling code-server's native modules (end-to-end suite)" },
  { name: 'libkrb5-dev', why: "code-server's kerberos module (end-to-end suite)" },
];

const APT_TRIES = 3;
const APT_RETRY_SECONDS = 15;

/** The distribution id from /etc/os-release (`debian`, `ubuntu`, ...), with its ID_LIKE. */
export function osRelease(path = '/etc/os-release') {
  if (!existsSync(path)) return { id: '', like: [] };
  const fields = Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => /^(\w+)=(.*)$/.exec(line))
      .filter(Boolean)
      .map(([, key, value]) => [key, value.replace(/^"|"$/g, '')]),
  );
  return { id: fields.ID ?? '', like: (fields.ID_LIKE ?? '').split(/\s+/).filter(Boolean) };
}

/** Whether dpkg lists the package as installed. */
export function isInstalled(name) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${db:Status-Status}', name], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.trim() === 'installed';
}

/**
 * The packages to install. Chromium counts as present when any Chromium or Chrome binary is
 * (see find-chromium.mjs). On Ubuntu the `chromium` deb is only a wrapper for the snap, so
 * Chromium is never asked of apt there: it is reported separately (`browserMissing`).
 */
export function planInstall({
  installed = isInstalled,
  chromium = findChromium() ?? null,
  ubuntu = false,
  ownTorchPython = Boolean(process.env.SHARDLENS_TORCH_PYTHON),
} = {}) {
  const missing = [];
  let browserMissing = false;
  for (const { name } of PACKAGES) {
    // A Python of one's own with torch (SHARDLENS_TORCH_PYTHON) replaces Debian's.
    if (ownTorchPython && name.startsWith('python3-torch')) continue;
    if (name === 'chromium') {
      if (chromium) continue;
      if (ubuntu) {
        browserMissing = true;
        continue;
      }
    }
    if (!installed(name)) missing.push(name);
  }
  return { missing, browserMissing };
}

function run(command, args) {
  console.log(`test-setup: ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

function sleep(seconds) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, seconds * 1000);
}

/** `[]` as root, `['sudo']` when sudo works without a prompt (or may prompt on a terminal), else null. */
function privilege() {
  if (process.getuid?.() === 0) return [];
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  if (sudo.status === 0) return ['sudo'];
  if (!sudo.error && process.stdin.isTTY) return ['sudo'];
  return null;
}

/** Runs one apt-get step, retried (mirrors and networks fail now and then). */
function aptRetried(prefix, args) {
  const [command, ...head] = [...prefix, 'apt-get'];
  for (let attempt = 1; attempt <= APT_TRIES; attempt++) {
    if (run(command, [...head, ...args])) return true;
    if (attempt < APT_TRIES) {
      console.log(
        `test-setup: apt-get ${args[0]} failed (try ${attempt} of ${APT_TRIES}); retrying in ${APT_RETRY_SECONDS} s`,
      );
      sleep(APT_RETRY_SECONDS);
    }
  }
  return false;
}

/** apt's candidate version of a package (after `apt-get update`), or null when there is none. */
export function aptCandidate(name) {
  const result = spawnSync('apt-cache', ['policy', name], { encoding: 'utf8' });
  const candidate = /Candidate: (\S+)/.exec(result.stdout ?? '')?.[1];
  return candidate && candidate !== '(none)' ? candidate : null;
}

/** Why apt's candidate cannot serve the tests (no candidate, or too old), or undefined. */
export function unusableCandidate(name, candidate) {
  if (!candidate) return "not in this release's apt archive";
  if (name === 'python3-torch') {
    const [major, minor] = candidate
      .replace(/^\d+:/, '')
      .split(/[.+~-]/)
      .map(Number);
    if (major < 1 || (major === 1 && minor < 13))
      return `apt has ${candidate}; the harness needs 1.13 or newer`;
  }
  return undefined;
}

const OWN_TORCH = [
  'Install a CPU build of PyTorch >= 1.13 in a virtual environment and point the tests at it:',
  '  python3 -m venv ~/torch-venv   (Ubuntu: apt-get install python3-venv first)',
  '  ~/torch-venv/bin/pip install torch torchvision --index-url https://download.pytorch.org/whl/cpu',
  '  SHARDLENS_TORCH_PYTHON=~/torch-venv/bin/python npm test',
  '(Debian 12 has python3-torch 1.13; Ubuntu 24.04 has none, Ubuntu 22.04 only 1.8.)',
];

function fail(lines) {
  console.error(['', ...lines.map((line) => `test-setup: ${line}`), ''].join('\n'));
  process.exit(1);
}

function main() {
  if (process.env.SHARDLENS_SKIP_TEST_SETUP === '1') {
    console.log('test-setup: skipped (SHARDLENS_SKIP_TEST_SETUP=1)');
    return;
  }
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) fail([`Node ${process.versions.node} is too old: the tests need Node 20 or newer.`]);
  const dpkg = spawnSync('dpkg-query', ['--version'], { stdio: 'ignore' });
  if (dpkg.error) {
    console.log(
      'test-setup: no dpkg here (not Debian or Ubuntu): install these yourself, then run the tests: ' +
        PACKAGES.map((p) => p.name).join(', '),
    );
    return;
  }
  const os = osRelease();
  const ubuntu = os.id === 'ubuntu' || os.like.includes('ubuntu');
  let { missing, browserMissing } = planInstall({ ubuntu });
  if (missing.length === 0 && !browserMissing) {
    console.log('test-setup: every Debian package the tests need is installed');
    return;
  }
  const prefix = privilege();
  const problems = [];
  const command = `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (missing.length) {
    console.log('test-setup: missing Debian packages:');
    for (const name of missing) console.log(`  ${name}: ${PACKAGES.find((p) => p.name === name).why}`);
    if (!prefix) {
      fail([
        `missing ${missing.join(', ')}, and this user cannot run apt-get (not root, no sudo without a password).`,
        `Install them with:  ${command}`,
        'or run the tests as root; SHARDLENS_SKIP_TEST_SETUP=1 skips this check.',
      ]);
    }
    if (!aptRetried(prefix, ['update', '-q'])) fail(['apt-get update failed.', `Try:  ${command}`]);
    const unusable = missing
      .map((name) => ({ name, why: unusableCandidate(name, aptCandidate(name)) }))
      .filter((p) => p.why);
    // torchvision from apt would pull in apt's (unusable) torch: it goes with it.
    if (unusable.some((p) => p.name === 'python3-torch') && missing.includes('python3-torchvision')) {
      if (!unusable.some((p) => p.name === 'python3-torchvision')) {
        unusable.push({ name: 'python3-torchvision', why: 'goes with python3-torch' });
      }
    }
    const installable = missing.filter((name) => !unusable.some((p) => p.name === name));
    if (installable.length) {
      if (!aptRetried(prefix, ['install', '-y', '-q', '--no-install-recommends', ...installable])) {
        fail([`apt-get could not install ${installable.join(', ')}.`, `Try:  ${command}`]);
      }
    }
    for (const p of unusable) problems.push(`${p.name}: ${p.why}.`);
    if (unusable.some((p) => p.name.startsWith('python3-torch'))) problems.push(...OWN_TORCH);
  }
  if (browserMissing) {
    // NOTE: Ubuntu ships Chromium only as a snap (the `chromium-browser` deb installs the snap),
    // and snapd rarely runs in containers and CI images; the snap is tried where snapd works.
    const snap = spawnSync('snap', ['version'], { stdio: 'ignore' });
    if (!snap.error && snap.status === 0 && prefix) {
      const [command, ...args] = [...prefix, 'snap', 'install', 'chromium'];
      run(command, args);
    }
    if (!findChromium()) {
      problems.push(
        'no Chromium or Chrome found (Ubuntu ships Chromium only as a snap).',
        'Install one: `sudo snap install chromium`, or Google Chrome from its .deb,',
        'then run the tests again (or set SHARDLENS_CHROMIUM to its binary).',
      );
    }
  }
  if (problems.length) fail(problems);
  ({ missing } = planInstall({ ubuntu }));
  if (missing.length) fail([`still missing after apt-get: ${missing.join(', ')}`]);
  console.log('test-setup: done');
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) main();

// scripts/test-setup.mjs decides which Debian packages `npm test` must install: every package
// dpkg does not list, Chromium only when no Chromium/Chrome binary exists, and never Chromium
// from apt on Ubuntu (a snap wrapper there). The install itself is checked on a fresh chroot
// (CONTRIBUTING.md, "Testing on a fresh machine").
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/paths';
import { findChromium } from '../helpers/find-chromium.mjs';

// NOTE: loaded at run time, not bundled: the script checks import.meta.url to run its main().
type Setup = typeof import('../../scripts/test-setup.mjs');
let setup: Setup;
let all: string[];
before(async () => {
  setup = await import(pathToFileURL(join(repoRoot, 'scripts', 'test-setup.mjs')).href);
  all = setup.PACKAGES.map((p) => p.name);
});
const planInstall: Setup['planInstall'] = (options) => setup.planInstall(options);
const osRelease: Setup['osRelease'] = (path) => setup.osRelease(path);

describe('test setup plan', () => {
  test('nothing to do when dpkg lists every package', () => {
    assert.deepEqual(planInstall({ installed: () => true, chromium: '/usr/bin/chromium', ubuntu: false }), {
      missing: [],
      browserMissing: false,
    });
  });

  test('a fresh Debian machine gets every package from apt', () => {
    const plan = planInstall({
      installed: () => false,
      chromium: null,
      ubuntu: false,
      ownTorchPython: false,
    });
    assert.deepEqual(plan, { missing: all, browserMissing: false });
    assert.ok(all.includes('python3-torch') && all.includes('chromium') && all.includes('libkrb5-dev'));
  });

  test('an existing Chromium or Chrome binary stands in for the chromium package', () => {
    const plan = planInstall({
      installed: (n: string) => n !== 'chromium',
      chromium: '/usr/bin/google-chrome',
    });
    assert.deepEqual(plan, { missing: [], browserMissing: false });
  });

  test('on Ubuntu Chromium is never asked of apt; its absence is reported', () => {
    const plan = planInstall({
      installed: () => false,
      chromium: null,
      ubuntu: true,
      ownTorchPython: false,
    });
    assert.ok(!plan.missing.includes('chromium'));
    assert.equal(plan.browserMissing, true);
    assert.deepEqual(
      plan.missing,
      all.filter((n: string) => n !== 'chromium'),
    );
  });

  test('a Python of ones own (SHARDLENS_TORCH_PYTHON) replaces python3-torch and torchvision', () => {
    const plan = planInstall({ installed: () => false, chromium: '/x', ownTorchPython: true });
    assert.deepEqual(
      plan.missing,
      all.filter((n: string) => !n.startsWith('python3-torch') && n !== 'chromium'),
    );
  });

  test('os-release parsing tells Ubuntu and its derivatives from Debian', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shardlens-os-'));
    try {
      const path = join(dir, 'os-release');
      writeFileSync(path, 'NAME="Linux Mint"\nID=linuxmint\nID_LIKE="ubuntu debian"\nVERSION_ID="21.3"\n');
      assert.deepEqual(osRelease(path), { id: 'linuxmint', like: ['ubuntu', 'debian'] });
      writeFileSync(path, 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n');
      assert.deepEqual(osRelease(path), { id: 'debian', like: [] });
      assert.deepEqual(osRelease(join(dir, 'absent')), { id: '', like: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('apt candidates that cannot serve the tests: none, or a PyTorch older than 1.13', () => {
    const why = (name: string, candidate: string | null) => setup.unusableCandidate(name, candidate);
    assert.match(why('python3-torch', null) ?? '', /not in this release/);
    assert.match(why('python3-torch', '1.8.1-4') ?? '', /needs 1\.13/);
    assert.equal(why('python3-torch', '1.13.0+dfsg-5'), undefined);
    assert.equal(why('python3-torch', '2.6.0+dfsg-5build1'), undefined);
    assert.equal(why('python3-torch', '1:2.1.0-1'), undefined);
    assert.equal(why('chromium', '120.0.6099.224-1~deb12u1'), undefined);
  });

  test('SHARDLENS_CHROMIUM names the browser; otherwise the first existing candidate', () => {
    assert.equal(findChromium({ SHARDLENS_CHROMIUM: '/opt/chrome/chrome' }), '/opt/chrome/chrome');
    assert.equal(findChromium({ SHARDLENS_E2E_CHROMIUM: '/opt/old' }), '/opt/old');
  });
});

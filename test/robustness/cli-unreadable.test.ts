// The CLI on paths it cannot read: an unreadable file and folder (chmod 000 when not root),
// a dangling symlink and a symlink loop are reported on stderr, the readable files are
// still checked and reported, and the exit code is 2 (I/O errors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../server/src/cli';
import { wasmDir } from '../helpers/paths';

const SCRIPT =
  'import torch\nfor x in loader:\n    loss = model(x)\n    loss.backward()\n    opt.step()\n    print(loss.item())\n';

test('the CLI reports unreadable files and folders and goes on', async () => {
  const root = mkdtempSync(join(tmpdir(), 'shardlens-unreadable-'));
  const isRoot = process.getuid?.() === 0;
  try {
    writeFileSync(join(root, 'a_good.py'), SCRIPT);
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'z_good.py'), SCRIPT);
    symlinkSync(join(root, 'missing.py'), join(root, 'dangling.py'));
    symlinkSync(join(root, 'loop_b'), join(root, 'loop_a'));
    symlinkSync(join(root, 'loop_a'), join(root, 'loop_b'));
    if (!isRoot) {
      writeFileSync(join(root, 'locked.py'), SCRIPT);
      chmodSync(join(root, 'locked.py'), 0o000);
      mkdirSync(join(root, 'locked_dir'));
      writeFileSync(join(root, 'locked_dir', 'hidden.py'), SCRIPT);
      chmodSync(join(root, 'locked_dir'), 0o000);
    }
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['check', '.', '--format', 'json'], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      cwd: root,
      wasmDir,
    });
    const stderr = err.join('\n');
    assert.equal(code, 2, stderr);
    assert.match(stderr, /dangling\.py: cannot read \(ENOENT\)/);
    assert.match(stderr, /loop_a: cannot read \(ELOOP\)/);
    if (!isRoot) {
      assert.match(stderr, /locked\.py: cannot read \(EACCES\)/);
      assert.match(stderr, /locked_dir: cannot read directory \(EACCES\)/);
    }
    const findings = JSON.parse(out.join('\n')) as unknown;
    const text = JSON.stringify(findings);
    assert.match(text, /a_good\.py/, 'the readable file before the bad ones is checked');
    assert.match(text, /z_good\.py/, 'the readable file after the bad ones is checked');
  } finally {
    if (!isRoot) {
      chmodSync(join(root, 'locked_dir'), 0o755);
      chmodSync(join(root, 'locked.py'), 0o644);
    }
    rmSync(root, { recursive: true, force: true });
  }
});

// Runs the Python benchmark-harness tests (test/harness, unittest) with Debian's PyTorch Python,
// streaming their output and exiting with their exit code. SHARDLENS_TORCH_PYTHON overrides
// /usr/bin/python3. A Python without torch is a failure, never a silent skip: CI installs python3-torch.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const python = process.env.SHARDLENS_TORCH_PYTHON ?? '/usr/bin/python3';

const probe = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  const reason = probe.error ? probe.error.message : (probe.stderr || '').trim().split('\n').pop();
  console.error(
    `harness tests: ${python} cannot import torch (${reason}).\n` +
      'Install PyTorch for it (Debian/Ubuntu: sudo apt-get install python3-torch), ' +
      'or point SHARDLENS_TORCH_PYTHON at a Python that has torch >= 1.13.',
  );
  process.exit(1);
}
console.log(`harness tests: ${python} with torch ${probe.stdout.trim()}`);

const tests = spawnSync(
  python,
  ['-m', 'unittest', 'discover', '-s', join('test', 'harness'), '-p', 'test_*.py', '-v'],
  {
    cwd: repoRoot,
    stdio: 'inherit',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  },
);
if (tests.error) {
  console.error(`harness tests: could not start ${python}: ${tests.error.message}`);
  process.exit(1);
}
process.exit(tests.status ?? 1);

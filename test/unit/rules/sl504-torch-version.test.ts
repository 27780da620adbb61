// SL504 and the workspace's PyTorch version: silent when torch is known to predate the
// deprecation (2.4), fixes that name the version their spelling needs, and a check with the
// real installed PyTorch (1.13) that the version guard protects working code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { analyzeSource } from '../../helpers/analyze';
import { torchPython } from '../../helpers/paths';
import { parseTorchVersion, torchAtLeast } from '../../../server/src/config/torch-version';
import { settingsFromPyproject } from '../../../server/src/config/settings';

const AMP_SCRIPT = `import torch


def fit(model, optimizer, loader):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        with torch.cuda.amp.autocast(dtype=torch.float16):
            loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
`;

const sl504 = async (torchVersion: string) =>
  (await analyzeSource(AMP_SCRIPT, { torchVersion })).findings.filter((f) => f.code === 'SL504');

test('torch versions parse and compare, and unknown stays unknown', () => {
  assert.deepEqual(parseTorchVersion('2.4.0+cu121'), [2, 4, 0]);
  assert.deepEqual(parseTorchVersion('1.13.0a0'), [1, 13, 0]);
  assert.equal(parseTorchVersion('nightly'), undefined);
  assert.equal(torchAtLeast('2.3.1', '2.3'), true);
  assert.equal(torchAtLeast('2.2.2', '2.3'), false);
  assert.equal(torchAtLeast('1.13.0a0', '2.4'), false);
  assert.equal(torchAtLeast('10.0', '2.4'), true);
  assert.equal(torchAtLeast('', '2.3'), undefined);
});

test('SL504 is silent when the workspace torch predates the deprecation', async () => {
  assert.deepEqual(await sl504('2.1.2'), []);
  assert.deepEqual(await sl504('2.3.1'), []);
});

test('SL504 with torch ≥ 2.4 offers fixes that name the version they need', async () => {
  const findings = await sl504('2.4.1');
  assert.equal(findings.length, 2);
  const [scaler, autocast] = findings;
  assert.equal(scaler.fixes[0].minTorch, '2.3');
  assert.match(scaler.fixes[0].title, /GradScaler\("cuda", \.\.\.\)` \(needs PyTorch ≥ 2\.3\)$/);
  assert.equal(autocast.fixes[0].minTorch, '1.13');
  assert.match(autocast.fixes[0].title, /needs PyTorch ≥ 1\.13/);
  assert.match(scaler.message, /deprecated since PyTorch 2\.4/);
  assert.match(scaler.detail ?? '', /exists since PyTorch 2\.3/);
});

test('SL504 with an unknown torch still reports, and its fix says which version it needs', async () => {
  const findings = await sl504('');
  assert.equal(findings.length, 2);
  assert.match(findings[0].fixes[0].title, /needs PyTorch ≥ 2\.3/);
});

test('a torch pin in [project] dependencies is read as a lower bound; [tool.shardlens] torch-version is explicit', () => {
  const pinned = settingsFromPyproject('[project]\ndependencies = ["numpy", "torch>=2.4,<3"]\n');
  assert.equal(pinned.torchPin, '2.4');
  assert.equal(pinned.settings.torchVersion, undefined);
  const explicit = settingsFromPyproject(
    '[project]\ndependencies = ["torch>=2.4"]\n[tool.shardlens]\ntorch-version = "2.1"\n',
  );
  assert.equal(explicit.settings.torchVersion, '2.1');
  assert.equal(
    settingsFromPyproject('[project]\ndependencies = ["torchvision>=0.19"]\n').torchPin,
    undefined,
  );
});

test('with the installed PyTorch the guard is what keeps code working', async () => {
  const probe = spawnSync(torchPython, ['-c', 'import torch; print(torch.__version__)'], {
    encoding: 'utf8',
  });
  assert.equal(probe.status, 0, probe.stderr);
  const version = probe.stdout.trim();
  const hasAmpScaler = spawnSync(torchPython, ['-c', 'import torch; torch.amp.GradScaler'], {
    encoding: 'utf8',
  });
  if (torchAtLeast(version, '2.3')) {
    // A newer torch than Debian's: the rewritten spelling exists, so offering it is safe.
    assert.equal(hasAmpScaler.status, 0, hasAmpScaler.stderr);
    assert.ok((await sl504(version)).length > 0 || torchAtLeast(version, '2.4') === false);
  } else {
    // torch.amp.GradScaler does not exist here: the fix would break the script, and SL504 is silent.
    assert.notEqual(hasAmpScaler.status, 0);
    assert.match(hasAmpScaler.stderr, /has no attribute 'GradScaler'/);
    assert.deepEqual(await sl504(version), []);
  }
});

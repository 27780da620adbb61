// Settings: reading `[tool.shardlens]` from pyproject.toml (valid, invalid, kebab-case),
// reading the editor section, merging (later sources win key by key), and finding the
// nearest pyproject.toml.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defaultSettings,
  mergeSettings,
  settingsFromEditor,
  settingsFromPyproject,
} from '../../server/src/config/settings';
import { findPyproject, loadPyprojectFor } from '../../server/src/config/pyproject';

describe('settingsFromPyproject', () => {
  test('reads a valid [tool.shardlens] section with nested tables', () => {
    const { settings, error } = settingsFromPyproject(`
[project]
name = "trainer"

[tool.ruff]
select = ["E"]

[tool.shardlens]
select = ["SL1", "sl4"]
ignore = ["SL105"]
exclude = ["scripts/legacy/**"]
debounce-ms = 50

[tool.shardlens.severity]
SL101 = "error"
sl402 = "info"
SL201 = "off"
SL301 = "loud"

[tool.shardlens.cluster]
gpu = "a100-80gb"
gpus-per-node = 4
nodes = 2

[tool.shardlens.estimate]
strategy = "fsdp-full"
sequence-length = 2048
batchSize = 4
`);
    assert.equal(error, undefined);
    assert.deepEqual(settings, {
      select: ['SL1', 'sl4'],
      ignore: ['SL105'],
      exclude: ['scripts/legacy/**'],
      debounceMs: 50,
      severity: { SL101: 'error', SL402: 'information', SL201: 'off' },
      cluster: { gpu: 'a100-80gb', gpusPerNode: 4, nodes: 2 },
      estimate: { strategy: 'fsdp-full', sequenceLength: 2048, batchSize: 4 },
    });
  });

  test('kebab-case and camelCase keys of the cluster and estimate tables are both accepted', () => {
    const kebab = settingsFromPyproject(
      '[tool.shardlens.cluster]\nintra-node-link = "pcie5"\ninter-node-link = "roce-400"\n' +
        '[tool.shardlens.cluster.custom-profiles.gpus.my-gpu]\nmemoryGB = 48\n' +
        '[tool.shardlens.estimate]\nbatch-size = 2\n',
    );
    // NOTE: smol-toml builds tables with a null prototype; compare plain copies.
    assert.deepEqual(JSON.parse(JSON.stringify(kebab.settings)), {
      cluster: {
        intraNodeLink: 'pcie5',
        interNodeLink: 'roce-400',
        customProfiles: { gpus: { 'my-gpu': { memoryGB: 48 } } },
      },
      estimate: { batchSize: 2 },
    });
    const camel = settingsFromPyproject(
      '[tool.shardlens.cluster]\nintraNodeLink = "pcie5"\ngpusPerNode = 2\n',
    );
    assert.deepEqual(camel.settings, { cluster: { intraNodeLink: 'pcie5', gpusPerNode: 2 } });
  });

  test('invalid TOML gives an error message and no settings', () => {
    const result = settingsFromPyproject('[tool.shardlens\nselect = ["SL1"');
    assert.deepEqual(result.settings, {});
    assert.match(result.error ?? '', /^pyproject\.toml is not valid TOML: \S/);
    assert.ok(!result.error?.includes('\n'));
  });

  test('no section, and values of the wrong type, are ignored', () => {
    assert.deepEqual(settingsFromPyproject('[project]\nname = "x"\n'), { settings: {} });
    assert.deepEqual(settingsFromPyproject(''), { settings: {} });
    const wrong = settingsFromPyproject(
      '[tool.shardlens]\nselect = "SL1"\nignore = ["SL2", 3]\nenable = "yes"\ndebounce-ms = "fast"\n',
    );
    assert.deepEqual(wrong, { settings: { ignore: ['SL2'] } });
  });
});

describe('settingsFromEditor', () => {
  test('reads the nested section VS Code sends', () => {
    assert.deepEqual(
      settingsFromEditor({
        enable: false,
        select: ['SL1'],
        severity: { sl101: 'hint' },
        diagnostics: { debounceMs: 10 },
        cluster: { gpu: 'mi300x', nodes: 4 },
        estimate: { precision: 'fp16' },
        inlayHints: { enable: false },
        codeLens: { enable: true },
        benchmark: { pythonPath: '/usr/bin/python3' },
      }),
      {
        enable: false,
        select: ['SL1'],
        severity: { SL101: 'hint' },
        debounceMs: 10,
        cluster: { gpu: 'mi300x', nodes: 4 },
        estimate: { precision: 'fp16' },
        inlayHints: false,
        codeLens: true,
      },
    );
  });

  test('anything but an object yields no settings', () => {
    for (const value of [undefined, null, 3, 'x', [1]]) assert.deepEqual(settingsFromEditor(value), {});
  });
});

describe('mergeSettings', () => {
  test('with no sources gives the defaults', () => {
    assert.deepEqual(mergeSettings(), defaultSettings());
    assert.deepEqual(mergeSettings({}, {}), defaultSettings());
  });

  test('later sources win key by key; nested tables merge; lists are replaced', () => {
    const editor = settingsFromEditor({
      select: ['SL1', 'SL2'],
      ignore: ['SL101'],
      severity: { SL101: 'error', SL201: 'hint' },
      cluster: { gpu: 'a100-80gb', nodes: 4 },
      diagnostics: { debounceMs: 500 },
    });
    const pyproject = settingsFromPyproject(
      '[tool.shardlens]\nignore = []\n[tool.shardlens.severity]\nSL101 = "warning"\n[tool.shardlens.cluster]\ngpu = "h100-sxm"\n',
    ).settings;
    const merged = mergeSettings(editor, pyproject);
    assert.deepEqual(merged.select, ['SL1', 'SL2'], 'kept from the editor');
    assert.deepEqual(merged.ignore, [], 'replaced by pyproject');
    assert.deepEqual(merged.severity, { SL101: 'warning', SL201: 'hint' });
    assert.deepEqual(merged.cluster, { ...defaultSettings().cluster, gpu: 'h100-sxm', nodes: 4 });
    assert.equal(merged.debounceMs, 500);
    // The other order gives the editor the last word.
    const reversed = mergeSettings(pyproject, editor);
    assert.deepEqual(reversed.ignore, ['SL101']);
    assert.equal(reversed.severity.SL101, 'error');
    assert.equal(reversed.cluster.gpu, 'a100-80gb');
  });

  test('merging does not mutate the defaults or the sources', () => {
    const source = settingsFromEditor({ severity: { SL101: 'error' }, cluster: { nodes: 2 } });
    const snapshot = JSON.stringify(source);
    const merged = mergeSettings(source);
    merged.severity.SL999 = 'hint';
    merged.cluster.nodes = 99;
    assert.equal(JSON.stringify(source), snapshot);
    assert.deepEqual(defaultSettings().severity, {});
    assert.deepEqual(mergeSettings(source).severity, { SL101: 'error' });
  });
});

describe('finding pyproject.toml', () => {
  const root = mkdtempSync(join(tmpdir(), 'shardlens-config-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'project', 'src', 'pkg'), { recursive: true });
  writeFileSync(join(root, 'project', 'pyproject.toml'), '[tool.shardlens]\nselect = ["SL4"]\n');
  writeFileSync(join(root, 'project', 'src', 'pyproject.toml'), '[tool.shardlens\n');

  test('the nearest one above a file governs it; a stop folder bounds the walk', () => {
    const inPkg = join(root, 'project', 'src', 'pkg', 'train.py');
    assert.equal(
      findPyproject(join(root, 'project', 'src', 'pkg')),
      join(root, 'project', 'src', 'pyproject.toml'),
    );
    assert.equal(findPyproject(join(root, 'project')), join(root, 'project', 'pyproject.toml'));
    assert.equal(findPyproject(root, root), undefined);
    const broken = loadPyprojectFor(inPkg);
    assert.equal(broken?.path, join(root, 'project', 'src', 'pyproject.toml'));
    assert.match(broken?.error ?? '', /src\/pyproject\.toml is not valid TOML/);
    const good = loadPyprojectFor(join(root, 'project', 'train.py'));
    assert.deepEqual(good?.settings, { select: ['SL4'] });
    assert.equal(loadPyprojectFor(join(root, 'other', 'train.py'), root), undefined);
  });

  test('lookups sharing a folder map (one CLI run) find what separate lookups find', () => {
    const known = new Map<string, string | undefined>();
    const folders = [
      join(root, 'project', 'src', 'pkg'),
      join(root, 'project', 'src'),
      join(root, 'project', 'src', 'pkg'),
      join(root, 'project'),
    ];
    for (const folder of folders)
      assert.equal(findPyproject(folder, undefined, known), findPyproject(folder));
    // The second lookup from pkg was answered from the map.
    assert.equal(
      known.get(join(root, 'project', 'src', 'pkg')),
      join(root, 'project', 'src', 'pyproject.toml'),
    );
    assert.equal(known.get(join(root, 'project')), join(root, 'project', 'pyproject.toml'));
  });

  test('an edited pyproject.toml is read again', async () => {
    const path = join(root, 'project', 'pyproject.toml');
    assert.deepEqual(loadPyprojectFor(join(root, 'project', 'a.py'))?.settings, { select: ['SL4'] });
    writeFileSync(path, '[tool.shardlens]\nselect = ["SL5"]\nignore = ["SL501"]\n');
    // NOTE: the cache keys on mtime; make sure the new write has a different one.
    const { utimesSync } = await import('node:fs');
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    assert.deepEqual(loadPyprojectFor(join(root, 'project', 'a.py'))?.settings, {
      select: ['SL5'],
      ignore: ['SL501'],
    });
  });
});

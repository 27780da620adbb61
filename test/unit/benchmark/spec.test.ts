// Tests the spec builder and default forms, the message guards, CSV export and the
// cluster-profile merge: the pure parts of the benchmark client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../helpers/paths';
import {
  buildCollectivesSpec,
  buildLayerSpec,
  defaultCollectivesForm,
  defaultLayerForm,
} from '../../../client/src/benchmark/spec';
import { isFromWebview, isToWebview, type RunRecord } from '../../../client/src/benchmark/messages';
import { parseEventLine, type HarnessEvent } from '../../../client/src/benchmark/events';
import { mergeBusBandwidth, peakBusBandwidthGBps, runToCsv } from '../../../client/src/benchmark/export';
import { buildPanelHtml } from '../../../client/src/benchmark/html';

const layerAt = {
  name: 'Block',
  kind: 'class' as const,
  file: '/ws/model.py',
  line: 10,
  constructorExpression: 'Block(GPTConfig())',
  inputs: [{ shape: ['B', 'T', 768], dtype: 'float' as const }],
  dims: { B: 8, T: 128 },
  notes: [],
};

test('the layer spec has exactly the contract fields, prefilled from layerAt', () => {
  const form = { ...defaultLayerForm(layerAt), dtype: 'bf16' as const };
  const { spec, errors } = buildLayerSpec({ form, runId: 'r1', workspaceRoot: '/ws', file: '/ws/model.py' });
  assert.deepEqual(errors, []);
  assert.deepEqual(spec, {
    version: 1,
    kind: 'layer',
    runId: 'r1',
    workspaceRoot: '/ws',
    file: '/ws/model.py',
    constructor: 'Block(GPTConfig())',
    inputs: [{ shape: ['B', 'T', 768], dtype: 'float' }],
    dims: { B: 8, T: 128 },
    batchDim: 'B',
    batchSizes: [1, 2, 4, 8],
    dtype: 'bf16',
    modes: ['forward', 'forward_backward'],
    compile: false,
    device: 'auto',
    warmupMs: 25,
    measureMs: 100,
    maxCaseSeconds: 10,
  });
});

test('the layer spec builder lists every problem', () => {
  const form = {
    ...defaultLayerForm(null),
    inputs: [{ shape: ['B', 'S'], dtype: 'float' as const }],
    modes: [],
    batchDim: 'N',
  };
  const { spec, errors } = buildLayerSpec({ form, runId: 'r2', workspaceRoot: '/ws', file: null });
  assert.equal(spec, undefined);
  assert.equal(errors.length, 4, errors.join('\n')); // empty constructor, unknown S, N absent, no mode
});

test('the collectives spec sorts sizes and checks the process count', () => {
  const form = { ...defaultCollectivesForm(4), sizesBytes: [1048576, 1024, 1024] };
  assert.deepEqual(buildCollectivesSpec({ form, runId: 'c1' }).spec, {
    version: 1,
    kind: 'collectives',
    runId: 'c1',
    worldSize: 4,
    ops: ['all_reduce', 'all_gather', 'reduce_scatter'],
    sizesBytes: [1024, 1048576],
    backend: 'auto',
    device: 'auto',
    warmup: 2,
    repetitions: 5,
  });
  // One process is allowed: it checks the NCCL path on one GPU (busbw is 0 by definition).
  assert.deepEqual(buildCollectivesSpec({ form: { ...form, worldSize: 1 }, runId: 'c2' }).errors, []);
  assert.equal(buildCollectivesSpec({ form: { ...form, worldSize: 0 }, runId: 'c3' }).errors.length, 1);
});

test('message guards accept good messages and reject malformed ones', () => {
  assert.ok(isFromWebview({ type: 'run', form: defaultLayerForm(layerAt) }));
  assert.ok(!isFromWebview({ type: 'run', form: { ...defaultLayerForm(layerAt), device: 'cuda:0; rm' } }));
  assert.ok(!isFromWebview({ type: 'export', runId: 'r1', format: 'xlsx' }));
  assert.ok(!isFromWebview({ type: 'nope' }));
  assert.ok(isToWebview({ type: 'notice', level: 'info', text: 'hi' }));
  assert.ok(
    !isToWebview({
      type: 'event',
      runId: 'r1',
      event: { type: 'done', runId: 'r2', time: 1, ok: true, cases: 0, errors: 0 },
    }),
  );
  assert.equal(parseEventLine('{"type":"progress","runId":"r1","time":1,"done":1}').event, undefined);
});

function fixtureRun(): RunRecord {
  const events = fs
    .readFileSync(path.join(repoRoot, 'test', 'panel', 'fixtures', 'events.jsonl'), 'utf8')
    .split('\n')
    .map((l) => parseEventLine(l).event)
    .filter((e): e is HarnessEvent => e !== undefined);
  return {
    runId: 'r1',
    kind: 'layer',
    layerKey: 'k',
    label: '=HYPERLINK("x")',
    startedAt: 0,
    status: 'done',
    python: 'python3',
    form: defaultLayerForm(layerAt),
    events,
  };
}

test('CSV export has one row per case and defuses formulas', () => {
  const run = fixtureRun();
  const lines = runToCsv(run).trim().split('\r\n');
  assert.equal(lines.length, 1 + run.events.filter((e) => e.type === 'case').length);
  assert.match(
    lines[1],
    /^r1,"'=HYPERLINK\(""x""\)",cuda:NVIDIA H100 80GB HBM3,1,forward,bf16,false,cuda_event,/,
  );
});

test('bus bandwidth merges into existing custom profiles', () => {
  const existing = {
    gpus: { g: { memoryGB: 80 } },
    links: { nvlink4: { latencyUs: 3 }, ib: { busBandwidthGBps: 40 } },
  };
  assert.deepEqual(mergeBusBandwidth(existing, 'nvlink4', 371.234), {
    gpus: { g: { memoryGB: 80 } },
    links: { nvlink4: { latencyUs: 3, busBandwidthGBps: 371.23 }, ib: { busBandwidthGBps: 40 } },
  });
  assert.deepEqual(mergeBusBandwidth(undefined, 'pcie4', 20), { links: { pcie4: { busBandwidthGBps: 20 } } });
  const ev = (busbwGBps: number): HarnessEvent => ({
    type: 'collective',
    runId: 'c',
    time: 0,
    op: 'all_reduce',
    sizeBytes: 1,
    worldSize: 2,
    timeMs: 1,
    algbwGBps: 1,
    busbwGBps,
    busbwFactor: 1,
  });
  assert.equal(
    peakBusBandwidthGBps({ ...fixtureRun(), kind: 'collectives', events: [ev(3), ev(9), ev(5)] }),
    9,
  );
});

test('the webview HTML has a nonce-only CSP and no inline script or style', () => {
  const html = buildPanelHtml({
    scriptUri: 'https://x/p.js',
    styleUri: 'https://x/p.css',
    cspSource: 'https://x',
    nonce: 'abc+/=',
  });
  assert.match(
    html,
    /default-src 'none'; script-src 'nonce-abc\+\/='; style-src https:\/\/x; img-src https:\/\/x data:; font-src https:\/\/x/,
  );
  assert.doesNotMatch(html, /<style|style=|<script>(?!<)/);
  assert.throws(() => buildPanelHtml({ scriptUri: '', styleUri: '', cspSource: '', nonce: '"><script>' }));
});

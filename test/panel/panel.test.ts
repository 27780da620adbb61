// Loads the built benchmark webview (dist/media/panel.js + media/panel.css) in headless
// Chromium, in a page built by the same buildPanelHtml the extension uses, streams a
// recorded harness run into it as the extension would, and checks tables, charts and CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium } from '../helpers/find-chromium.mjs';
import { repoRoot } from '../helpers/paths';
import { buildPanelHtml } from '../../client/src/benchmark/html';
import { isFromWebview, type RunRecord, type ToWebview } from '../../client/src/benchmark/messages';
import { parseEventLine, type CaseEvent, type HarnessEvent } from '../../client/src/benchmark/events';
import { cpuSizedForm, defaultCollectivesForm, defaultLayerForm } from '../../client/src/benchmark/spec';

const fixture = path.join(repoRoot, 'test', 'panel', 'fixtures', 'events.jsonl');
const events: HarnessEvent[] = fs
  .readFileSync(fixture, 'utf8')
  .split('\n')
  .map((l) => parseEventLine(l).event)
  .filter((e): e is HarnessEvent => e !== undefined);

let server: http.Server;
let browser: Browser;
let page: Page;
let origin = '';
const nonce = crypto.randomBytes(16).toString('base64');
const consoleErrors: string[] = [];
const consoleWarnings: string[] = [];

const files: Record<string, [string, string]> = {
  '/dist/media/panel.js': [path.join(repoRoot, 'dist', 'media', 'panel.js'), 'text/javascript'],
  '/media/panel.css': [path.join(repoRoot, 'media', 'panel.css'), 'text/css'],
};

before(async () => {
  assert.ok(fs.existsSync(files['/dist/media/panel.js'][0]), 'run `node esbuild.mjs` first');
  server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        buildPanelHtml({
          scriptUri: `${origin}/dist/media/panel.js`,
          styleUri: `${origin}/media/panel.css`,
          cspSource: origin,
          nonce,
        }),
      );
      return;
    }
    const file = files[url];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file[1] });
    res.end(fs.readFileSync(file[0]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const executablePath = findChromium();
  assert.ok(executablePath, 'no Chromium found: run `node scripts/test-setup.mjs` or set SHARDLENS_CHROMIUM');
  browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) =>
    (m.type() === 'error' ? consoleErrors : m.type() === 'warning' ? consoleWarnings : []).push(m.text()),
  );
  page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
  await page.addInitScript(() => {
    const w = window as unknown as Record<string, unknown>;
    w.__posted = [];
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      (w.__violations as string[]).push(`${e.violatedDirective} ${e.blockedURI}`),
    );
    w.acquireVsCodeApi = () => ({
      postMessage: (m: unknown) => (w.__posted as unknown[]).push(m),
      getState: () => undefined,
      setState: () => undefined,
    });
  });
  await page.goto(`${origin}/`);
  await page.waitForFunction(() =>
    ((window as unknown as { __posted: { type: string }[] }).__posted ?? []).some((m) => m.type === 'ready'),
  );
});

after(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

async function post(messages: unknown[]): Promise<void> {
  await page.evaluate((ms) => ms.forEach((m) => window.postMessage(m, '*')), messages);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
}

async function rowCount(selector: string): Promise<number> {
  return page.locator(`${selector} tbody tr`).count();
}

/** Non-transparent pixels of a canvas, read back from the page. */
async function inkedPixels(id: string): Promise<number> {
  return page.evaluate((canvasId) => {
    const c = document.getElementById(canvasId) as HTMLCanvasElement | null;
    if (!c || c.width === 0 || c.height === 0) return 0;
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
    return n;
  }, id);
}

const layerRun: RunRecord = {
  runId: 'r1',
  kind: 'layer',
  layerKey: '/ws/model.py::Block',
  label: 'Block',
  startedAt: Date.UTC(2024, 10, 22, 10, 0),
  status: 'running',
  python: '/usr/bin/python3',
  form: defaultLayerForm(null),
  events: [],
};

test('the page carries the CSP meta tag with a nonce, and the script the same nonce', async () => {
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.ok(csp, 'CSP meta tag missing');
  assert.match(csp!, /default-src 'none'/);
  assert.ok(csp!.includes(`script-src 'nonce-${nonce}'`));
  assert.doesNotMatch(csp!, /unsafe-inline|unsafe-eval/);
  assert.equal(await page.evaluate(() => document.querySelector('script')!.nonce), nonce);
});

test('a recorded run streams into the results table and the charts', async () => {
  const init: ToWebview = {
    type: 'init',
    layer: {
      key: layerRun.layerKey,
      name: 'Block',
      file: '/ws/model.py',
      estimate: { params: 7087872, forwardFlopsPerSample: 1.86e9, notes: ['T = 128 from the script'] },
      notes: [],
    },
    form: { ...defaultLayerForm(null), constructorExpression: 'Block(GPTConfig())' },
    collectivesForm: defaultCollectivesForm(2),
  };
  await post([init, { type: 'runStarted', run: layerRun }]);
  await post(events.map((event) => ({ type: 'event', runId: 'r1', event })));
  await post([{ type: 'runEnded', runId: 'r1', status: 'done' }]);
  const cases = events.filter((e) => e.type === 'case').length;
  assert.equal(await rowCount('table.cases'), cases);
  assert.match((await page.textContent('.device'))!, /CUDA.*NVIDIA H100/);
  assert.match((await page.textContent('table.cases'))!, /cuda_event/);
  assert.match((await page.textContent('.estimate'))!, /7\.09M/);
  // GPU peak memory beside the analyzer's floor: 7,087,872 bf16 weights = 13.5 MiB (+ grads for fwd+bwd).
  const estimate = (await page.textContent('.estimate'))!;
  assert.match(estimate, /peak memory, batch 1 fwd bf16≥ 13\.5 MiB \(weights, no activations\)15\.8 MiB/);
  assert.match(estimate, /fwd\+bwd bf16≥ 27\.0 MiB \(weights \+ grads, no activations\)/);
  assert.match((await page.textContent('.errors'))!, /oom/);
  for (const id of ['chart-latency', 'chart-roofline', 'chart-memory']) {
    assert.ok((await inkedPixels(id)) > 500, `${id} looks blank`);
  }
});

test('invalid messages are ignored', async () => {
  const before = await rowCount('table.cases');
  const good = events.find((e) => e.type === 'case')!;
  await post([
    { type: 'event', runId: 'r1', event: { ...good, timing: 'fast' } },
    { type: 'event', runId: 'r1', event: { ...good, runId: 'other' } },
    { type: 'bogus' },
    'not an object',
    42,
    { type: 'init', layer: null },
  ]);
  assert.equal(await rowCount('table.cases'), before);
  assert.ok(consoleWarnings.filter((w) => w.includes('ignored an invalid message')).length >= 6);
});

test('Run posts a valid run message built from the form', async () => {
  await page.click('#run-layer');
  const posted = await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
  const run = posted.find((m) => (m as { type: string }).type === 'run');
  assert.ok(run, 'no run message posted');
  assert.ok(isFromWebview(run), `invalid run message: ${JSON.stringify(run)}`);
  assert.equal(
    (run as { form: { constructorExpression: string } }).form.constructorExpression,
    'Block(GPTConfig())',
  );
});

test('the latency axis has ticks at the measured batch sizes only', async () => {
  const base = events.find((e): e is CaseEvent => e.type === 'case')!;
  const run: RunRecord = { ...layerRun, runId: 'r-ticks', events: [] };
  const at = (batchSize: number, medianMs: number): CaseEvent => ({
    ...base,
    runId: 'r-ticks',
    case: { ...base.case, batchSize },
    timing: { ...base.timing, medianMs },
  });
  await post([{ type: 'runStarted', run }]);
  await post([at(1, 0.5), at(2, 0.9)].map((event) => ({ type: 'event', runId: 'r-ticks', event })));
  const ticks = JSON.parse((await page.getAttribute('#chart-latency', 'data-x-ticks'))!);
  assert.deepEqual(ticks, ['1', '2']);
  await post([{ type: 'event', runId: 'r-ticks', event: at(8, 3.1) }]);
  assert.deepEqual(JSON.parse((await page.getAttribute('#chart-latency', 'data-x-ticks'))!), ['1', '2', '8']);
  await post([{ type: 'runEnded', runId: 'r-ticks', status: 'done' }]);
});

test('graph replay sits beside eager, with the regime in one sentence', async () => {
  const base = events.find((e): e is CaseEvent => e.type === 'case')!;
  const run: RunRecord = { ...layerRun, runId: 'r-graph', events: [] };
  const event: CaseEvent = {
    ...base,
    runId: 'r-graph',
    timing: { ...base.timing, medianMs: 0.52 },
    graphTiming: {
      method: 'cuda-events, CUDA-graph replay',
      medianMs: 0.16,
      iqrMs: 0.01,
      minMs: 0.15,
      repetitions: 600,
    },
    regime: 'launch-bound',
    regimeNote: 'Launch-bound: eager takes 3.2x the CUDA-graph replay of the same work.',
  };
  await post([
    { type: 'runStarted', run },
    { type: 'event', runId: 'r-graph', event },
  ]);
  const row = (await page.textContent('table.cases tbody tr'))!;
  assert.match(row, /160 µs \(eager 3\.3×\)/);
  assert.match(row, /launch-bound/);
  assert.match((await page.textContent('ul.regimes'))!, /batch 1 fwd bf16: Launch-bound: eager takes 3\.2x/);
  const series = JSON.parse((await page.getAttribute('#chart-latency', 'data-series'))!);
  assert.ok(series.includes('fwd bf16 median') && series.includes('fwd bf16 graph replay'), series.join());
  await post([{ type: 'runEnded', runId: 'r-graph', status: 'done' }]);
});

test('one banner at a time; a missing torch offers the interpreter choice', async () => {
  await post([
    { type: 'notice', level: 'info', text: 'first' },
    { type: 'notice', level: 'warning', text: 'second' },
    {
      type: 'interpreter',
      status: 'no-torch',
      backend: null,
      text: 'PyTorch is not installed for python3. Choose an interpreter that has torch 1.13 or newer.',
    },
  ]);
  assert.equal(await page.locator('.notices .notice').count(), 1);
  assert.match((await page.textContent('.notices'))!, /PyTorch is not installed for python3/);
  await page.click('#choose-interpreter');
  const posted = await page.evaluate(() => (window as unknown as { __posted: { type: string }[] }).__posted);
  assert.ok(posted.some((m) => m.type === 'chooseInterpreter'));
  // A working interpreter clears the banner and says where the run will go.
  await post([
    { type: 'interpreter', status: 'ok', backend: 'cuda', text: 'python3: torch 2.4.0; CUDA H100.' },
  ]);
  assert.equal(await page.locator('#choose-interpreter').count(), 0);
  assert.match((await page.textContent('#interpreter'))!, /torch 2\.4\.0; CUDA/);
});

test('without a GPU an untouched form is sized for the CPU and the estimate follows it', async () => {
  const form = {
    ...defaultLayerForm(null),
    constructorExpression: 'Block(GPTConfig())',
    batchSizes: [1, 2, 4, 8],
  };
  await post([{ type: 'init', layer: null, form, collectivesForm: defaultCollectivesForm(2) }]);
  assert.match((await page.textContent('#run-estimate'))!, /8 cases: .* at most 160 s/);
  await post([
    {
      type: 'interpreter',
      status: 'ok',
      backend: 'cpu',
      text: 'python3: torch 1.13.1; no GPU visible, so benchmarks run on the CPU (a small sweep).',
      cpuForm: cpuSizedForm(form),
    },
  ]);
  assert.equal(await page.inputValue('#layer-form input[name="batchSizes"]'), '1, 2');
  assert.match(
    (await page.textContent('#run-estimate'))!,
    /4 cases: about 0\.5 s .* at most 40 s \(10 s cap per case\)/,
  );
  await page.fill('#layer-form input[name="maxCaseSeconds"]', '5');
  assert.match((await page.textContent('#run-estimate'))!, /at most 20 s \(5 s cap per case\)/);
});

test('a collectives form update leaves the layer form alone', async () => {
  const constructor = await page.inputValue('#layer-form textarea[name="constructor"]');
  await post([{ type: 'collectivesForm', form: defaultCollectivesForm(1) }]);
  assert.equal(await page.inputValue('#collectives-form input[name="worldSize"]'), '1');
  assert.equal(await page.inputValue('#layer-form textarea[name="constructor"]'), constructor);
});

test('no console errors or CSP violations; screenshot saved', async () => {
  fs.mkdirSync(path.join(repoRoot, 'test-output'), { recursive: true });
  await page.screenshot({ path: path.join(repoRoot, 'test-output', 'panel.png'), fullPage: true });
  const violations = await page.evaluate(
    () => (window as unknown as { __violations: string[] }).__violations,
  );
  assert.deepEqual(violations, []);
  assert.deepEqual(consoleErrors, []);
});

// Entry point of the benchmark webview (bundled to dist/media/panel.js): keeps the panel's
// state, validates every message from the extension, renders the tabs (layer, collectives,
// history) and posts typed messages back. All data arrives by postMessage.
import { h, replace } from './dom';
import { renderCollectivesForm, renderLayerForm, readCollectivesForm, readLayerForm } from './form';
import { ChartSlot, collectivesConfig, latencyConfig, memoryConfig, rooflineConfig } from './charts';
import {
  casesTable,
  collectivesTable,
  regimeList,
  comparisonTable,
  deviceLine,
  errorsList,
  estimateTable,
  eventsOf,
  runSummary,
} from './results';
import {
  isToWebview,
  type FromWebview,
  type LayerInfo,
  type NoticeAction,
  type RunRecord,
  type ToWebview,
} from '../../client/src/benchmark/messages';
import { describeEstimate, estimateRun } from '../../client/src/benchmark/spec';
import type { ProgressEvent } from '../../client/src/benchmark/events';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
type Tab = 'layer' | 'collectives' | 'history';

const state = {
  layer: null as LayerInfo | null,
  runs: new Map<string, RunRecord>(),
  shown: { layer: undefined as string | undefined, collectives: undefined as string | undefined },
  compare: [] as string[],
  tab: 'layer' as Tab,
  /** Whether the interpreter sees a GPU; null until the probe answers. */
  gpu: null as boolean | null,
  /** True once the user edits the layer form: a CPU-sized form no longer replaces it. */
  formTouched: false,
};

function send(message: FromWebview): void {
  vscode.postMessage(message);
}

function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

// ---- static layout -------------------------------------------------------------------
const notices = h('div', { class: 'notices', role: 'status' });
const interpreterLine = h(
  'p',
  { class: 'interpreter muted', id: 'interpreter' },
  'Checking the interpreter…',
);
const estimateLine = h('p', { class: 'hint', id: 'run-estimate' });
const title = h('div', { class: 'title' });
const tabs = h('nav', { class: 'tabs', role: 'tablist' });
const sections: Record<Tab, HTMLElement> = {
  layer: h('section', { id: 'tab-layer', role: 'tabpanel' }),
  collectives: h('section', { id: 'tab-collectives', role: 'tabpanel' }),
  history: h('section', { id: 'tab-history', role: 'tabpanel' }),
};
const layerFormSlot = h('div');
const collFormSlot = h('div');
const layerStatus = h('div', { class: 'status' });
const collStatus = h('div', { class: 'status' });
const layerResults = h('div', { class: 'results' });
const collResults = h('div', { class: 'results' });
const historySlot = h('div');
const charts = {
  latency: new ChartSlot('chart-latency'),
  roofline: new ChartSlot('chart-roofline'),
  memory: new ChartSlot('chart-memory'),
  collectives: new ChartSlot('chart-collectives'),
};
const runLayer = button('Run', () => submitLayer(), { class: 'primary', id: 'run-layer' });
const cancelLayer = button('Cancel', () => send({ type: 'cancel' }), {
  class: 'secondary',
  id: 'cancel-layer',
});
const runColl = button('Run', () => submitCollectives(), { class: 'primary', id: 'run-collectives' });
const cancelColl = button('Cancel', () => send({ type: 'cancel' }), {
  class: 'secondary',
  id: 'cancel-collectives',
});

for (const tab of ['layer', 'collectives', 'history'] as Tab[]) {
  tabs.append(
    button(
      tab === 'layer' ? 'Layer' : tab === 'collectives' ? 'Collectives' : 'History',
      () => showTab(tab),
      { role: 'tab', 'data-tab': tab },
    ),
  );
}
sections.layer.append(
  layerFormSlot,
  h('div', { class: 'actions' }, runLayer, cancelLayer),
  estimateLine,
  layerStatus,
  layerResults,
  h('div', { class: 'charts' }, charts.latency.element, charts.roofline.element, charts.memory.element),
);
sections.collectives.append(
  collFormSlot,
  h('div', { class: 'actions' }, runColl, cancelColl),
  collStatus,
  collResults,
  h('div', { class: 'charts single' }, charts.collectives.element),
);
sections.history.append(historySlot);
replace(
  document.getElementById('app')!,
  h('header', {}, title, tabs),
  interpreterLine,
  notices,
  sections.layer,
  sections.collectives,
  sections.history,
);

// ---- rendering -----------------------------------------------------------------------
function showTab(tab: Tab): void {
  state.tab = tab;
  for (const [name, el] of Object.entries(sections)) el.hidden = name !== tab;
  tabs
    .querySelectorAll('button')
    .forEach((b) => b.setAttribute('aria-selected', String(b.getAttribute('data-tab') === tab)));
}

/** Shows one banner: a new notice replaces the previous one, so banners never pile up. */
function notice(level: 'info' | 'warning' | 'error', text: string, action?: NoticeAction): void {
  const item = h(
    'div',
    { class: `notice ${level}` },
    h('span', {}, text),
    action === 'chooseInterpreter'
      ? button('Choose interpreter…', () => send({ type: 'chooseInterpreter' }), {
          class: 'primary small',
          id: 'choose-interpreter',
        })
      : null,
    button('×', () => item.remove(), { class: 'icon', title: 'Dismiss' }),
  );
  replace(notices, item);
}

/** The estimated total of the layer form as it stands, shown under Run before the run. */
function renderEstimate(): void {
  const form = layerFormSlot.querySelector('form');
  const value = form ? readLayerForm(form).form : undefined;
  estimateLine.textContent = value
    ? `Estimated: ${describeEstimate(estimateRun(value, state.gpu), value)}`
    : 'Estimated: fix the form to see how long the run takes.';
}

function running(): RunRecord | undefined {
  return [...state.runs.values()].find((r) => r.status === 'running');
}

function statusBlock(run: RunRecord | undefined): HTMLElement[] {
  if (!run) return [h('p', { class: 'muted' }, 'Not run yet.')];
  const progress = [...run.events].reverse().find((e): e is ProgressEvent => e.type === 'progress');
  const started = eventsOf(run).started;
  const done = run.status === 'running' ? (progress?.done ?? 0) : (progress?.total ?? 1);
  const total = progress?.total ?? started?.totalCases ?? 1;
  const text =
    run.status === 'running'
      ? (progress?.message ?? (started ? 'Started' : 'Waiting for the harness…')) +
        (progress?.secondsLeft !== undefined ? `, about ${Math.ceil(progress.secondsLeft)} s left` : '')
      : `${run.status}${run.message ? `: ${run.message}` : ''}`;
  return [
    h(
      'div',
      { class: 'progress-line' },
      h('progress', { max: Math.max(total, 1), value: Math.min(done, total), 'aria-label': 'progress' }),
      h('span', { class: `state ${run.status}` }, `${text} (${done}/${total})`),
    ),
    deviceLine(started),
  ];
}

function exportButtons(run: RunRecord): HTMLElement {
  return h(
    'div',
    { class: 'actions' },
    button('Export CSV', () => send({ type: 'export', runId: run.runId, format: 'csv' }), {
      class: 'secondary',
    }),
    button('Export JSON', () => send({ type: 'export', runId: run.runId, format: 'json' }), {
      class: 'secondary',
    }),
  );
}

function renderLayerRun(): void {
  const run = state.shown.layer ? state.runs.get(state.shown.layer) : undefined;
  replace(layerStatus, ...statusBlock(run));
  const ev = run ? eventsOf(run) : { cases: [], errors: [], started: undefined };
  replace(
    layerResults,
    estimateTable(state.layer, ev.cases),
    errorsList(ev.errors),
    casesTable(ev.cases),
    regimeList(ev.cases),
    run && run.status !== 'running' ? exportButtons(run) : null,
  );
  charts.latency.draw(latencyConfig(ev.cases));
  charts.roofline.draw(rooflineConfig(ev.cases, ev.started));
  charts.memory.draw(memoryConfig(ev.cases));
}

function renderCollectivesRun(): void {
  const run = state.shown.collectives ? state.runs.get(state.shown.collectives) : undefined;
  replace(collStatus, ...statusBlock(run));
  const ev = run ? eventsOf(run) : { collectives: [], errors: [] };
  const store =
    run && ev.collectives.length > 0 && run.status !== 'running'
      ? button(
          'Store peak busbw in cluster profile',
          () => send({ type: 'storeBusBandwidth', runId: run.runId }),
          { class: 'secondary', id: 'store-busbw' },
        )
      : null;
  replace(
    collResults,
    errorsList(ev.errors),
    collectivesTable(ev.collectives),
    run && run.status !== 'running' ? exportButtons(run) : null,
    store,
  );
  charts.collectives.draw(collectivesConfig(ev.collectives));
}

function renderHistory(): void {
  const runs = [...state.runs.values()]
    .filter((r) => r.status !== 'running')
    .sort((a, b) => b.startedAt - a.startedAt);
  if (runs.length === 0)
    return replace(historySlot, h('p', { class: 'muted' }, 'No finished runs for this layer yet.'));
  const list = h('ul', { class: 'history' });
  for (const run of runs) {
    const box = h('input', {
      type: 'checkbox',
      checked: state.compare.includes(run.runId),
      'aria-label': 'compare',
    });
    box.addEventListener('change', () => {
      state.compare = box.checked
        ? [...state.compare.filter((id) => id !== run.runId), run.runId].slice(-2)
        : state.compare.filter((id) => id !== run.runId);
      renderHistory();
    });
    const show = button(
      'Show',
      () => {
        state.shown[run.kind] = run.runId;
        renderAll();
        showTab(run.kind);
      },
      { class: 'secondary small' },
    );
    list.append(
      h(
        'li',
        {},
        h('label', { class: 'check' }, box, runSummary(run)),
        show,
        button('Delete', () => send({ type: 'deleteRun', runId: run.runId }), { class: 'secondary small' }),
      ),
    );
  }
  const [a, b] = state.compare.map((id) => state.runs.get(id));
  const comparison =
    a && b
      ? h(
          'div',
          { class: 'comparison' },
          h('h3', {}, `A: ${runSummary(a)}`),
          h('h3', {}, `B: ${runSummary(b)}`),
          comparisonTable(a, b),
        )
      : h('p', { class: 'hint' }, 'Tick two runs to compare them side by side.');
  replace(historySlot, list, comparison);
}

function renderButtons(): void {
  const busy = running() !== undefined;
  runLayer.disabled = busy;
  runColl.disabled = busy;
  cancelLayer.disabled = !busy;
  cancelColl.disabled = !busy;
}

function renderAll(): void {
  renderLayerRun();
  renderCollectivesRun();
  renderHistory();
  renderButtons();
}

function submitLayer(): void {
  const form = layerFormSlot.querySelector('form');
  if (!form) return;
  const { form: value, errors } = readLayerForm(form);
  if (!value) return notice('error', errors.join(' '));
  send({ type: 'run', form: value });
}

function submitCollectives(): void {
  const form = collFormSlot.querySelector('form');
  if (!form) return;
  const { form: value, errors } = readCollectivesForm(form);
  if (!value) return notice('error', errors.join(' '));
  send({ type: 'runCollectives', form: value });
}

// ---- messages ------------------------------------------------------------------------
function handle(message: ToWebview): void {
  switch (message.type) {
    case 'init': {
      state.layer = message.layer;
      const l = message.layer;
      replace(
        title,
        h('h1', {}, l ? `Benchmark ${l.name}` : 'Benchmark a layer'),
        l?.file ? h('p', { class: 'muted file' }, l.file) : null,
        ...(l?.notes ?? []).map((n) => h('p', { class: 'hint' }, n)),
      );
      replace(layerFormSlot, renderLayerForm(message.form));
      state.formTouched = false;
      renderEstimate();
      replace(collFormSlot, renderCollectivesForm(message.collectivesForm));
      if (message.notice) notice('warning', message.notice);
      return renderAll();
    }
    case 'history':
      for (const run of message.runs)
        if (!state.runs.has(run.runId) || state.runs.get(run.runId)!.status !== 'running')
          state.runs.set(run.runId, run);
      for (const [id, run] of state.runs)
        if (run.status !== 'running' && !message.runs.some((r) => r.runId === id)) state.runs.delete(id);
      for (const kind of ['layer', 'collectives'] as const) {
        if (!state.shown[kind] || !state.runs.has(state.shown[kind]!))
          state.shown[kind] = message.runs.find((r) => r.kind === kind)?.runId;
      }
      return renderAll();
    case 'runStarted':
      state.runs.set(message.run.runId, { ...message.run, events: [...message.run.events] });
      state.shown[message.run.kind] = message.run.runId;
      showTab(message.run.kind);
      return renderAll();
    case 'event': {
      const run = state.runs.get(message.runId);
      if (!run) return console.warn(`[shardlens] event for unknown run ${message.runId}`);
      run.events.push(message.event);
      if (message.event.type === 'error' && !message.event.recoverable)
        notice('error', `${message.event.kind}: ${message.event.message}`);
      return run.kind === 'layer' ? renderLayerRun() : renderCollectivesRun();
    }
    case 'runEnded': {
      const run = state.runs.get(message.runId);
      if (!run) return;
      run.status = message.status;
      if (message.message) run.message = message.message;
      return renderAll();
    }
    case 'notice':
      return notice(message.level, message.text, message.action);
    case 'interpreter': {
      state.gpu = message.status === 'ok' ? message.backend !== 'cpu' : null;
      replace(interpreterLine, message.text);
      interpreterLine.className = `interpreter ${message.status === 'ok' ? 'muted' : 'error'}`;
      if (message.status !== 'ok') notice('error', message.text, 'chooseInterpreter');
      else notices.querySelector('#choose-interpreter')?.closest('.notice')?.remove();
      if (message.cpuForm && !state.formTouched) replace(layerFormSlot, renderLayerForm(message.cpuForm));
      return renderEstimate();
    }
    case 'showTab':
      return showTab(message.tab);
    case 'collectivesForm':
      return replace(collFormSlot, renderCollectivesForm(message.form));
  }
}

layerFormSlot.addEventListener('input', () => {
  state.formTouched = true;
  renderEstimate();
});
layerFormSlot.addEventListener('change', () => renderEstimate());

window.addEventListener('message', (e: MessageEvent<unknown>) => {
  if (!isToWebview(e.data)) {
    console.warn('[shardlens] ignored an invalid message', e.data);
    return;
  }
  handle(e.data);
});

showTab('layer');
renderAll();
send({ type: 'ready' });

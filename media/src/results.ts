// Tables of the benchmark panel: measured cases, the device and versions, the analyzer's
// estimate beside the measurement, errors, collectives, run history and the comparison
// of two runs.
import { fmtBytes, fmtMs, fmtNum, fmtSi, h } from './dom';
import {
  caseKeyString,
  type CaseEvent,
  type CollectiveEvent,
  type ErrorEvent,
  type StartedEvent,
} from '../../client/src/benchmark/events';
import type { LayerInfo, RunRecord } from '../../client/src/benchmark/messages';

function table(headers: string[], rows: (string | Node)[][], cls = ''): HTMLTableElement {
  return h(
    'table',
    { class: `data ${cls}`.trim() },
    h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
}

/** Cases of a run, by type. */
export function eventsOf(run: RunRecord): {
  started?: StartedEvent;
  cases: CaseEvent[];
  errors: ErrorEvent[];
  collectives: CollectiveEvent[];
} {
  return {
    started: run.events.find((e): e is StartedEvent => e.type === 'started'),
    cases: run.events.filter((e): e is CaseEvent => e.type === 'case'),
    errors: run.events.filter((e): e is ErrorEvent => e.type === 'error'),
    collectives: run.events.filter((e): e is CollectiveEvent => e.type === 'collective'),
  };
}

const BACKEND_NAMES: Record<string, string> = { cuda: 'CUDA', rocm: 'ROCm', mps: 'Apple MPS', cpu: 'CPU' };

/** "ROCm · AMD Instinct MI300X · 192 GiB · torch 2.4 (HIP 6.1)". */
export function deviceLine(started: StartedEvent | undefined): HTMLElement {
  if (!started) return h('p', { class: 'device muted' }, 'Device: waiting for the harness…');
  const v = started.versions;
  const toolkit = v.cuda ? `CUDA ${v.cuda}` : v.hip ? `HIP ${v.hip}` : null;
  const peak = started.peak.tflops
    ? `peak ${started.peak.tflops} TFLOP/s, ${started.peak.bandwidthGBps ?? '?'} GB/s (${started.peak.source})`
    : 'peak unknown';
  return h(
    'p',
    { class: 'device' },
    h(
      'span',
      { class: 'badge', 'data-backend': started.backend },
      BACKEND_NAMES[started.backend] ?? started.backend,
    ),
    ` ${started.device.name}`,
    started.device.memoryBytes ? ` · ${fmtBytes(started.device.memoryBytes)}` : '',
    ` · torch ${v.torch}${toolkit ? ` (${toolkit})` : ''} · Python ${v.python} · ${peak}`,
  );
}

/** The results table, one row per case. */
export function casesTable(cases: CaseEvent[]): HTMLElement {
  if (cases.length === 0) return h('p', { class: 'muted' }, 'No results yet.');
  const rows = cases.map((c) => [
    String(c.case.batchSize),
    c.case.mode === 'forward_backward' ? 'fwd+bwd' : 'fwd',
    `${c.case.dtype}${c.case.compiled ? ' · compiled' : ''}`,
    fmtMs(c.timing.medianMs),
    `± ${fmtMs(c.timing.iqrMs)}`,
    fmtMs(c.timing.minMs),
    `${c.timing.method} ×${c.timing.repetitions}`,
    fmtBytes(c.peakMemoryBytes),
    c.flops.value === null ? '—' : `${fmtSi(c.flops.value)} (${c.flops.source})`,
    c.achievedTflops === null
      ? '—'
      : `${fmtNum(c.achievedTflops)}${c.percentOfPeak === null ? '' : ` (${fmtNum(c.percentOfPeak, 2)}%)`}`,
    fmtNum(c.achievedGBps),
    fmtNum(c.arithmeticIntensity),
    c.roofline ?? '—',
  ]);
  return table(
    [
      'batch',
      'mode',
      'dtype',
      'median',
      'IQR',
      'min',
      'method',
      'peak mem',
      'FLOPs',
      'TFLOP/s',
      'GB/s',
      'FLOP/B',
      'bound',
    ],
    rows,
    'cases',
  );
}

/** The analyzer's estimate beside what was measured. */
export function estimateTable(layer: LayerInfo | null, cases: CaseEvent[]): HTMLElement | null {
  if (!layer?.estimate && cases.length === 0) return null;
  const measuredParams = cases.find((c) => c.params !== null)?.params ?? null;
  const fwd = cases.find((c) => c.case.mode === 'forward' && c.flops.value !== null);
  const measuredPerSample = fwd ? fwd.flops.value! / fwd.case.batchSize : null;
  const est = layer?.estimate;
  const rows = [
    ['parameters', fmtSi(est?.params), fmtSi(measuredParams)],
    [
      'forward FLOPs / sample',
      fmtSi(est?.forwardFlopsPerSample),
      measuredPerSample === null ? '—' : `${fmtSi(measuredPerSample)} (${fwd!.flops.source})`,
    ],
  ];
  return h(
    'div',
    { class: 'estimate' },
    table(['', 'analyzer estimate', 'measured'], rows, 'compact'),
    ...(est?.notes ?? []).map((n) => h('p', { class: 'hint' }, n)),
  );
}

/** Errors reported by the harness. */
export function errorsList(errors: ErrorEvent[]): HTMLElement | null {
  if (errors.length === 0) return null;
  return h(
    'ul',
    { class: 'errors' },
    ...errors.map((e) =>
      h(
        'li',
        { class: e.recoverable ? 'warning' : 'error' },
        h('strong', {}, e.kind),
        e.case ? ` (batch ${e.case.batchSize}, ${e.case.mode})` : '',
        e.op ? ` (${e.op})` : '',
        `: ${e.message}`,
      ),
    ),
  );
}

/** The collectives table. */
export function collectivesTable(results: CollectiveEvent[]): HTMLElement {
  if (results.length === 0) return h('p', { class: 'muted' }, 'No results yet.');
  return table(
    ['op', 'size', 'processes', 'time', 'algbw GB/s', 'busbw GB/s', 'factor'],
    results.map((r) => [
      r.op,
      fmtBytes(r.sizeBytes),
      String(r.worldSize),
      fmtMs(r.timeMs),
      fmtNum(r.algbwGBps),
      fmtNum(r.busbwGBps),
      fmtNum(r.busbwFactor),
    ]),
    'collectives',
  );
}

/** Side-by-side comparison of two runs of the same kind, matched by case. */
export function comparisonTable(a: RunRecord, b: RunRecord): HTMLElement {
  if (a.kind === 'collectives' || b.kind === 'collectives') {
    const key = (r: CollectiveEvent) => `${r.op}|${r.sizeBytes}`;
    const bs = new Map(eventsOf(b).collectives.map((r) => [key(r), r]));
    const rows = eventsOf(a).collectives.map((r) => {
      const o = bs.get(key(r));
      return [
        r.op,
        fmtBytes(r.sizeBytes),
        fmtNum(r.busbwGBps),
        fmtNum(o?.busbwGBps),
        o ? `${fmtNum(o.busbwGBps / r.busbwGBps)}×` : '—',
      ];
    });
    return table(['op', 'size', `busbw A`, `busbw B`, 'B / A'], rows, 'compare');
  }
  const bs = new Map(eventsOf(b).cases.map((c) => [caseKeyString(c.case), c]));
  const rows = eventsOf(a).cases.map((c) => {
    const o = bs.get(caseKeyString(c.case));
    return [
      String(c.case.batchSize),
      c.case.mode === 'forward_backward' ? 'fwd+bwd' : 'fwd',
      c.case.dtype,
      fmtMs(c.timing.medianMs),
      fmtMs(o?.timing.medianMs),
      o ? `${fmtNum(o.timing.medianMs / c.timing.medianMs)}×` : '—',
    ];
  });
  return table(['batch', 'mode', 'dtype', 'median A', 'median B', 'B / A'], rows, 'compare');
}

/** One-line description of a run for the history list. */
export function runSummary(run: RunRecord): string {
  const { started, cases, collectives } = eventsOf(run);
  const when = new Date(run.startedAt).toLocaleString();
  const device = started
    ? `${BACKEND_NAMES[started.backend] ?? started.backend} ${started.device.name}`
    : 'no device';
  const n = run.kind === 'layer' ? `${cases.length} cases` : `${collectives.length} results`;
  return `${run.label} · ${when} · ${device} · ${n} · ${run.status}`;
}

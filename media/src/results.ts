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

function caseLabel(c: CaseEvent): string {
  const mode = c.case.mode === 'forward_backward' ? 'fwd+bwd' : 'fwd';
  return `batch ${c.case.batchSize} ${mode} ${c.case.dtype}${c.case.compiled ? ' compiled' : ''}`;
}

/** Eager beside CUDA-graph replay: "0.16 ms (3.2× faster)", or why there is none. */
function graphCell(c: CaseEvent): string {
  if (!c.graphTiming) return '—';
  const ratio = c.timing.medianMs / c.graphTiming.medianMs;
  return `${fmtMs(c.graphTiming.medianMs)} (eager ${fmtNum(ratio, 2)}×)`;
}

function compileCell(c: CaseEvent): string {
  if (!c.compile) return c.case.compiled ? '?' : '—';
  const again = c.compile.recompiles ? `, ${c.compile.recompiles} recompiles` : '';
  return `first call ${fmtMs(c.compile.firstCallMs)}${again}`;
}

/** The regime of each case in one sentence (or why there is none), under the table; cases with the same sentence share a line. */
export function regimeList(cases: CaseEvent[]): HTMLElement | null {
  const byText = new Map<string, { regime: string; labels: string[] }>();
  for (const c of cases) {
    const graph = c.graphTiming || !c.graphNote ? '' : ` Graph replay: ${c.graphNote}.`;
    const text = `${c.regimeNote ?? ''}${graph}`.trim();
    if (!text) continue;
    const entry = byText.get(text) ?? { regime: c.regime ?? 'none', labels: [] };
    entry.labels.push(caseLabel(c));
    byText.set(text, entry);
  }
  if (byText.size === 0) return null;
  return h(
    'ul',
    { class: 'regimes' },
    ...[...byText].map(([text, { regime, labels }]) =>
      h('li', { 'data-regime': regime }, h('strong', {}, `${labels.join('; ')}: `), text),
    ),
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
    graphCell(c),
    `± ${fmtMs(c.timing.iqrMs)}`,
    fmtMs(c.timing.minMs),
    `${c.timing.method} ×${c.timing.repetitions}${c.timing.capped ? ' (capped)' : ''}`,
    compileCell(c),
    fmtBytes(c.peakMemoryBytes),
    c.flops.value === null ? '—' : `${fmtSi(c.flops.value)} (${c.flops.source})`,
    c.achievedTflops === null
      ? '—'
      : `${fmtNum(c.achievedTflops)}${c.percentOfPeak === null ? '' : ` (${fmtNum(c.percentOfPeak, 2)}%)`}`,
    fmtNum(c.achievedGBps),
    fmtNum(c.arithmeticIntensity),
    c.regime ?? c.roofline ?? '—',
  ]);
  return table(
    [
      'batch',
      'mode',
      'dtype',
      'median',
      'graph replay',
      'IQR',
      'min',
      'method',
      'compile',
      'peak mem',
      'FLOPs',
      'TFLOP/s',
      'GB/s',
      'FLOP/B',
      'regime',
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
    ...memoryRows(est?.params ?? null, cases),
  ];
  return h(
    'div',
    { class: 'estimate' },
    table(['', 'analyzer estimate', 'measured'], rows, 'compact'),
    ...(est?.notes ?? []).map((n) => h('p', { class: 'hint' }, n)),
  );
}

/** Bytes per element of the run dtypes (torch.finfo(dtype).bits / 8). */
const DTYPE_BYTES: Record<string, number> = { fp32: 4, bf16: 2, fp16: 2 };

/**
 * GPU peak memory per case beside the analyzer's floor for it: the weights in the run dtype,
 * plus as much again for their gradients in forward + backward. Activations are not in the
 * floor, so the measured peak is above it by the activations and the workspace.
 */
function memoryRows(params: number | null, cases: CaseEvent[]): string[][] {
  return cases
    .filter((c) => c.peakMemoryBytes !== null && !c.case.compiled)
    .map((c) => {
      const bytes = DTYPE_BYTES[c.case.dtype];
      const copies = c.case.mode === 'forward_backward' ? 2 : 1;
      const floor =
        params === null || bytes === undefined
          ? '—'
          : `≥ ${fmtBytes(params * bytes * copies)} (${copies === 2 ? 'weights + grads' : 'weights'}, no activations)`;
      return [`peak memory, ${caseLabel(c)}`, floor, fmtBytes(c.peakMemoryBytes)];
    });
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

// Turns a run record into CSV or JSON for "Export": one row per measured case (layer runs)
// or per collective and size (collectives runs). Pure; the extension writes the file.
import type { RunRecord } from './messages';
import { isObject } from './guards';
import type { CaseEvent, CollectiveEvent, StartedEvent } from './events';

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // NOTE: a leading =, +, - or @ makes spreadsheets evaluate the cell; prefix a quote.
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csv(rows: unknown[][]): string {
  return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** CSV text for a run. */
export function runToCsv(run: RunRecord): string {
  const started = run.events.find((e): e is StartedEvent => e.type === 'started');
  const device = started ? `${started.backend}:${started.device.name}` : '';
  if (run.kind === 'collectives') {
    const rows: unknown[][] = [
      ['runId', 'device', 'op', 'sizeBytes', 'worldSize', 'timeMs', 'algbwGBps', 'busbwGBps', 'busbwFactor'],
    ];
    for (const e of run.events.filter((x): x is CollectiveEvent => x.type === 'collective')) {
      rows.push([
        run.runId,
        device,
        e.op,
        e.sizeBytes,
        e.worldSize,
        e.timeMs,
        e.algbwGBps,
        e.busbwGBps,
        e.busbwFactor,
      ]);
    }
    return csv(rows);
  }
  const rows: unknown[][] = [
    [
      'runId',
      'layer',
      'device',
      'batchSize',
      'mode',
      'dtype',
      'compiled',
      'timingMethod',
      'medianMs',
      'iqrMs',
      'minMs',
      'repetitions',
      'peakMemoryBytes',
      'flops',
      'flopsSource',
      'achievedTflops',
      'percentOfPeak',
      'bytesMoved',
      'achievedGBps',
      'arithmeticIntensity',
      'roofline',
      'params',
      'graphMedianMs',
      'regime',
      'compileFirstCallMs',
    ],
  ];
  for (const e of run.events.filter((x): x is CaseEvent => x.type === 'case')) {
    rows.push([
      run.runId,
      run.label,
      device,
      e.case.batchSize,
      e.case.mode,
      e.case.dtype,
      e.case.compiled,
      e.timing.method,
      e.timing.medianMs,
      e.timing.iqrMs,
      e.timing.minMs,
      e.timing.repetitions,
      e.peakMemoryBytes,
      e.flops.value,
      e.flops.source,
      e.achievedTflops,
      e.percentOfPeak,
      e.bytesMoved,
      e.achievedGBps,
      e.arithmeticIntensity,
      e.roofline,
      e.params,
      e.graphTiming?.medianMs ?? null,
      e.regime ?? null,
      e.compile?.firstCallMs ?? null,
    ]);
  }
  return csv(rows);
}

/** JSON text for a run: the form it ran with and every event. */
export function runToJson(run: RunRecord): string {
  return JSON.stringify(run, null, 2) + '\n';
}

/** The highest measured bus bandwidth of a collectives run, or null. */
export function peakBusBandwidthGBps(run: RunRecord): number | null {
  const values = run.events
    .filter((e): e is CollectiveEvent => e.type === 'collective')
    .map((e) => e.busbwGBps);
  return values.length > 0 ? Math.max(...values) : null;
}

/** Pure merge (used by cluster.ts) of a measured bus bandwidth into a customProfiles value. */
export function mergeBusBandwidth(
  existing: unknown,
  linkId: string,
  busBandwidthGBps: number,
): Record<string, unknown> {
  const base = isObject(existing) ? existing : {};
  const links = isObject(base.links) ? base.links : {};
  const link = isObject(links[linkId]) ? links[linkId] : {};
  return {
    ...base,
    links: { ...links, [linkId]: { ...link, busBandwidthGBps: Math.round(busBandwidthGBps * 100) / 100 } },
  };
}

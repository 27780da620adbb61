// Chart.js charts of the benchmark panel: latency (median with an IQR band) against batch
// size, achieved TFLOP/s against the device's roofline (log-log), peak memory, and
// collective bus bandwidth.
import { Chart, registerables, type ChartConfiguration, type ChartDataset } from 'chart.js';
import { themeColor } from './dom';
import type { CaseEvent, CollectiveEvent, StartedEvent } from '../../client/src/benchmark/events';

// NOTE: every Chart.js component is registered; listing the few used duplicated the import list.
Chart.register(...registerables);

const PALETTE: [string, string][] = [
  ['--vscode-charts-blue', '#3794ff'],
  ['--vscode-charts-orange', '#d18616'],
  ['--vscode-charts-green', '#89d185'],
  ['--vscode-charts-purple', '#b180d7'],
  ['--vscode-charts-red', '#f14c4c'],
  ['--vscode-charts-yellow', '#cca700'],
];

function color(i: number): string {
  const [name, fallback] = PALETTE[i % PALETTE.length];
  return themeColor(name, fallback);
}

function translucent(hex: string): string {
  return /^#[0-9a-f]{6}$/i.test(hex) ? `${hex}33` : hex;
}

function baseOptions(title: string, x: object, y: object): ChartConfiguration['options'] {
  const fg = themeColor('--vscode-foreground', '#cccccc');
  const grid = themeColor('--vscode-editorWidget-border', '#454545');
  Chart.defaults.color = fg;
  Chart.defaults.borderColor = grid;
  Chart.defaults.font.family = themeColor('--vscode-font-family', 'system-ui, sans-serif');
  return {
    // NOTE: animation off keeps updates cheap while events stream in and makes the test deterministic.
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    plugins: {
      title: { display: true, text: title },
      legend: { position: 'bottom', labels: { boxWidth: 12 } },
    },
    scales: { x, y },
  };
}

/** A canvas inside a sized container, and the Chart drawn on it (kept for updates). */
export class ChartSlot {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private chart: Chart | undefined;

  constructor(readonly id: string) {
    this.canvas = document.createElement('canvas');
    this.canvas.id = id;
    this.element = document.createElement('div');
    this.element.className = 'chart';
    this.element.append(this.canvas);
  }

  /** Draws `config`, replacing the previous chart. */
  draw(config: ChartConfiguration | undefined): void {
    this.chart?.destroy();
    this.chart = config ? new Chart(this.canvas, config) : undefined;
    this.element.classList.toggle('empty', !config);
    // The x-axis tick labels Chart.js drew, for tests and accessibility tools.
    const ticks = this.chart?.scales.x?.ticks.map((t) => String(t.label)) ?? [];
    this.canvas.setAttribute('aria-label', `x axis: ${ticks.join(', ')}`);
    this.canvas.dataset.xTicks = JSON.stringify(ticks);
    this.canvas.dataset.series = JSON.stringify(this.chart?.data.datasets.map((d) => d.label) ?? []);
  }

  /** Number of data points drawn (for tests and empty states). */
  points(): number {
    return this.chart?.data.datasets.reduce((n, d) => n + d.data.length, 0) ?? 0;
  }
}

function seriesKey(c: CaseEvent): string {
  return `${c.case.mode === 'forward_backward' ? 'fwd+bwd' : 'fwd'} ${c.case.dtype}${c.case.compiled ? ' compiled' : ''}`;
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) m.set(key(it), [...(m.get(key(it)) ?? []), it]);
  return m;
}

/**
 * A logarithmic batch-size axis with ticks at the measured batch sizes only (Chart.js would
 * otherwise place ticks such as 1.00, 1.10, 1.20 between batch 1 and 2).
 */
export function batchSizeAxis(batchSizes: number[]): Record<string, unknown> {
  const measured = [...new Set(batchSizes)].sort((a, b) => a - b);
  return {
    type: 'logarithmic',
    title: { display: true, text: 'batch size' },
    // A single batch size still needs a range around it for the log scale.
    ...(measured.length === 1 ? { min: measured[0] / 2, max: measured[0] * 2 } : {}),
    afterBuildTicks: (axis: { ticks: { value: number }[] }) => {
      axis.ticks = measured.map((value) => ({ value }));
    },
    ticks: { autoSkip: false, callback: (value: number | string) => String(value) },
  };
}

/** Median latency with a band of median ± IQR/2, per mode, against batch size. */
export function latencyConfig(cases: CaseEvent[]): ChartConfiguration | undefined {
  if (cases.length === 0) return undefined;
  const datasets: ChartDataset<'line', { x: number; y: number }[]>[] = [];
  [...groupBy(cases, seriesKey)].forEach(([name, list], i) => {
    const sorted = [...list].sort((a, b) => a.case.batchSize - b.case.batchSize);
    const c = color(i);
    const pts = (f: (e: CaseEvent) => number) => sorted.map((e) => ({ x: e.case.batchSize, y: f(e) }));
    datasets.push(
      {
        label: `${name} IQR low`,
        data: pts((e) => Math.max(e.timing.medianMs - e.timing.iqrMs / 2, 1e-6)),
        borderWidth: 0,
        pointRadius: 0,
        fill: false,
      },
      {
        label: `${name} IQR`,
        data: pts((e) => e.timing.medianMs + e.timing.iqrMs / 2),
        borderWidth: 0,
        pointRadius: 0,
        backgroundColor: translucent(c),
        fill: '-1',
      },
      {
        label: `${name} median`,
        data: pts((e) => e.timing.medianMs),
        borderColor: c,
        backgroundColor: c,
        pointRadius: 3,
      },
    );
    // CUDA-graph replay of the same cases, dashed beside eager (GPU runs only).
    const replayed = sorted.filter((e) => e.graphTiming);
    if (replayed.length > 0)
      datasets.push({
        label: `${name} graph replay`,
        data: replayed.map((e) => ({ x: e.case.batchSize, y: e.graphTiming!.medianMs })),
        borderColor: c,
        backgroundColor: c,
        borderDash: [4, 3],
        pointRadius: 2,
      });
  });
  const method = [...new Set(cases.map((c) => c.timing.method))].join(', ');
  const options = baseOptions(
    `Latency (median, IQR band; ${method})`,
    batchSizeAxis(cases.map((c) => c.case.batchSize)),
    { type: 'logarithmic', title: { display: true, text: 'ms' } },
  );
  options!.plugins!.legend = {
    position: 'bottom',
    labels: { boxWidth: 12, filter: (item) => !item.text.endsWith('IQR low') },
  };
  return { type: 'line', data: { datasets }, options };
}

/** Achieved TFLOP/s against arithmetic intensity, under the roofline min(peak, bandwidth × intensity). */
export function rooflineConfig(
  cases: CaseEvent[],
  started: StartedEvent | undefined,
): ChartConfiguration | undefined {
  const measured = cases.filter(
    (c) =>
      c.arithmeticIntensity !== null &&
      c.achievedTflops !== null &&
      c.arithmeticIntensity > 0 &&
      c.achievedTflops > 0,
  );
  if (measured.length === 0) return undefined;
  const datasets: ChartDataset<'scatter' | 'line', { x: number; y: number }[]>[] = [];
  const peakTflops = started?.peak.tflops ?? null;
  const bwGBps = started?.peak.bandwidthGBps ?? null;
  const xs = measured.map((c) => c.arithmeticIntensity!);
  if (peakTflops && bwGBps) {
    const ridge = (peakTflops * 1000) / bwGBps;
    const lo = Math.min(...xs, ridge) / 4;
    const hi = Math.max(...xs, ridge) * 4;
    datasets.push({
      type: 'line',
      label: `roofline ${peakTflops} TFLOP/s · ${bwGBps} GB/s`,
      data: [lo, ridge, hi].map((x) => ({ x, y: Math.min(peakTflops, (bwGBps * x) / 1000) })),
      borderColor: themeColor('--vscode-descriptionForeground', '#9d9d9d'),
      borderDash: [6, 4],
      pointRadius: 0,
    });
  }
  [...groupBy(measured, seriesKey)].forEach(([name, list], i) => {
    datasets.push({
      type: 'scatter',
      label: name,
      data: list.map((c) => ({ x: c.arithmeticIntensity!, y: c.achievedTflops! })),
      backgroundColor: color(i),
      borderColor: color(i),
      pointRadius: 4,
    });
  });
  return {
    type: 'scatter',
    data: { datasets } as ChartConfiguration['data'],
    options: baseOptions(
      'Achieved TFLOP/s vs roofline',
      { type: 'logarithmic', title: { display: true, text: 'arithmetic intensity (FLOP/byte)' } },
      { type: 'logarithmic', title: { display: true, text: 'TFLOP/s' } },
    ),
  };
}

/** Peak memory per batch size and mode. */
export function memoryConfig(cases: CaseEvent[]): ChartConfiguration | undefined {
  const withMem = cases.filter((c) => c.peakMemoryBytes !== null);
  if (withMem.length === 0) return undefined;
  const labels = [...new Set(withMem.map((c) => c.case.batchSize))].sort((a, b) => a - b);
  const datasets = [...groupBy(withMem, seriesKey)].map(([name, list], i) => ({
    label: name,
    data: labels.map((b) => {
      const c = list.find((x) => x.case.batchSize === b);
      return c ? c.peakMemoryBytes! / 2 ** 20 : null;
    }),
    backgroundColor: color(i),
  }));
  return {
    type: 'bar',
    data: { labels: labels.map(String), datasets },
    options: baseOptions(
      'Peak memory',
      { type: 'category', title: { display: true, text: 'batch size' } },
      { type: 'linear', beginAtZero: true, title: { display: true, text: 'MiB' } },
    ),
  };
}

/** Bus bandwidth per collective against message size. */
export function collectivesConfig(results: CollectiveEvent[]): ChartConfiguration | undefined {
  if (results.length === 0) return undefined;
  const datasets = [...groupBy(results, (r) => r.op)].map(([op, list], i) => ({
    label: `${op} busbw`,
    data: [...list]
      .sort((a, b) => a.sizeBytes - b.sizeBytes)
      .map((r) => ({ x: r.sizeBytes, y: r.busbwGBps })),
    borderColor: color(i),
    backgroundColor: color(i),
    pointRadius: 3,
  }));
  return {
    type: 'line',
    data: { datasets },
    options: baseOptions(
      'Bus bandwidth',
      { type: 'logarithmic', title: { display: true, text: 'message size (bytes)' } },
      { type: 'linear', beginAtZero: true, title: { display: true, text: 'GB/s' } },
    ),
  };
}

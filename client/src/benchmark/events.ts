// Types and validators for the JSON-lines events that the Python harness
// (`python -m shardlens_bench`) appends to the events file. Shared by the extension
// (which reads the file) and the webview (which receives them by postMessage).
import { isCount, isNum, isNumOrNull, isObject, isOneOf, isOptional, isStr, isStrOrNull } from './guards';

export const DTYPES = ['fp32', 'bf16', 'fp16'] as const;
export type BenchDtype = (typeof DTYPES)[number];
export const MODES = ['forward', 'forward_backward'] as const;
export type BenchMode = (typeof MODES)[number];
export const COLLECTIVE_OPS = ['all_reduce', 'all_gather', 'reduce_scatter'] as const;
export type CollectiveOp = (typeof COLLECTIVE_OPS)[number];
export const ERROR_KINDS = ['oom', 'import', 'construct', 'shape', 'no_gpu', 'unsupported', 'other'] as const;

export interface CaseKey {
  batchSize: number;
  mode: string;
  dtype: string;
  compiled: boolean;
}

interface Base {
  runId: string;
  time: number | string;
}

export interface StartedEvent extends Base {
  type: 'started';
  backend: 'cuda' | 'rocm' | 'mps' | 'cpu';
  device: { name: string; memoryBytes: number | null; warpSize: number | null; index: number | null };
  versions: { python: string; torch: string; cuda: string | null; hip: string | null };
  collectiveBackend?: string | null;
  peak: { tflops: number | null; bandwidthGBps: number | null; source: string };
  totalCases: number;
}

export interface ProgressEvent extends Base {
  type: 'progress';
  done: number;
  total: number;
  message: string;
  /** The harness's estimate of the time left, from the cases measured so far. */
  secondsLeft?: number;
}

/** A timing summary: median, IQR, minimum, and the counts used. */
export interface TimingSummary {
  method: string;
  medianMs: number;
  iqrMs: number;
  minMs: number;
  repetitions: number;
  warmup?: number;
  capped?: boolean;
}

export const REGIMES = ['compute-bound', 'memory-bound', 'launch-bound'] as const;
export type Regime = (typeof REGIMES)[number];

export interface CaseEvent extends Base {
  type: 'case';
  case: CaseKey;
  timing: TimingSummary;
  /** CUDA-graph replay of the same step; null when not measured (graphNote says why). */
  graphTiming?: TimingSummary | null;
  graphNote?: string;
  regime?: Regime | null;
  /** The regime in one sentence. */
  regimeNote?: string;
  /** torch.compile cases: the first call (compilation included) and recompiles before timing. */
  compile?: { firstCallMs: number; recompiles: number; steadyAfterCalls: number };
  peakMemoryBytes: number | null;
  flops: { value: number | null; source: 'flop_counter' | 'analytic' | null; note?: string };
  achievedTflops: number | null;
  percentOfPeak: number | null;
  bytesMoved: number | null;
  achievedGBps: number | null;
  arithmeticIntensity: number | null;
  roofline: 'compute-bound' | 'memory-bound' | null;
  params: number | null;
}

export interface CollectiveEvent extends Base {
  type: 'collective';
  op: string;
  sizeBytes: number;
  worldSize: number;
  timeMs: number;
  algbwGBps: number;
  busbwGBps: number;
  busbwFactor: number;
}

export interface ErrorEvent extends Base {
  type: 'error';
  kind: (typeof ERROR_KINDS)[number];
  message: string;
  recoverable: boolean;
  case?: CaseKey;
  op?: string;
}

export interface DoneEvent extends Base {
  type: 'done';
  ok: boolean;
  cases: number;
  errors: number;
}

/** Any event the harness writes. */
export type HarnessEvent =
  StartedEvent | ProgressEvent | CaseEvent | CollectiveEvent | ErrorEvent | DoneEvent;

function isCaseKey(v: unknown): v is CaseKey {
  return (
    isObject(v) && isNum(v.batchSize) && isStr(v.mode) && isStr(v.dtype) && typeof v.compiled === 'boolean'
  );
}

function isBase(v: Record<string, unknown>): boolean {
  return isStr(v.runId) && (isNum(v.time) || isStr(v.time));
}

function isStarted(v: Record<string, unknown>): boolean {
  const d = v.device;
  const ver = v.versions;
  const peak = v.peak;
  return (
    isOneOf(v.backend, ['cuda', 'rocm', 'mps', 'cpu'] as const) &&
    isObject(d) &&
    isStr(d.name) &&
    isNumOrNull(d.memoryBytes ?? null) &&
    isNumOrNull(d.warpSize ?? null) &&
    isNumOrNull(d.index ?? null) &&
    isObject(ver) &&
    isStr(ver.python) &&
    isStr(ver.torch) &&
    isStrOrNull(ver.cuda ?? null) &&
    isStrOrNull(ver.hip ?? null) &&
    isOptional(v.collectiveBackend, isStrOrNull) &&
    isObject(peak) &&
    isNumOrNull(peak.tflops ?? null) &&
    isNumOrNull(peak.bandwidthGBps ?? null) &&
    isStr(peak.source) &&
    isCount(v.totalCases)
  );
}

function isTiming(t: unknown): t is TimingSummary {
  return (
    isObject(t) &&
    isStr(t.method) &&
    isNum(t.medianMs) &&
    isNum(t.iqrMs) &&
    isNum(t.minMs) &&
    isCount(t.repetitions) &&
    isOptional(t.warmup, isCount) &&
    (t.capped === undefined || typeof t.capped === 'boolean')
  );
}

function isCompile(c: unknown): boolean {
  return isObject(c) && isNum(c.firstCallMs) && isCount(c.recompiles) && isCount(c.steadyAfterCalls);
}

function isCase(v: Record<string, unknown>): boolean {
  const f = v.flops;
  return (
    isCaseKey(v.case) &&
    isTiming(v.timing) &&
    (v.graphTiming === undefined || v.graphTiming === null || isTiming(v.graphTiming)) &&
    isOptional(v.graphNote, isStr) &&
    (v.regime === undefined || v.regime === null || isOneOf(v.regime, REGIMES)) &&
    isOptional(v.regimeNote, isStr) &&
    (v.compile === undefined || isCompile(v.compile)) &&
    isNumOrNull(v.peakMemoryBytes ?? null) &&
    isObject(f) &&
    isNumOrNull(f.value ?? null) &&
    (f.source === null || f.source === 'flop_counter' || f.source === 'analytic') &&
    isOptional(f.note, isStr) &&
    isNumOrNull(v.achievedTflops ?? null) &&
    isNumOrNull(v.percentOfPeak ?? null) &&
    isNumOrNull(v.bytesMoved ?? null) &&
    isNumOrNull(v.achievedGBps ?? null) &&
    isNumOrNull(v.arithmeticIntensity ?? null) &&
    (v.roofline === undefined ||
      v.roofline === null ||
      isOneOf(v.roofline, ['compute-bound', 'memory-bound'] as const)) &&
    isNumOrNull(v.params ?? null)
  );
}

function isCollective(v: Record<string, unknown>): boolean {
  return (
    isStr(v.op) &&
    isNum(v.sizeBytes) &&
    isCount(v.worldSize) &&
    isNum(v.timeMs) &&
    isNum(v.algbwGBps) &&
    isNum(v.busbwGBps) &&
    isNum(v.busbwFactor)
  );
}

function isError(v: Record<string, unknown>): boolean {
  return (
    isOneOf(v.kind, ERROR_KINDS) &&
    isStr(v.message) &&
    typeof v.recoverable === 'boolean' &&
    isOptional(v.case, isCaseKey) &&
    isOptional(v.op, isStr)
  );
}

/** True when `v` is a well-formed harness event (unknown extra fields are allowed). */
export function isHarnessEvent(v: unknown): v is HarnessEvent {
  if (!isObject(v) || !isBase(v)) return false;
  switch (v.type) {
    case 'started':
      return isStarted(v);
    case 'progress':
      return isCount(v.done) && isCount(v.total) && isStr(v.message);
    case 'case':
      return isCase(v);
    case 'collective':
      return isCollective(v);
    case 'error':
      return isError(v);
    case 'done':
      return typeof v.ok === 'boolean' && isCount(v.cases) && isCount(v.errors);
    default:
      return false;
  }
}

/** Parses one line of the events file; returns undefined (and why) when it is not a valid event. */
export function parseEventLine(line: string): { event?: HarnessEvent; problem?: string } {
  const text = line.trim();
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `not JSON: ${text.slice(0, 120)}` };
  }
  if (!isHarnessEvent(value)) return { problem: `not a valid event: ${text.slice(0, 120)}` };
  return { event: value };
}

/** A stable key for one measured case, used to match cases across runs. */
export function caseKeyString(key: CaseKey): string {
  return `${key.mode}|${key.dtype}|${key.compiled ? 'compiled' : 'eager'}|${key.batchSize}`;
}

export { isCaseKey };

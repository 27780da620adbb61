// The typed messages exchanged between the extension and the benchmark webview, with
// hand-written validators used on both sides (invalid messages are dropped and logged).
// Imported by client/src/benchmark/* and media/src/*; must not import `vscode`.
import { isArrayOf, isCount, isNum, isNumOrNull, isObject, isOneOf, isOptional, isStr } from './guards';
import {
  COLLECTIVE_OPS,
  DTYPES,
  MODES,
  isHarnessEvent,
  type BenchDtype,
  type BenchMode,
  type CollectiveOp,
  type HarnessEvent,
} from './events';

/** One input tensor of the layer; dims are numbers or names such as "B". */
export interface InputForm {
  shape: (number | string)[];
  dtype: 'float' | 'long';
  high?: number;
}

/** What the user can edit for a layer benchmark. */
export interface LayerForm {
  constructorExpression: string;
  inputs: InputForm[];
  dims: Record<string, number>;
  batchDim: string | null;
  batchSizes: number[];
  dtype: BenchDtype;
  modes: BenchMode[];
  compile: boolean;
  device: string;
  /** Time budget per case, as triton.testing.do_bench (25 ms warm-up, 100 ms measurement). */
  warmupMs: number;
  measureMs: number;
  /** Cap on one case's calls, in seconds. */
  maxCaseSeconds: number;
}

/** What the user can edit for a collectives benchmark. */
export interface CollectivesForm {
  worldSize: number;
  ops: CollectiveOp[];
  sizesBytes: number[];
  backend: 'auto' | 'gloo' | 'nccl';
  device: 'auto' | 'cpu';
  warmup: number;
  repetitions: number;
}

/** The layer the panel benchmarks, with the analyzer's estimate when the server had one. */
export interface LayerInfo {
  key: string;
  name: string;
  file: string | null;
  estimate: { params: number | null; forwardFlopsPerSample: number | null; notes: string[] } | null;
  notes: string[];
}

export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** One run as kept in history and shown in the panel. */
export interface RunRecord {
  runId: string;
  kind: 'layer' | 'collectives';
  layerKey: string;
  label: string;
  startedAt: number;
  status: RunStatus;
  python: string;
  form: LayerForm | CollectivesForm;
  events: HarnessEvent[];
  message?: string;
}

/** Extension → webview. */
export type ToWebview =
  | {
      type: 'init';
      layer: LayerInfo | null;
      form: LayerForm;
      collectivesForm: CollectivesForm;
      notice?: string;
    }
  | { type: 'history'; runs: RunRecord[] }
  | { type: 'runStarted'; run: RunRecord }
  | { type: 'event'; runId: string; event: HarnessEvent }
  | { type: 'runEnded'; runId: string; status: RunStatus; message?: string }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; text: string; action?: NoticeAction }
  | {
      type: 'interpreter';
      status: InterpreterStatus;
      backend: string | null;
      text: string;
      cpuForm?: LayerForm;
    }
  | { type: 'showTab'; tab: 'layer' | 'collectives' | 'history' }
  | { type: 'collectivesForm'; form: CollectivesForm };

/** A button a notice can carry. */
export type NoticeAction = 'chooseInterpreter';
/** What the interpreter probe found (probe.ts). */
export type InterpreterStatus = 'ok' | 'no-torch' | 'no-python' | 'error';

/** Webview → extension. */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'run'; form: LayerForm }
  | { type: 'runCollectives'; form: CollectivesForm }
  | { type: 'cancel' }
  | { type: 'export'; runId: string; format: 'csv' | 'json' }
  | { type: 'storeBusBandwidth'; runId: string }
  | { type: 'deleteRun'; runId: string }
  | { type: 'chooseInterpreter' };

const MAX_TEXT = 10_000;

function isShortStr(v: unknown): v is string {
  return isStr(v) && v.length <= MAX_TEXT;
}

function isPositiveInt(v: unknown): v is number {
  return isCount(v) && v > 0;
}

function isInputForm(v: unknown): v is InputForm {
  return (
    isObject(v) &&
    Array.isArray(v.shape) &&
    v.shape.length <= 16 &&
    v.shape.every((d) => isPositiveInt(d) || (isStr(d) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(d))) &&
    isOneOf(v.dtype, ['float', 'long'] as const) &&
    isOptional(v.high, isPositiveInt)
  );
}

function isDims(v: unknown): v is Record<string, number> {
  return (
    isObject(v) && Object.entries(v).every(([k, n]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && isPositiveInt(n))
  );
}

/** Structural check of a layer form (semantic checks are in spec.ts). */
export function isLayerForm(v: unknown): v is LayerForm {
  return (
    isObject(v) &&
    isShortStr(v.constructorExpression) &&
    isArrayOf(v.inputs, isInputForm) &&
    isDims(v.dims) &&
    (v.batchDim === null || isShortStr(v.batchDim)) &&
    isArrayOf(v.batchSizes, isPositiveInt) &&
    isOneOf(v.dtype, DTYPES) &&
    isArrayOf(v.modes, (m): m is BenchMode => isOneOf(m, MODES)) &&
    typeof v.compile === 'boolean' &&
    isStr(v.device) &&
    /^(auto|cpu|cuda:\d+)$/.test(v.device) &&
    isNum(v.warmupMs) &&
    v.warmupMs >= 0 &&
    isNum(v.measureMs) &&
    v.measureMs > 0 &&
    isNum(v.maxCaseSeconds) &&
    v.maxCaseSeconds > 0
  );
}

/** Structural check of a collectives form. */
export function isCollectivesForm(v: unknown): v is CollectivesForm {
  return (
    isObject(v) &&
    isPositiveInt(v.worldSize) &&
    isArrayOf(v.ops, (o): o is CollectiveOp => isOneOf(o, COLLECTIVE_OPS)) &&
    isArrayOf(v.sizesBytes, isPositiveInt) &&
    isOneOf(v.backend, ['auto', 'gloo', 'nccl'] as const) &&
    isOneOf(v.device, ['auto', 'cpu'] as const) &&
    isCount(v.warmup) &&
    isPositiveInt(v.repetitions)
  );
}

function isLayerInfo(v: unknown): v is LayerInfo {
  if (!isObject(v) || !isStr(v.key) || !isStr(v.name) || !(v.file === null || isStr(v.file))) return false;
  if (!isArrayOf(v.notes, isStr)) return false;
  const e = v.estimate;
  return (
    e === null ||
    (isObject(e) &&
      isNumOrNull(e.params) &&
      isNumOrNull(e.forwardFlopsPerSample) &&
      isArrayOf(e.notes, isStr))
  );
}

const RUN_STATUSES = ['running', 'done', 'failed', 'cancelled'] as const;

/** Check of a stored or received run record. */
export function isRunRecord(v: unknown): v is RunRecord {
  return (
    isObject(v) &&
    isStr(v.runId) &&
    isOneOf(v.kind, ['layer', 'collectives'] as const) &&
    isStr(v.layerKey) &&
    isStr(v.label) &&
    isNum(v.startedAt) &&
    isOneOf(v.status, RUN_STATUSES) &&
    isStr(v.python) &&
    (v.kind === 'layer' ? isLayerForm(v.form) : isCollectivesForm(v.form)) &&
    isArrayOf(v.events, isHarnessEvent) &&
    isOptional(v.message, isStr)
  );
}

/** Validates a message received by the webview. */
export function isToWebview(v: unknown): v is ToWebview {
  if (!isObject(v)) return false;
  switch (v.type) {
    case 'init':
      return (
        (v.layer === null || isLayerInfo(v.layer)) &&
        isLayerForm(v.form) &&
        isCollectivesForm(v.collectivesForm) &&
        isOptional(v.notice, isStr)
      );
    case 'history':
      return isArrayOf(v.runs, isRunRecord);
    case 'runStarted':
      return isRunRecord(v.run);
    case 'event':
      return isStr(v.runId) && isHarnessEvent(v.event) && v.event.runId === v.runId;
    case 'runEnded':
      return isStr(v.runId) && isOneOf(v.status, RUN_STATUSES) && isOptional(v.message, isStr);
    case 'notice':
      return (
        isOneOf(v.level, ['info', 'warning', 'error'] as const) &&
        isStr(v.text) &&
        isOptional(v.action, (a): a is NoticeAction => a === 'chooseInterpreter')
      );
    case 'interpreter':
      return (
        isOneOf(v.status, ['ok', 'no-torch', 'no-python', 'error'] as const) &&
        (v.backend === null || isStr(v.backend)) &&
        isStr(v.text) &&
        isOptional(v.cpuForm, isLayerForm)
      );
    case 'showTab':
      return isOneOf(v.tab, ['layer', 'collectives', 'history'] as const);
    case 'collectivesForm':
      return isCollectivesForm(v.form);
    default:
      return false;
  }
}

/** Validates a message received by the extension from the webview. */
export function isFromWebview(v: unknown): v is FromWebview {
  if (!isObject(v)) return false;
  switch (v.type) {
    case 'ready':
    case 'cancel':
    case 'chooseInterpreter':
      return true;
    case 'run':
      return isLayerForm(v.form);
    case 'runCollectives':
      return isCollectivesForm(v.form);
    case 'export':
      return isStr(v.runId) && isOneOf(v.format, ['csv', 'json'] as const);
    case 'storeBusBandwidth':
    case 'deleteRun':
      return isStr(v.runId);
    default:
      return false;
  }
}

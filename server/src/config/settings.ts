// Shardlens settings: their defaults, reading them from VS Code's `shardlens.*` section
// and from `[tool.shardlens]` in pyproject.toml, and merging the two (pyproject wins, as
// in Ruff) so that the editor and the CLI report the same findings.
import { parse as parseToml } from 'smol-toml';

/** Severity names used in settings; `off` disables a rule. */
export type SeverityName = 'error' | 'warning' | 'information' | 'hint' | 'off';

/** The cluster the estimates assume. */
export interface ClusterSettings {
  gpu: string;
  gpusPerNode: number;
  nodes: number;
  intraNodeLink: string;
  interNodeLink: string;
  customProfiles: Record<string, unknown>;
}

/** Defaults for estimates when the script does not say. */
export interface EstimateSettings {
  strategy: string;
  precision: string;
  optimizer: string;
  batchSize: number;
  sequenceLength: number;
}

/** Every setting the server and the CLI read. */
export interface Settings {
  enable: boolean;
  select: string[];
  ignore: string[];
  severity: Record<string, SeverityName>;
  exclude: string[];
  debounceMs: number;
  cluster: ClusterSettings;
  estimate: EstimateSettings;
  inlayHints: boolean;
  codeLens: boolean;
  /**
   * The PyTorch version of the workspace (`2.1`, `2.4.0+cu121`), or '' when unknown: from
   * `shardlens.torchVersion`, `[tool.shardlens] torch-version`, the client's probe of the
   * selected interpreter, or a `torch>=X` pin in `[project] dependencies` (a lower bound).
   */
  torchVersion: string;
  /** Hosted rule docs (`https://…/rules`, or a URL with `{code}`); '' for the shipped pages. */
  docsBaseUrl: string;
}

/** The defaults, identical to the `default`s contributed in package.json. */
export function defaultSettings(): Settings {
  return {
    enable: true,
    select: [],
    ignore: [],
    severity: {},
    exclude: [],
    debounceMs: 50,
    cluster: {
      gpu: 'h100-sxm',
      gpusPerNode: 8,
      nodes: 1,
      intraNodeLink: 'nvlink4',
      interNodeLink: 'ib-ndr',
      customProfiles: {},
    },
    estimate: {
      strategy: 'ddp',
      precision: 'amp-bf16',
      optimizer: 'adamw',
      batchSize: 8,
      sequenceLength: 1024,
    },
    inlayHints: true,
    codeLens: true,
    torchVersion: '',
    docsBaseUrl: '',
  };
}

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
const str = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);
const bool = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

const SEVERITIES = new Set(['error', 'warning', 'information', 'hint', 'off', 'info']);

function severities(value: unknown): Record<string, SeverityName> | undefined {
  if (!isObject(value)) return undefined;
  const result: Record<string, SeverityName> = {};
  for (const [code, severity] of Object.entries(value)) {
    if (typeof severity === 'string' && SEVERITIES.has(severity)) {
      result[code.toUpperCase()] = (severity === 'info' ? 'information' : severity) as SeverityName;
    }
  }
  return result;
}

/** A partial settings object: only what one source actually set. */
export type PartialSettings = {
  [K in keyof Settings]?: Settings[K] extends unknown[]
    ? Settings[K]
    : Settings[K] extends object
      ? Partial<Settings[K]>
      : Settings[K];
};

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Reads the `shardlens` section as VS Code sends it (nested objects: `diagnostics.debounceMs`,
 * `cluster.gpu`, ...). Keys with the wrong type are ignored.
 */
export function settingsFromEditor(section: unknown): PartialSettings {
  if (!isObject(section)) return {};
  const diagnostics = isObject(section.diagnostics) ? section.diagnostics : {};
  const cluster = isObject(section.cluster) ? section.cluster : {};
  const estimate = isObject(section.estimate) ? section.estimate : {};
  const inlayHints = isObject(section.inlayHints) ? section.inlayHints : {};
  const codeLens = isObject(section.codeLens) ? section.codeLens : {};
  const docs = isObject(section.docs) ? section.docs : {};
  return dropUndefined({
    enable: bool(section.enable),
    select: strings(section.select),
    ignore: strings(section.ignore),
    severity: severities(section.severity),
    exclude: strings(section.exclude),
    debounceMs: num(diagnostics.debounceMs),
    cluster: readCluster(cluster),
    estimate: readEstimate(estimate),
    inlayHints: bool(inlayHints.enable),
    codeLens: bool(codeLens.enable),
    torchVersion: str(section.torchVersion),
    docsBaseUrl: str(docs.baseUrl),
  });
}

function readCluster(cluster: Loose): Partial<ClusterSettings> {
  return dropUndefined({
    gpu: str(cluster.gpu),
    gpusPerNode: num(cluster.gpusPerNode ?? cluster['gpus-per-node']),
    nodes: num(cluster.nodes),
    intraNodeLink: str(cluster.intraNodeLink ?? cluster['intra-node-link']),
    interNodeLink: str(cluster.interNodeLink ?? cluster['inter-node-link']),
    customProfiles: isObject(cluster.customProfiles ?? cluster['custom-profiles'])
      ? ((cluster.customProfiles ?? cluster['custom-profiles']) as Loose)
      : undefined,
  });
}

function readEstimate(estimate: Loose): Partial<EstimateSettings> {
  return dropUndefined({
    strategy: str(estimate.strategy),
    precision: str(estimate.precision),
    optimizer: str(estimate.optimizer),
    batchSize: num(estimate.batchSize ?? estimate['batch-size']),
    sequenceLength: num(estimate.sequenceLength ?? estimate['sequence-length']),
  });
}

/** Result of reading a pyproject.toml: the settings it sets, or the parse error to report. */
export interface PyprojectSettings {
  settings: PartialSettings;
  error?: string;
  /**
   * The lower bound of a `torch>=X` pin in `[project] dependencies`: the torch version to
   * assume when neither a setting nor the interpreter says (`settings.torchVersion` wins).
   */
  torchPin?: string;
}

/**
 * Reads `[tool.shardlens]` from pyproject.toml text. Keys are spelled as in the editor
 * (`select`, `ignore`, `severity`, `exclude`, `debounce-ms`, `[tool.shardlens.cluster]`,
 * `[tool.shardlens.estimate]`), with kebab-case accepted as Ruff users expect.
 */
export function settingsFromPyproject(text: string): PyprojectSettings {
  let document: Loose;
  try {
    document = parseToml(text) as Loose;
  } catch (error) {
    return {
      settings: {},
      error: `pyproject.toml is not valid TOML: ${(error as Error).message.split('\n')[0]}`,
    };
  }
  const tool = isObject(document.tool) ? document.tool : {};
  const section = isObject(tool.shardlens) ? tool.shardlens : undefined;
  const pin = torchPin(document.project);
  const withPin = pin ? { torchPin: pin } : {};
  if (!section) return { settings: {}, ...withPin };
  return {
    ...withPin,
    settings: dropUndefined({
      enable: bool(section.enable),
      select: strings(section.select),
      ignore: strings(section.ignore),
      severity: severities(section.severity),
      exclude: strings(section.exclude),
      debounceMs: num(section['debounce-ms']),
      cluster: isObject(section.cluster) ? readCluster(section.cluster) : undefined,
      estimate: isObject(section.estimate) ? readEstimate(section.estimate) : undefined,
      torchVersion: str(section['torch-version']),
    }),
  };
}

/** The lower bound of a `torch>=X` / `torch==X` / `torch~=X` entry in `[project] dependencies`. */
function torchPin(project: unknown): string | undefined {
  const dependencies = isObject(project) ? strings(project.dependencies) : undefined;
  for (const dependency of dependencies ?? []) {
    const pin = /^\s*torch\s*(?:\[[^\]]*\])?\s*(?:>=|==|~=)\s*(\d+(?:\.\d+)*)/.exec(dependency);
    if (pin) return pin[1];
  }
  return undefined;
}

/** Applies sources in order; later sources win key by key (so pass pyproject last). */
export function mergeSettings(...sources: PartialSettings[]): Settings {
  const merged = defaultSettings();
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) {
      if (value === undefined) continue;
      const target = merged as unknown as Loose;
      if (isObject(value) && isObject(target[key]) && key !== 'severity') {
        target[key] = { ...(target[key] as Loose), ...value };
      } else if (key === 'severity' && isObject(value)) {
        target[key] = { ...(target[key] as Loose), ...value };
      } else {
        target[key] = value;
      }
    }
  }
  return merged;
}

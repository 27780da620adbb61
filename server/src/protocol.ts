// Custom LSP messages shared by the client and the server, declared once (as
// vscode-eslint does): each namespace holds its method name and typed parameters.
// NOTE: plain method strings, not RequestType objects: the client and server packages
// bundle different vscode-jsonrpc versions whose RequestType classes are incompatible.

/** One input tensor of a layer, with dims as numbers or named symbols such as "B" and "T". */
export interface InputTemplate {
  shape: (number | string)[];
  /** `float` inputs follow the benchmark dtype; `long` inputs are token ids in [0, high). */
  dtype: 'float' | 'long';
  high?: number;
}

/** What the server knows about the module under the cursor. */
export interface LayerAtResult {
  /** Class or layer name, e.g. `Block` or `nn.Linear`. */
  name: string;
  kind: 'class' | 'layer';
  /** Absolute file path of the module's source. */
  file: string;
  /** Zero-based line of the class or constructor call. */
  line: number;
  /** A Python expression that constructs the module inside the file's namespace. */
  constructorExpression: string;
  inputs: InputTemplate[];
  /** Default values for the named dims in `inputs` (from the script or settings). */
  dims: Record<string, number>;
  /** The analyzer's estimate for the module, shown beside the measurement. */
  estimate?: { params: number | null; forwardFlopsPerSample?: number | null; notes: string[] };
  notes: string[];
}

export namespace LayerAtRequest {
  export const method = 'shardlens/layerAt';
  export interface Params {
    textDocument: { uri: string };
    position: { line: number; character: number };
  }
  export type Result = LayerAtResult | null;
}

/** Sent by the server when its status changes (ready, analysing, an internal error). */
export namespace StatusNotification {
  export const method = 'shardlens/status';
  export interface Params {
    state: 'ready' | 'busy' | 'error';
    message?: string;
  }
}

/**
 * Sent by the client when it learns the workspace interpreter's PyTorch version (it runs
 * `python -c "import torch; print(torch.__version__)"` in trusted workspaces only).
 * Settings (`shardlens.torchVersion`, `[tool.shardlens] torch-version`) take precedence.
 */
export namespace EnvironmentNotification {
  export const method = 'shardlens/environment';
  export interface Params {
    /** The interpreter that was asked. */
    interpreter: string;
    /** `torch.__version__`, or null when the interpreter has no torch (or could not run). */
    torchVersion: string | null;
  }
}

/** What the client announces in `initializationOptions` besides its settings. */
export interface ClientInitOptions {
  settings?: unknown;
  /** The client registers `shardlens.openRuleDocs` (rendered, read-only rule pages). */
  opensRuleDocs?: boolean;
}

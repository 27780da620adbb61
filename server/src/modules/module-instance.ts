// The evaluator's picture of one constructed nn.Module: its parameters, buffers, child
// modules and plain attributes, and what could not be counted. Parameters are objects so
// that weight tying (`self.a.weight = self.b.weight`) shares one and it is counted once.
import type { TransformerShape } from '../estimate/activations';

/** One parameter tensor; `numel` null when its shape is not known. */
export interface Param {
  shape: number[] | null;
  numel: number | null;
  trainable: boolean;
}

/** One registered buffer (running statistics, masks, rotary tables). */
export interface Buffer {
  shape: number[] | null;
  numel: number | null;
  persistent: boolean;
}

/** Something whose parameters could not be counted: the expression and the reason. */
export interface UnknownPart {
  text: string;
  reason: string;
  /** Zero-based line where it was found, when known. */
  line?: number;
  /** True when only a buffer's size is unknown (the parameter count stays exact). */
  bufferOnly?: boolean;
}

/** Where a module was constructed (the call) or defined (the class). */
export interface SourceSpot {
  file: string | null;
  line: number;
  character: number;
}

/** Layer hyper-parameters the catalog recorded (in/out features, kernel, ...). */
export type LayerConfig = Record<string, number | number[] | boolean | null>;

/** One module instance built by the evaluator. */
export class ModuleInstance {
  readonly children = new Map<string, ModuleInstance>();
  readonly params = new Map<string, Param>();
  readonly buffers = new Map<string, Buffer>();
  readonly attrs = new Map<string, import('./values').Value>();
  readonly unknowns: UnknownPart[] = [];
  /** `list` for Sequential/ModuleList, `dict` for ModuleDict; undefined otherwise. */
  containerKind?: 'list' | 'dict';
  /** Layer hyper-parameters for catalog layers. */
  layerConfig?: LayerConfig;
  /** Where it was constructed. */
  origin?: SourceSpot;
  /** The source text of the constructor call. */
  constructorText?: string;
  /** Evaluated constructor arguments of catalog layers (stride, padding, p, inplace for the forward walker). */
  constructorArgs?: {
    positional: import('./values').Value[];
    keywords: Map<string, import('./values').Value>;
  };
  /** For library models (catalog): what the counts came from and the architecture. */
  library?: {
    id: string;
    note: string;
    largestLayerParams: number;
    transformer?: TransformerShape;
  };

  constructor(
    /** `Linear`, `Sequential`, or the user class name. */
    readonly typeName: string,
    /** `torch.nn.Linear` for library layers; the class name for user classes. */
    readonly qualified: string,
    readonly kind: 'layer' | 'container' | 'user' | 'library',
    readonly cls?: import('./classes').ClassInfo,
  ) {}
}

/** Totals over a module tree, counting each shared parameter once. */
export interface ParamTotals {
  /** Sum of the parameters whose size is known. */
  known: number;
  trainable: number;
  buffers: number;
  /** Parts that could not be counted (each distinct part once); empty when `known` is exact. */
  unknowns: UnknownPart[];
  /** Parts whose buffer size is unknown while the parameter count stays exact. */
  bufferUnknowns: UnknownPart[];
  /** The single direct module (a leaf layer or a user module's own parameters) with the most parameters. */
  largestLayer: { path: string; params: number } | null;
}

/** Visits every distinct module below and including `root`, with its dotted path. */
export function forEachModule(
  root: ModuleInstance,
  visit: (module: ModuleInstance, path: string) => void,
): void {
  const seen = new Set<ModuleInstance>();
  const stack: [ModuleInstance, string][] = [[root, '']];
  while (stack.length) {
    const [module, path] = stack.pop()!;
    if (seen.has(module)) continue;
    seen.add(module);
    visit(module, path);
    const entries = [...module.children.entries()].reverse();
    for (const [name, child] of entries) stack.push([child, path ? `${path}.${name}` : name]);
  }
}

/** Counts parameters (each shared parameter once, as `Module.parameters()` does), buffers and unknowns. */
export function countParams(root: ModuleInstance): ParamTotals {
  const seenParams = new Set<Param>();
  const seenBuffers = new Set<Buffer>();
  const totals: ParamTotals = {
    known: 0,
    trainable: 0,
    buffers: 0,
    unknowns: [],
    bufferUnknowns: [],
    largestLayer: null,
  };
  // NOTE: the same source line builds many modules (a block class repeated 12 times): each
  // distinct part is reported once.
  const seenParts = new Set<string>();
  forEachModule(root, (module, path) => {
    let own = 0;
    for (const param of module.params.values()) {
      if (seenParams.has(param)) continue;
      seenParams.add(param);
      if (param.numel === null) continue;
      own += param.numel;
      totals.known += param.numel;
      if (param.trainable) totals.trainable += param.numel;
    }
    for (const buffer of module.buffers.values()) {
      if (seenBuffers.has(buffer) || buffer.numel === null) continue;
      seenBuffers.add(buffer);
      totals.buffers += buffer.numel;
    }
    for (const part of module.unknowns) {
      const key = `${part.text}\u0000${part.reason}\u0000${part.line ?? ''}\u0000${part.bufferOnly ?? false}`;
      if (seenParts.has(key)) continue;
      seenParts.add(key);
      (part.bufferOnly ? totals.bufferUnknowns : totals.unknowns).push(part);
    }
    if (module.library) own = module.library.largestLayerParams;
    if (own > 0 && (!totals.largestLayer || own > totals.largestLayer.params)) {
      totals.largestLayer = { path: path || '(root)', params: own };
    }
  });
  return totals;
}

/** Every distinct parameter below `root` (for `.parameters()` and `requires_grad_`). */
export function allParams(root: ModuleInstance): Param[] {
  const seen = new Set<Param>();
  forEachModule(root, (module) => {
    for (const param of module.params.values()) seen.add(param);
  });
  return [...seen];
}

/** The product of a shape's dims (1 for a scalar). */
export function numelOf(shape: readonly number[]): number {
  return shape.reduce((product, dim) => product * dim, 1);
}

/** A parameter of a known shape. */
export function makeParam(shape: number[], trainable = true): Param {
  return { shape, numel: numelOf(shape), trainable };
}

/**
 * One line per distinct cause: parts with the same reason share a line naming up to two of
 * them; buffer-only causes say that the parameter count is not affected.
 */
export function describeCauses(input: { unknowns: UnknownPart[]; bufferUnknowns: UnknownPart[] }): string[] {
  const lines: string[] = [];
  const group = (parts: UnknownPart[], suffix: string) => {
    const byReason = new Map<string, string[]>();
    for (const part of parts) {
      const texts = byReason.get(part.reason) ?? [];
      if (!texts.includes(part.text)) texts.push(part.text);
      byReason.set(part.reason, texts);
    }
    for (const [reason, texts] of byReason) {
      const named = texts
        .slice(0, 2)
        .map((t) => `\`${t.replace(/`/g, '')}\``)
        .join(', ');
      const more = texts.length > 2 ? ` and ${texts.length - 2} more` : '';
      lines.push(`${reason}: ${named}${more}${suffix}`);
    }
  };
  group(input.unknowns, '');
  group(input.bufferUnknowns, ' (buffers only; the parameter count is exact)');
  return lines;
}

/**
 * A deep copy of a module tree (`copy.deepcopy`, `nn.TransformerEncoder`'s clones): fresh
 * parameters and buffers, shared ones stay shared within the copy, and every other field
 * (layer config, origin, constructor text, and any field added later) is carried over.
 */
export function deepCopyModule(root: ModuleInstance): ModuleInstance {
  const params = new Map<Param, Param>();
  const modules = new Map<ModuleInstance, ModuleInstance>();
  const copy = (source: ModuleInstance): ModuleInstance => {
    const existing = modules.get(source);
    if (existing) return existing;
    const target = new ModuleInstance(source.typeName, source.qualified, source.kind, source.cls);
    modules.set(source, target);
    for (const [key, value] of Object.entries(source)) {
      if (!(value instanceof Map) && key !== 'unknowns')
        (target as unknown as Record<string, unknown>)[key] = value;
    }
    for (const [k, p] of source.params) {
      if (!params.has(p)) params.set(p, { ...p });
      target.params.set(k, params.get(p)!);
    }
    for (const [k, b] of source.buffers) target.buffers.set(k, { ...b });
    for (const [k, c] of source.children) target.children.set(k, copy(c));
    for (const [k, a] of source.attrs) target.attrs.set(k, a);
    target.unknowns.push(...source.unknowns);
    return target;
  };
  return copy(root);
}

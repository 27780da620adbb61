// Imported workspace files, resolved and parsed on demand: relative imports from the
// importing file's folder, absolute ones under the workspace roots. Never scans the
// workspace; caches parses (and misses) until `invalidate(path)`, and bounds the files
// read per request and the import depth, so a 20,000-file workspace stays cheap.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { collectImports, type ImportTable } from '../analysis/imports';
import { parseSource, type ParsedSource } from '../parse/parser';
import type { SyntaxNode } from '../parse/syntax';

/** A parsed workspace file. */
export interface ParsedFile {
  path: string;
  root: SyntaxNode;
  imports: ImportTable;
  /** The whole parse (node index and count), for a FileModel of the file. */
  parsed: ParsedSource;
}

/** Options for {@link WorkspaceFiles}. */
export interface WorkspaceFilesOptions {
  /** Workspace folders (absolute paths) under which absolute imports are looked up. */
  roots: string[];
  parser: Parser;
  /** Reads a file's text, or undefined when it does not exist (default: the file system). */
  readFile?: (path: string) => string | undefined;
  /** Most files read (parsed) per request; default 32. */
  maxFilesPerRequest?: number;
  /** Most files followed from the first one through imports; default 4. */
  maxDepth?: number;
  /** Library packages whose source is read from the roots anyway (e.g. `torchvision` in site-packages). */
  sourcePackages?: string[];
}

/** Top-level packages that are libraries, never looked up in the workspace. */
const LIBRARY_HEADS = new Set([
  'torch',
  'torchvision',
  'torchaudio',
  'transformers',
  'numpy',
  'typing',
  'dataclasses',
  'math',
  'os',
  'sys',
  'collections',
  'functools',
  'itertools',
  'copy',
  'json',
  'deepspeed',
  'accelerate',
  'lightning',
  'pytorch_lightning',
  'timm',
  'einops',
  'inspect',
  'logging',
  'warnings',
  're',
  'time',
  'pathlib',
  'abc',
  'enum',
  'types',
]);

function defaultReadFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Resolves and parses imported workspace files, with a cache and per-request bounds. */
export class WorkspaceFiles {
  private readonly roots: string[];
  private readonly parser: Parser;
  private readonly readFile: (path: string) => string | undefined;
  private readonly maxFiles: number;
  readonly maxDepth: number;
  private readonly sourcePackages: Set<string>;
  /** Path → parsed file, or null when the file does not exist or could not be parsed. */
  private readonly cache = new Map<string, ParsedFile | null>();
  private readsThisRequest = 0;
  /** Import depth of each file reached in this request (0 = the file being evaluated). */
  private readonly depthOf = new Map<string, number>();

  constructor(options: WorkspaceFilesOptions) {
    this.roots = options.roots.map((r) => resolvePath(r));
    this.parser = options.parser;
    this.readFile = options.readFile ?? defaultReadFile;
    this.maxFiles = options.maxFilesPerRequest ?? 32;
    this.maxDepth = options.maxDepth ?? 4;
    this.sourcePackages = new Set(options.sourcePackages ?? []);
  }

  /** Starts a request: resets the per-request read budget and depths. */
  beginRequest(entryFile: string | null): void {
    this.readsThisRequest = 0;
    this.depthOf.clear();
    if (entryFile) this.depthOf.set(resolvePath(entryFile), 0);
  }

  /** Forgets a file (called on change events); its dependants re-resolve on their next request. */
  invalidate(path: string): void {
    this.cache.delete(resolvePath(path));
    this.generation++;
  }

  /** Bumped by every {@link invalidate}: evaluations cached under an older generation are stale. */
  generation = 0;

  /** Whether this request has used its whole read budget (files past it were not read). */
  get budgetSpent(): boolean {
    return this.readsThisRequest >= this.maxFiles;
  }

  /** Files read since the last {@link beginRequest} (for tests and logs). */
  get filesRead(): number {
    return this.readsThisRequest;
  }

  /**
   * Resolves a dotted import name (`.blocks.MLPBlock`, `pkg.blocks`) seen in `fromFile` to a
   * workspace file and the attribute path left inside it; undefined for library names,
   * missing files and exceeded bounds.
   */
  resolve(input: {
    fromFile: string | null;
    dotted: string;
  }): { file: ParsedFile; rest: string[] } | undefined {
    const { fromFile, dotted } = input;
    const fromDepth = fromFile ? (this.depthOf.get(resolvePath(fromFile)) ?? 0) : 0;
    if (fromDepth >= this.maxDepth) return undefined;
    const dots = /^\.*/.exec(dotted)![0].length;
    const parts = dotted.slice(dots).split('.').filter(Boolean);
    let bases: string[];
    if (dots > 0) {
      if (!fromFile) return undefined;
      let base = dirname(resolvePath(fromFile));
      for (let i = 1; i < dots; i++) base = dirname(base);
      bases = [base];
    } else {
      if (!parts.length || (LIBRARY_HEADS.has(parts[0]) && !this.sourcePackages.has(parts[0])))
        return undefined;
      bases = this.roots;
      if (fromFile && !bases.includes(dirname(resolvePath(fromFile))))
        bases = [...bases, dirname(resolvePath(fromFile))];
    }
    for (const base of bases) {
      for (let i = parts.length; i >= (dots > 0 ? 0 : 1); i--) {
        const folder = join(base, ...parts.slice(0, i));
        const candidates =
          i === 0 ? [join(folder, '__init__.py')] : [`${folder}.py`, join(folder, '__init__.py')];
        for (const candidate of candidates) {
          const file = this.load(candidate);
          if (!file) continue;
          const depth = this.depthOf.get(candidate);
          if (depth === undefined || depth > fromDepth + 1) this.depthOf.set(candidate, fromDepth + 1);
          return { file, rest: parts.slice(i) };
        }
      }
    }
    return undefined;
  }

  /** The parsed file at `path` (read within this request's budget), if it exists and parses. */
  file(path: string): ParsedFile | undefined {
    return this.load(resolvePath(path)) ?? undefined;
  }

  private load(path: string): ParsedFile | null {
    const cached = this.cache.get(path);
    if (cached !== undefined) return cached;
    if (this.readsThisRequest >= this.maxFiles) return null;
    this.readsThisRequest++;
    const text = this.readFile(path);
    let parsed: ParsedFile | null = null;
    // A file over 2 MB is never followed (the analyzer's own limit for one document).
    if (text !== undefined && text.length <= 2 * 1024 * 1024) {
      try {
        const whole = parseSource(this.parser, text);
        parsed = { path, root: whole.root, imports: collectImports(whole), parsed: whole };
      } catch {
        parsed = null;
      }
    }
    this.cache.set(path, parsed);
    return parsed;
  }
}

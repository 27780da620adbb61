// The walks the lowering can take over a tree without web-tree-sitter's public TreeCursor
// (which marshals its four words through the transfer buffer around every call):
// - `memory`: tree-sitter's cursor redone in JS over the wasm heap (memory-walk.ts), used
//   once a probe text has shown that it walks exactly as the exported cursor does;
// - `exports`: direct calls into the C cursor functions, with no marshalling;
// - `cursor`: neither (the lowering uses the public API).
import type { Parser, Tree } from 'web-tree-sitter';
import { MemoryWalk, type HeapViews } from './memory-walk';

/**
 * The wasm exports the walk uses (`tree-sitter.c` in web-tree-sitter 0.25). Each cursor
 * function reads the cursor from the transfer buffer and the moving ones write it back, so
 * a cursor created there stays there between calls as long as nothing else runs in between.
 */
export interface DirectWasm {
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
}

const REQUIRED: (keyof DirectWasm)[] = [
  '_ts_tree_root_node_wasm',
  '_ts_tree_cursor_new_wasm',
  '_ts_tree_cursor_delete_wasm',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_current_field_id_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
];

/** A cursor over one tree, as the lowering walk uses it (tree-sitter's TSTreeCursor calls). */
export interface TreeWalk {
  typeId(): number;
  fieldId(): number;
  /** UTF-16 offsets of the current node; end exclusive. */
  startIndex(): number;
  endIndex(): number;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
  /** Releases the walk (the C cursor, for `exports`). */
  close(): void;
}

/** The C cursor of one tree through the raw exports; one can be open at a time. */
class ExportWalk implements TreeWalk {
  constructor(
    private readonly wasm: DirectWasm,
    private readonly address: number,
  ) {
    wasm._ts_tree_root_node_wasm(address);
    wasm._ts_tree_cursor_new_wasm(address);
  }
  typeId(): number {
    return this.wasm._ts_tree_cursor_current_node_type_id_wasm(this.address);
  }
  fieldId(): number {
    return this.wasm._ts_tree_cursor_current_field_id_wasm(this.address);
  }
  startIndex(): number {
    return this.wasm._ts_tree_cursor_start_index_wasm(this.address);
  }
  endIndex(): number {
    return this.wasm._ts_tree_cursor_end_index_wasm(this.address);
  }
  gotoFirstChild(): boolean {
    return this.wasm._ts_tree_cursor_goto_first_child_wasm(this.address) !== 0;
  }
  gotoNextSibling(): boolean {
    return this.wasm._ts_tree_cursor_goto_next_sibling_wasm(this.address) !== 0;
  }
  gotoParent(): boolean {
    return this.wasm._ts_tree_cursor_goto_parent_wasm(this.address) !== 0;
  }
  close(): void {
    this.wasm._ts_tree_cursor_delete_wasm(this.address);
  }
}

/** Which walk the lowering takes (see the top of this file). */
export type LoweringWalk = 'memory' | 'exports' | 'cursor';

let registered: (DirectWasm & Partial<HeapViews>) | undefined;
let asked: LoweringWalk = 'memory';
/** Whether the memory walk matched the exported cursor on the probe text. */
let memoryVerified = false;

/**
 * Registers the Emscripten module object (the options object given to `Parser.init`, which
 * Emscripten turns into the module) when it has every export the walk needs; otherwise the
 * lowering keeps using the public TreeCursor API.
 */
export function registerDirectWasm(moduleObject: unknown): boolean {
  const candidate = moduleObject as Partial<Record<keyof DirectWasm, unknown>> | undefined;
  registered =
    candidate && REQUIRED.every((name) => typeof candidate[name] === 'function')
      ? (candidate as DirectWasm)
      : undefined;
  memoryVerified = false;
  return registered !== undefined;
}

/** Chooses the walk (tests and benchmarks compare them); `memory` means `exports` until verified. */
export function setLoweringWalk(walk: LoweringWalk): void {
  asked = walk;
}

/** The walk the lowering takes now. */
export function activeLoweringWalk(): LoweringWalk {
  if (!registered || asked === 'cursor') return 'cursor';
  return asked === 'memory' && memoryVerified && heapOf(registered) ? 'memory' : 'exports';
}

/** A walk over `tree` for the lowering, or undefined to use the public API. */
export function openWalk(tree: Tree): TreeWalk | undefined {
  // NOTE: `tree[0]` is web-tree-sitter's internal handle (the TSTree pointer); checked, not assumed.
  const address = (tree as unknown as Record<number, unknown>)[0];
  if (typeof address !== 'number' || address === 0) return undefined;
  const walk = activeLoweringWalk();
  if (walk === 'memory') return new MemoryWalk(heapOf(registered!)!, address);
  return walk === 'exports' ? new ExportWalk(registered!, address) : undefined;
}

/** The module's current heap views (Emscripten replaces them when the memory grows). */
function heapOf(module: Partial<HeapViews>): HeapViews | undefined {
  const { HEAPU8, HEAPU16, HEAPU32 } = module;
  return HEAPU8 && HEAPU16 && HEAPU32 && LITTLE_ENDIAN ? { HEAPU8, HEAPU16, HEAPU32 } : undefined;
}

/** Typed arrays use the platform's byte order; the heap layout read by the memory walk is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Parses the probe text and walks it both ways, comparing every step; the memory walk is
 * used only when they agree, so a web-tree-sitter whose tree layout differs keeps the
 * exported cursor.
 */
export function verifyMemoryWalk(
  parser: Parser,
  memoryWalk: (heap: HeapViews, tree: number) => TreeWalk = (heap, tree) => new MemoryWalk(heap, tree),
): boolean {
  memoryVerified = false;
  const module = registered;
  if (!module || !heapOf(module)) return false;
  const tree = parser.parse(PROBE_TEXT);
  if (!tree) return false;
  try {
    const address = (tree as unknown as Record<number, unknown>)[0];
    if (typeof address !== 'number' || address === 0) return false;
    const viaExports = walkSteps(new ExportWalk(module, address));
    const viaMemory = walkSteps(memoryWalk(heapOf(module)!, address));
    memoryVerified = viaExports.length > 100 && viaExports.join(' ') === viaMemory.join(' ');
  } catch {
    memoryVerified = false;
  } finally {
    tree.delete();
  }
  return memoryVerified;
}

/** Every node of a walk in order, with its type, field and offsets, and each move back up. */
function walkSteps(walk: TreeWalk): string[] {
  const steps: string[] = [];
  const note = () => steps.push(`${walk.typeId()}/${walk.fieldId()}/${walk.startIndex()}-${walk.endIndex()}`);
  try {
    note();
    for (;;) {
      if (walk.gotoFirstChild()) {
        note();
        continue;
      }
      while (!walk.gotoNextSibling()) {
        if (!walk.gotoParent()) return steps;
        steps.push('^');
      }
      note();
    }
  } finally {
    walk.close();
  }
}

/**
 * Python that exercises what the walk must get right: aliased and hidden nodes, fields
 * reached through hidden nodes, extras (comments) between children, text outside ASCII,
 * missing and ERROR nodes, and nodes with more than 256 children (past a field map's byte).
 */
const PROBE_TEXT = [
  '# probe \u2713 for the lowering walk',
  'import torch.nn as nn, os',
  ') a '.repeat(800),
  'from . import (a as b,  # trailing comment',
  '    c)',
  '@decorator(x=1)',
  'class Block(nn.Module):',
  "    '''Doc \u00abstring\u00bb \ud83d\ude00.'''",
  "    def forward(self, x: 'T', *args, y=2, **kw) -> int:",
  '        total = sum(v for v in x if v) + [w ** 2 for w in args][0]',
  "        print(f'{total!r:>10} and {x[1:2, ...]}')",
  '        if not (a and b) or c is not None: pass',
  '        elif x in y: del x[0]',
  '        lam = lambda q, *r: q @ r',
  '        with open(p) as f, g: yield from f',
  '        match total:',
  "            case [1, *rest] | {'k': _}: return -total",
  '        try: raise ValueError()',
  '        except* (E, F) as err: total += 1',
  '        return x.view(-1, )[..., None] if x else (yield)',
  'def broken(a, b:',
  '    return a +',
  'x = [1, 2',
  `wide = f(${'a, b=1, '.repeat(150)})`,
  `print(${'a, '.repeat(150)}`,
  "print('never closed)",
].join('\n');

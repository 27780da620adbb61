// Direct calls into the web-tree-sitter wasm exports for the lowering walk: the public
// TreeCursor marshals its four words through the transfer buffer (DataView get/set) around
// every call; a walk that owns the buffer calls the C functions with no marshalling at all.
import type { Tree } from 'web-tree-sitter';

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

let registered: DirectWasm | undefined;
let enabled = true;

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
  return registered !== undefined;
}

/** Turns the direct path on or off (tests and benchmarks compare it with the public-API walk). */
export function setDirectWasmEnabled(on: boolean): void {
  enabled = on;
}

/** Whether lowering will use the direct path. */
export function isDirectWasmActive(): boolean {
  return enabled && registered !== undefined;
}

/** The registered exports and the tree's wasm address, or undefined to use the public API. */
export function directAccess(tree: Tree): { wasm: DirectWasm; address: number } | undefined {
  // NOTE: `tree[0]` is web-tree-sitter's internal handle (the TSTree pointer); checked, not assumed.
  const address = (tree as unknown as Record<number, unknown>)[0];
  const direct = enabled ? registered : undefined;
  if (!direct || typeof address !== 'number' || address === 0) return undefined;
  return { wasm: direct, address };
}

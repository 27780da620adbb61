// How the parser reads the text it parses. web-tree-sitter (0.25) hands tree-sitter its
// input through one imported function, `tree_sitter_parse_callback`: each call copies up to
// 5,119 UTF-16 code units into the parser's input buffer, one code unit at a time through a
// DataView. On real files that copy is about a tenth of a parse. This module replaces the
// import, when the wasm module is instantiated, with one that makes the same copy with a
// single `Buffer.write`. The replacement is used only once a probe text has parsed to the
// same tree both ways (`verifyTextInput`); until then, or if they differ, every call goes to
// web-tree-sitter's own function. `parseOnly`, the benchmarks' bare parse, always does.
import { readFileSync } from 'node:fs';
import type { Parser, Tree } from 'web-tree-sitter';

/** `tree_sitter_parse_callback(buffer, index, row, column, lengthAddress)` (web-tree-sitter's binding). */
type ParseCallbackImport = (
  buffer: number,
  index: number,
  row: number,
  column: number,
  lengthAddress: number,
) => void;

/** What the copy reads from Emscripten's module object. */
interface InputModule {
  currentParseCallback?: (index: number, position: { row: number; column: number }) => unknown;
  HEAPU8?: Uint8Array;
}

/** The input buffer's bytes (the binding's 10 KiB) less the NUL that ends the copied text. */
const INPUT_BYTES = 10 * 1024 - 2;

let stockCopy: ParseCallbackImport | undefined;
let fastCopyOn = false;
let heap: Buffer | undefined;

/**
 * Makes `moduleObject` (the options given to `Parser.init`) instantiate `wasmPath` itself,
 * with the parse callback import routed through this module. The fast copy stays off until
 * {@link verifyTextInput} turns it on.
 */
export function routeTextInput(moduleObject: InputModule & Record<string, unknown>, wasmPath: string): void {
  moduleObject.instantiateWasm = (
    imports: { env?: Record<string, unknown> },
    receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ) => {
    const env = imports.env;
    const stock = env?.tree_sitter_parse_callback;
    if (env && typeof stock === 'function') {
      stockCopy = stock as ParseCallbackImport;
      env.tree_sitter_parse_callback = (
        buffer: number,
        index: number,
        row: number,
        column: number,
        lengthAddress: number,
      ) =>
        fastCopyOn
          ? copyText(moduleObject, buffer, index, row, column, lengthAddress)
          : stockCopy!(buffer, index, row, column, lengthAddress);
    }
    // NOTE: synchronous, so a failure rejects `Parser.init` instead of leaving it waiting.
    const module = new WebAssembly.Module(readFileSync(wasmPath));
    receive(new WebAssembly.Instance(module, imports as WebAssembly.Imports), module);
    return {};
  };
}

/** The copy of web-tree-sitter's callback: the length of the text from `index`, then its first code units and a NUL. */
function copyText(
  module: InputModule,
  buffer: number,
  index: number,
  row: number,
  column: number,
  lengthAddress: number,
): void {
  const text = module.currentParseCallback!(index, { row, column });
  const bytes = module.HEAPU8!;
  // NOTE: the wasm memory's buffer is replaced when it grows.
  if (heap?.buffer !== bytes.buffer) heap = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (typeof text !== 'string') {
    heap.writeInt32LE(0, lengthAddress);
    return;
  }
  heap.writeInt32LE(text.length, lengthAddress);
  const limit = textInputFault.dropLastCodeUnit
    ? Math.max(0, Math.min(INPUT_BYTES, 2 * text.length) - 2)
    : INPUT_BYTES;
  const written = heap.write(text, buffer, limit, 'utf16le');
  heap.writeUInt16LE(0, buffer + written);
}

/** Runs `parse` with web-tree-sitter's own input copy (the benchmarks' bare parse). */
export function withStockTextInput<T>(parse: () => T): T {
  return withFastCopy(false, parse);
}

function withFastCopy<T>(on: boolean, run: () => T): T {
  const was = fastCopyOn;
  fastCopyOn = on;
  try {
    return run();
  } finally {
    fastCopyOn = was;
  }
}

/** Whether parses use the fast copy. */
export function fastTextInputOn(): boolean {
  return fastCopyOn;
}

/**
 * Parses the probe text with web-tree-sitter's copy and with the fast one and turns the fast
 * one on only when both trees have the same nodes at the same offsets.
 */
export function verifyTextInput(parser: Parser): boolean {
  fastCopyOn = false;
  if (!stockCopy) return false;
  const probe = probeText();
  const stock = parsedNodes(parser.parse(probe));
  const fast = withFastCopy(true, () => parsedNodes(parser.parse(probe)));
  fastCopyOn = stock.length > 1000 && stock.join(' ') === fast.join(' ');
  return fastCopyOn;
}

/** A deliberate fault for tests: the fast copy leaves out the last code unit of each chunk. */
export const textInputFault = { dropLastCodeUnit: false };

/**
 * Every node of `tree` in document order, with its type, UTF-16 offsets and whether it is
 * missing; the tree is deleted.
 */
export function parsedNodes(tree: Tree | null): string[] {
  if (!tree) return [];
  const nodes: string[] = [];
  const cursor = tree.walk();
  try {
    for (;;) {
      nodes.push(`${cursor.nodeType}/${cursor.startIndex}-${cursor.endIndex}/${cursor.nodeIsMissing}`);
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return nodes;
    }
  } finally {
    cursor.delete();
    tree.delete();
  }
}

/**
 * Python that crosses the input buffer's 5,119-code-unit chunks in the ways that matter:
 * text outside ASCII, a surrogate pair split by a chunk's end, lines longer than a chunk.
 */
function probeText(): string {
  let text = '# probe \u00e9\u2713 for the text copy\nimport torch';
  for (let i = 0; text.length < 6_000; i++)
    text += `\nx${i} = f("\u00ab\u00bb", "\ud83d\ude00", ${i})  # \u03c0`;
  // A pair split at the first chunk's end: the high surrogate is its last code unit (5,118).
  const split = `${text.slice(0, 5116)}\n'\ud83d\ude00'\n`;
  return `${split}${text.slice(5116)}\ns = "${'\u00e9'.repeat(6_000)}"\n`;
}

// The only module that knows where the wasm files are: loads web-tree-sitter and the
// Python grammar once, parses document text, and lowers each tree into plain JS nodes
// (see syntax.ts) so that analysis never crosses into the wasm heap per property.
import { Parser, Language, type Tree } from 'web-tree-sitter';
import { join } from 'node:path';
import { lowerTree, type LoweredTree } from './syntax';
import { registerDirectWasm, verifyMemoryWalk } from './direct-walk';
import { lowerChunked } from './chunked';
import { routeTextInput, verifyTextInput, withStockTextInput } from './text-input';
import { wholeTextOptions } from './comment-runs';

let parserPromise: Promise<Parser> | undefined;

/** Options for {@link initParser}. */
export interface ParserInit {
  /** Folder holding tree-sitter.wasm and tree-sitter-python.wasm (dist/ when bundled). */
  wasmDir: string;
}

/** Loads the runtime and grammar once; later calls return the same parser. */
export function initParser({ wasmDir }: ParserInit): Promise<Parser> {
  parserPromise ??= (async () => {
    // NOTE: Emscripten turns the options object into the module object, whose raw exports
    // let the lowering walk skip web-tree-sitter's per-call marshalling (direct-walk.ts).
    const moduleObject: Record<string, unknown> = { locateFile: (file: string) => join(wasmDir, file) };
    routeTextInput(moduleObject, join(wasmDir, 'tree-sitter.wasm'));
    await Parser.init(moduleObject);
    registerDirectWasm(moduleObject);
    const python = await Language.load(join(wasmDir, 'tree-sitter-python.wasm'));
    const parser = new Parser();
    parser.setLanguage(python);
    verifyMemoryWalk(parser);
    verifyTextInput(parser);
    return parser;
  })();
  return parserPromise;
}

/** A parsed document: the lowered syntax tree (with its nodes by type) and whether the source had syntax errors. */
export interface ParsedSource extends LoweredTree {
  hasError: boolean;
}

/**
 * Parses `text` and lowers it; the wasm tree is deleted before returning, so nothing
 * leaks in the wasm heap whatever the caller does with the result. A text with syntax
 * errors is lowered chunk by chunk (chunked.ts), so an error stays inside its chunk.
 */
export function parseSource(parser: Parser, text: string): ParsedSource {
  const tree: Tree | null = parser.parse(text, null, wholeTextOptions(text));
  if (!tree) throw new Error('tree-sitter returned no tree');
  let hasError = false;
  try {
    hasError = tree.rootNode.hasError;
    if (!hasError) return { ...lowerTree(tree, text), hasError };
  } finally {
    tree.delete();
  }
  return { ...lowerChunked(parser, text).lowered, hasError };
}

/**
 * Parses without lowering and deletes the tree: the bare parse time the benchmarks compare
 * against, so it reads the text as web-tree-sitter does (text-input.ts).
 */
export function parseOnly(parser: Parser, text: string): void {
  withStockTextInput(() => parser.parse(text))?.delete();
}

// Plain-JS syntax nodes lowered from a tree-sitter tree with one cursor walk. Analysis
// works on these (fast property access, safe after the wasm tree is deleted); the walk
// uses an explicit stack, so 10,000-deep nesting cannot overflow the JS stack.
import type { Tree } from 'web-tree-sitter';
import { directAccess, type DirectWasm } from './direct-walk';

/** A zero-based position; `column` counts UTF-16 code units, as LSP does. */
export interface Position {
  line: number;
  column: number;
}

/** One named node of the Python syntax tree. */
export interface SyntaxNode {
  readonly type: string;
  /** The field this node fills in its parent (`function`, `arguments`, `left`, ...), if any. */
  readonly field: string | null;
  /** UTF-16 offsets into the document text; end exclusive. */
  readonly startIndex: number;
  readonly endIndex: number;
  readonly parent: SyntaxNode | null;
  readonly children: SyntaxNode[];
  /** For operator nodes (binary, boolean, comparison, augmented assignment, unary): the operator token(s). */
  operator?: string;
  readonly start: Position;
  readonly end: Position;
  readonly text: string;
  readonly source: SourceText;
}

/** The document text with a line table, shared by every node of one tree. */
export class SourceText {
  private lineStarts: number[] | undefined;
  constructor(readonly text: string) {}

  /** Converts a UTF-16 offset into a zero-based line and column. */
  positionAt(offset: number): Position {
    const starts = this.getLineStarts();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low, column: offset - starts[low] };
  }

  /** The text of zero-based `line`, without its line break. */
  lineText(line: number): string {
    const starts = this.getLineStarts();
    const start = starts[line] ?? this.text.length;
    const end = line + 1 < starts.length ? starts[line + 1] : this.text.length;
    return this.text.slice(start, end).replace(/\r?\n$|\r$/, '');
  }

  get lineCount(): number {
    return this.getLineStarts().length;
  }

  private getLineStarts(): number[] {
    if (this.lineStarts) return this.lineStarts;
    const starts = [0];
    const text = this.text;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 10) starts.push(i + 1);
      else if (code === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
    }
    this.lineStarts = starts;
    return starts;
  }
}

class LoweredNode implements SyntaxNode {
  readonly children: SyntaxNode[] = [];
  operator?: string = undefined;
  constructor(
    readonly source: SourceText,
    readonly type: string,
    readonly field: string | null,
    readonly startIndex: number,
    readonly endIndex: number,
    readonly parent: SyntaxNode | null,
  ) {}
  get text(): string {
    return this.source.text.slice(this.startIndex, this.endIndex);
  }
  get start(): Position {
    return this.source.positionAt(this.startIndex);
  }
  get end(): Position {
    return this.source.positionAt(this.endIndex);
  }
}

const OPERATOR_PARENTS = new Set([
  'binary_operator',
  'boolean_operator',
  'comparison_operator',
  'augmented_assignment',
  'unary_operator',
  'not_operator',
]);

interface LanguageTables {
  types: string[];
  fields: (string | null)[];
  named: boolean[];
}

const tablesByLanguage = new WeakMap<object, LanguageTables>();

function languageTables(tree: Tree): LanguageTables {
  const language = tree.language;
  let tables = tablesByLanguage.get(language);
  if (!tables) {
    const types = language.types.map((t) => t ?? 'ERROR');
    const named = types.map((_, id) => language.nodeTypeIsNamed(id));
    tables = { types, fields: language.fields, named };
    tablesByLanguage.set(language, tables);
  }
  return tables;
}

/** Converts the whole tree into {@link SyntaxNode}s, keeping named nodes and operator tokens. */
export function lowerTree(tree: Tree, text: string): SyntaxNode {
  const direct = directAccess(tree);
  return direct ? lowerDirect(tree, text, direct.wasm, direct.address) : lowerWithCursor(tree, text);
}

/**
 * The lowering walk over the raw wasm exports (see direct-walk.ts): per node one call for
 * the type, and for kept nodes one each for field, start and end; no marshalling.
 */
function lowerDirect(tree: Tree, text: string, wasm: DirectWasm, address: number): SyntaxNode {
  const source = new SourceText(text);
  const { types, fields, named } = languageTables(tree);
  wasm._ts_tree_root_node_wasm(address);
  wasm._ts_tree_cursor_new_wasm(address);
  try {
    const make = (parent: LoweredNode | null, typeId: number): LoweredNode =>
      new LoweredNode(
        source,
        types[typeId] ?? 'ERROR',
        fields[wasm._ts_tree_cursor_current_field_id_wasm(address)] ?? null,
        wasm._ts_tree_cursor_start_index_wasm(address),
        wasm._ts_tree_cursor_end_index_wasm(address),
        parent,
      );
    const root = make(null, wasm._ts_tree_cursor_current_node_type_id_wasm(address));
    const stack: LoweredNode[] = [root];
    if (!wasm._ts_tree_cursor_goto_first_child_wasm(address)) return root;
    for (;;) {
      const parent = stack[stack.length - 1];
      const typeId = wasm._ts_tree_cursor_current_node_type_id_wasm(address);
      if (named[typeId] || typeId === 65535) {
        const node = make(parent, typeId);
        parent.children.push(node);
        if (wasm._ts_tree_cursor_goto_first_child_wasm(address)) {
          stack.push(node);
          continue;
        }
      } else if (OPERATOR_PARENTS.has(parent.type)) {
        recordOperator(parent, types[typeId], () => wasm._ts_tree_cursor_current_field_id_wasm(address));
      }
      while (!wasm._ts_tree_cursor_goto_next_sibling_wasm(address)) {
        if (!wasm._ts_tree_cursor_goto_parent_wasm(address)) return root;
        stack.pop();
        if (stack.length === 0) return root;
      }
    }
  } finally {
    wasm._ts_tree_cursor_delete_wasm(address);
  }
}

/** The same walk through the public TreeCursor API (used when the wasm exports are not reachable). */
function lowerWithCursor(tree: Tree, text: string): SyntaxNode {
  const source = new SourceText(text);
  const { types, fields, named } = languageTables(tree);
  const cursor = tree.walk();
  try {
    const make = (parent: SyntaxNode | null, typeId: number): LoweredNode =>
      new LoweredNode(
        source,
        types[typeId] ?? 'ERROR',
        fields[cursor.currentFieldId] ?? null,
        cursor.startIndex,
        cursor.endIndex,
        parent,
      );
    const root = make(null, cursor.nodeTypeId);
    const stack: LoweredNode[] = [root];
    if (!cursor.gotoFirstChild()) return root;
    for (;;) {
      const parent = stack[stack.length - 1];
      const typeId = cursor.nodeTypeId;
      if (named[typeId] || typeId === 65535) {
        const node = make(parent, typeId);
        parent.children.push(node);
        if (cursor.gotoFirstChild()) {
          stack.push(node);
          continue;
        }
      } else if (OPERATOR_PARENTS.has(parent.type)) {
        recordOperator(parent, types[typeId], () => cursor.currentFieldId);
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return root;
        stack.pop();
        if (stack.length === 0) return root;
      }
    }
  } finally {
    cursor.delete();
  }
}

function recordOperator(parent: LoweredNode, token: string, fieldId: () => number): void {
  if (token === '(' || token === ')') return;
  if (parent.type !== 'comparison_operator' && fieldId() === 0) return;
  parent.operator = parent.operator ? `${parent.operator} ${token}` : token;
}

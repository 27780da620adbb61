// Plain-JS syntax nodes lowered from a tree-sitter tree with one cursor walk. Analysis
// works on these (fast property access, safe after the wasm tree is deleted); the walk
// uses an explicit stack, so 10,000-deep nesting cannot overflow the JS stack.
import type { Tree } from 'web-tree-sitter';
import { openWalk, type TreeWalk } from './direct-walk';

/** A zero-based position; `column` counts UTF-16 code units, as LSP does. */
export interface Position {
  line: number;
  column: number;
}

/** One named node of the Python syntax tree. */
export interface SyntaxNode {
  /** Position in document order (pre-order) within its tree: 0 for the root. */
  readonly id: number;
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

/** The children of every leaf (never added to). */
const NO_CHILDREN: LoweredNode[] = [];

/**
 * The one implementation of {@link SyntaxNode}. Its position fields are writable for the
 * incremental lowering alone (lower-reuse.ts), which moves an unchanged subtree of the
 * previous version into the new tree; everything else sees them through the readonly interface.
 */
export class LoweredNode implements SyntaxNode {
  // NOTE: every leaf shares NO_CHILDREN; a node with children gets its own list from the
  // lowering walk (ChildLists), or at creation when a splice builds it (window-parse.ts).
  children: LoweredNode[] = NO_CHILDREN;
  operator?: string = undefined;
  constructor(
    public id: number,
    public source: SourceText,
    readonly type: string,
    readonly field: string | null,
    public startIndex: number,
    public endIndex: number,
    public parent: LoweredNode | null,
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
  /** Distinct type names, and for each type id the slot of its name (aliases share one). */
  typeNames: string[];
  slotOfType: number[];
  errorSlot: number;
}

/** The type id tree-sitter gives ERROR nodes. */
const ERROR_TYPE_ID = 65535;

/** A lowered tree: its root, how many nodes it has, and every node grouped by type. */
export interface LoweredTree {
  root: SyntaxNode;
  nodeCount: number;
  /** Type → its nodes in document order. */
  byType: ReadonlyMap<string, readonly SyntaxNode[]>;
}

/** Collects each new node under its type's slot; the lowering creates nodes in document order. */
class TypeIndex {
  private readonly lists: SyntaxNode[][];
  count = 0;
  constructor(private readonly tables: LanguageTables) {
    this.lists = tables.typeNames.map(() => []);
  }
  /** Files `node` (whose id must be `count`) under the type `typeId`. */
  add<T extends SyntaxNode>(node: T, typeId: number): T {
    this.count++;
    this.lists[typeId === ERROR_TYPE_ID ? this.tables.errorSlot : this.tables.slotOfType[typeId]].push(node);
    return node;
  }
  result(root: SyntaxNode): LoweredTree {
    const byType = new Map<string, SyntaxNode[]>();
    this.tables.typeNames.forEach((name, slot) => {
      if (this.lists[slot].length) byType.set(name, this.lists[slot]);
    });
    return { root, nodeCount: this.count, byType };
  }
}

/** The interned copy of `name`; names decoded from wasm are fresh strings, so every `===` against a literal compared characters. */
function internalize(name: string): string {
  return Object.keys({ [name]: 0 })[0];
}

const tablesByLanguage = new WeakMap<object, LanguageTables>();

function languageTables(tree: Tree): LanguageTables {
  const language = tree.language;
  let tables = tablesByLanguage.get(language);
  if (!tables) {
    const types = language.types.map((t) => internalize(t ?? 'ERROR'));
    const named = types.map((_, id) => language.nodeTypeIsNamed(id));
    const typeNames = [...new Set([...types, internalize('ERROR')])];
    const slotOfType = types.map((t) => typeNames.indexOf(t));
    const fields = language.fields.map((f) => (f === null ? null : internalize(f)));
    tables = { types, fields, named, typeNames, slotOfType, errorSlot: typeNames.indexOf('ERROR') };
    tablesByLanguage.set(language, tables);
  }
  return tables;
}

/**
 * Lets the lowering walk take unchanged subtrees from the previous version instead of
 * lowering them again (lower-reuse.ts). The walk reports each node it opens and closes, so
 * the source can follow along in the previous tree.
 */
export interface SubtreeSource {
  /** The subtree to put where the cursor is (not descended into), if one can be reused. */
  adopt(type: string, field: string | null, from: number, to: number): LoweredNode | undefined;
  /** `node` was lowered where the last `adopt` found nothing; its children come next. */
  opened(node: LoweredNode): void;
  /** The last opened node is done. */
  closed(): void;
  /** The finished tree (ids and the by-type index), from its root; `lowered` nodes were new. */
  finish(root: LoweredNode, source: SourceText, lowered: number): LoweredTree;
}

/**
 * Converts the whole tree into {@link SyntaxNode}s, keeping named nodes and operator tokens;
 * with `reuse` (and a direct walk available), unchanged subtrees come from it instead.
 */
export function lowerTree(tree: Tree, text: string, reuse?: SubtreeSource): LoweredTree {
  // NOTE: the tables first: their first read calls into wasm, which may grow the heap a walk reads.
  const tables = languageTables(tree);
  const walk = openWalk(tree);
  return walk ? lowerWalk(tables, text, walk, reuse) : lowerWithCursor(tree, text);
}

/**
 * The lowering walk over a {@link TreeWalk} (see direct-walk.ts): per node one read of the
 * type, and for kept nodes one each of field, start and end.
 */
function lowerWalk(
  tables: LanguageTables,
  text: string,
  walk: TreeWalk,
  reuse: SubtreeSource | undefined,
): LoweredTree {
  const source = new SourceText(text);
  const { types, fields, named } = tables;
  const index = new TypeIndex(tables);
  const finish = (root: LoweredNode) =>
    reuse ? reuse.finish(root, source, index.count) : index.result(root);
  try {
    const make = (
      parent: LoweredNode | null,
      typeId: number,
      field: string | null,
      from: number,
      to: number,
    ) =>
      index.add(
        new LoweredNode(index.count, source, types[typeId] ?? 'ERROR', field, from, to, parent),
        typeId,
      );
    const root = make(null, walk.typeId(), null, walk.startIndex(), walk.endIndex());
    reuse?.opened(root);
    const stack: LoweredNode[] = [root];
    const kids = new ChildLists();
    kids.open();
    if (!walk.gotoFirstChild()) return finish(kids.closeAll(stack));
    for (;;) {
      const parent = stack[stack.length - 1];
      const typeId = walk.typeId();
      if (named[typeId] || typeId === ERROR_TYPE_ID) {
        const field = fields[walk.fieldId()] ?? null;
        const from = walk.startIndex();
        const to = walk.endIndex();
        const moved = reuse?.adopt(types[typeId] ?? 'ERROR', field, from, to);
        if (moved) {
          moved.parent = parent;
          kids.add(moved);
        } else {
          const node = make(parent, typeId, field, from, to);
          kids.add(node);
          if (walk.gotoFirstChild()) {
            stack.push(node);
            kids.open();
            reuse?.opened(node);
            continue;
          }
        }
      } else if (OPERATOR_PARENTS.has(parent.type)) {
        recordOperator(parent, types[typeId], () => walk.fieldId());
      }
      while (!walk.gotoNextSibling()) {
        if (!walk.gotoParent()) return finish(kids.closeAll(stack));
        kids.close(stack.pop()!);
        reuse?.closed();
        if (stack.length === 0) return finish(root);
      }
    }
  } finally {
    walk.close();
  }
}

/** The same walk through the public TreeCursor API (used when the wasm exports are not reachable). */
function lowerWithCursor(tree: Tree, text: string): LoweredTree {
  const source = new SourceText(text);
  const tables = languageTables(tree);
  const { types, fields, named } = tables;
  const index = new TypeIndex(tables);
  const cursor = tree.walk();
  try {
    const make = (parent: LoweredNode | null, typeId: number): LoweredNode =>
      index.add(
        new LoweredNode(
          index.count,
          source,
          types[typeId] ?? 'ERROR',
          fields[cursor.currentFieldId] ?? null,
          cursor.startIndex,
          cursor.endIndex,
          parent,
        ),
        typeId,
      );
    const root = make(null, cursor.nodeTypeId);
    const stack: LoweredNode[] = [root];
    const kids = new ChildLists();
    kids.open();
    if (!cursor.gotoFirstChild()) return index.result(kids.closeAll(stack));
    for (;;) {
      const parent = stack[stack.length - 1];
      const typeId = cursor.nodeTypeId;
      if (named[typeId] || typeId === ERROR_TYPE_ID) {
        const node = make(parent, typeId);
        kids.add(node);
        if (cursor.gotoFirstChild()) {
          stack.push(node);
          kids.open();
          continue;
        }
      } else if (OPERATOR_PARENTS.has(parent.type)) {
        recordOperator(parent, types[typeId], () => cursor.currentFieldId);
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return index.result(kids.closeAll(stack));
        kids.close(stack.pop()!);
        if (stack.length === 0) return index.result(root);
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * The children of the nodes a lowering walk is inside, gathered on one list and copied out
 * at their exact count when the walk leaves their parent (an array pushed to one at a time
 * reserves 17 slots at its first push; most nodes have one to three children).
 */
class ChildLists {
  private readonly pending: LoweredNode[] = [];
  private size = 0;
  private readonly starts: number[] = [];

  add(node: LoweredNode): void {
    this.pending[this.size++] = node;
  }

  /** The walk entered a node: the children added from now on are its own. */
  open(): void {
    this.starts.push(this.size);
  }

  /** The walk left `node` (the last one opened): it gets its children. */
  close(node: LoweredNode): void {
    const start = this.starts.pop()!;
    node.children = this.pending.slice(start, this.size);
    this.size = start;
  }

  /** The walk ended inside `open` (outermost first): each gets its children; returns the outermost. */
  closeAll(open: LoweredNode[]): LoweredNode {
    for (let i = open.length - 1; i >= 0; i--) this.close(open[i]);
    return open[0];
  }
}

function recordOperator(parent: LoweredNode, token: string, fieldId: () => number): void {
  if (token === '(' || token === ')') return;
  if (parent.type !== 'comparison_operator' && fieldId() === 0) return;
  parent.operator = parent.operator ? `${parent.operator} ${token}` : token;
}

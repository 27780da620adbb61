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
    if (!text.includes('\r')) {
      // Only `\n` breaks lines: found by `indexOf`, several times faster than a loop over every code unit.
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
    } else {
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code === 10) starts.push(i + 1);
        else if (code === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
      }
    }
    this.lineStarts = starts;
    return starts;
  }
}

/**
 * The node types the by-type index of a lowered tree keeps: those the analysis looks up by
 * type, so no rule walks the whole tree itself. Other types are not indexed (most nodes are
 * identifiers, arguments and blocks, and each version's renumbering visits every node).
 */
export const INDEXED_TYPES = [
  'call',
  'attribute',
  'subscript',
  'assignment',
  'augmented_assignment',
  'if_statement',
  'elif_clause',
  'while_statement',
  'for_statement',
  'assert_statement',
  'conditional_expression',
  'with_statement',
  'function_definition',
  'lambda',
  'class_definition',
  'string',
  'not_operator',
  'boolean_operator',
  'default_parameter',
  'comment',
  'import_statement',
  'import_from_statement',
] as const;

export type IndexedType = (typeof INDEXED_TYPES)[number];

const SLOT_OF_INDEXED_TYPE = new Map<string, number>(INDEXED_TYPES.map((type, slot) => [type, slot]));

/** The slot of `type` in {@link INDEXED_TYPES}, or -1 when it is not indexed. */
export function indexSlotOf(type: string): number {
  return SLOT_OF_INDEXED_TYPE.get(type) ?? -1;
}

/** Lists of nodes by {@link INDEXED_TYPES} slot, filled in document order; then the by-type map. */
export class IndexedLists {
  private readonly lists: SyntaxNode[][] = INDEXED_TYPES.map(() => []);
  count = 0;

  /** Gives `node` the next id and files it under its type, when that is indexed. */
  add(node: LoweredNode): void {
    node.id = this.count++;
    if (node.indexSlot >= 0) this.lists[node.indexSlot].push(node);
  }

  byType(): Map<string, SyntaxNode[]> {
    const byType = new Map<string, SyntaxNode[]>();
    this.lists.forEach((list, slot) => {
      if (list.length) byType.set(INDEXED_TYPES[slot], list);
    });
    return byType;
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
    /** The slot of `type` in {@link INDEXED_TYPES}, or -1 (see {@link indexSlotOf}). */
    readonly indexSlot: number,
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
  /** For each type id, the {@link INDEXED_TYPES} slot of its name, or -1. */
  indexSlots: number[];
}

/** The type id tree-sitter gives ERROR nodes. */
const ERROR_TYPE_ID = 65535;

/** A lowered tree: its root, how many nodes it has, and its nodes of each indexed type. */
export interface LoweredTree {
  root: SyntaxNode;
  nodeCount: number;
  /** Type → its nodes in document order, for each of {@link INDEXED_TYPES} that occurs. */
  byType: ReadonlyMap<string, readonly SyntaxNode[]>;
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
    const fields = language.fields.map((f) => (f === null ? null : internalize(f)));
    tables = { types, fields, named, indexSlots: types.map(indexSlotOf) };
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

/** A new node of type `typeId`, numbered and indexed by `index`. */
function newNode(
  tables: LanguageTables,
  index: IndexedLists,
  source: SourceText,
  typeId: number,
  field: string | null,
  from: number,
  to: number,
  parent: LoweredNode | null,
): LoweredNode {
  const type = tables.types[typeId] ?? 'ERROR';
  const node = new LoweredNode(0, source, type, field, from, to, parent, tables.indexSlots[typeId] ?? -1);
  index.add(node);
  return node;
}

function loweredTree(root: LoweredNode, index: IndexedLists): LoweredTree {
  return { root, nodeCount: index.count, byType: index.byType() };
}

/**
 * Converts the whole tree into {@link SyntaxNode}s, keeping named nodes and operator tokens;
 * with `reuse` (and a direct walk available), unchanged subtrees come from it instead. The
 * nodes share `source` when given (the parts of one text lowered apart, chunked.ts).
 */
export function lowerTree(
  tree: Tree,
  text: string,
  reuse?: SubtreeSource,
  source = new SourceText(text),
): LoweredTree {
  // NOTE: the tables first: their first read calls into wasm, which may grow the heap a walk reads.
  const tables = languageTables(tree);
  const walk = openWalk(tree);
  return walk ? lowerWalk(tables, source, walk, reuse) : lowerWithCursor(tree, source);
}

/**
 * The lowering walk over a {@link TreeWalk} (see direct-walk.ts): per node one read of the
 * type, and for kept nodes one each of field, start and end.
 */
function lowerWalk(
  tables: LanguageTables,
  source: SourceText,
  walk: TreeWalk,
  reuse: SubtreeSource | undefined,
): LoweredTree {
  const { types, fields, named } = tables;
  const index = new IndexedLists();
  const finish = (root: LoweredNode) =>
    reuse ? reuse.finish(root, source, index.count) : loweredTree(root, index);
  try {
    const make = (
      parent: LoweredNode | null,
      typeId: number,
      field: string | null,
      from: number,
      to: number,
    ) => newNode(tables, index, source, typeId, field, from, to, parent);
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
function lowerWithCursor(tree: Tree, source: SourceText): LoweredTree {
  const tables = languageTables(tree);
  const { types, fields, named } = tables;
  const index = new IndexedLists();
  const cursor = tree.walk();
  try {
    const make = (parent: LoweredNode | null, typeId: number): LoweredNode =>
      newNode(
        tables,
        index,
        source,
        typeId,
        fields[cursor.currentFieldId] ?? null,
        cursor.startIndex,
        cursor.endIndex,
        parent,
      );
    const root = make(null, cursor.nodeTypeId);
    const stack: LoweredNode[] = [root];
    const kids = new ChildLists();
    kids.open();
    if (!cursor.gotoFirstChild()) return loweredTree(kids.closeAll(stack), index);
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
        if (!cursor.gotoParent()) return loweredTree(kids.closeAll(stack), index);
        kids.close(stack.pop()!);
        if (stack.length === 0) return loweredTree(root, index);
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

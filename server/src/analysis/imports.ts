// Import aliases of one file: maps each local name bound by an import to the dotted name
// it stands for, so `nn.Linear`, `torch.nn.Linear` and `from torch.nn import Linear` all
// resolve to `torch.nn.Linear`.
import type { SourceText, SyntaxNode } from '../parse/syntax';
import { lastDescendantId, mergeInDocumentOrder } from './syntax-helpers';

/** Local name → fully qualified dotted name, for every import statement in the file. */
export class ImportTable {
  private readonly aliases = new Map<string, string>();
  /**
   * `resolve` result per node: the inference and many rules resolve the same callee nodes
   * again and again (the dotted name is rebuilt from node text each time). Cleared by `bind`.
   * A local name is stored as null, so a hit costs one lookup. Nodes of the table's own tree
   * are kept by id in `slotById` (0 unknown, -1 local, else 1 + an index into `names`): a
   * map as large as the tree cost more per lookup than the resolving saved on large files.
   * Any other node (another version's or file's) is kept in `resolved`.
   */
  private readonly resolved = new Map<SyntaxNode, string | null>();
  private slotById: Int32Array;
  private names: string[] = [];
  /** Whether `resolve` has stored anything since the last `bind` (each import binds before any resolves). */
  private cachedAny = false;
  /** Modules imported with `from X import *`. */
  readonly starModules: string[] = [];

  constructor(
    /** The tree whose nodes are kept by id: its text and node count (ids are 0 to count − 1). */
    private readonly tree?: { source: SourceText; nodeCount: number },
  ) {
    this.slotById = new Int32Array(tree?.nodeCount ?? 0);
  }

  /** Records that `local` stands for `qualified`. */
  bind(local: string, qualified: string): void {
    this.aliases.set(local, qualified);
    if (!this.cachedAny) return;
    this.cachedAny = false;
    this.resolved.clear();
    this.slotById.fill(0);
    this.names = [];
  }

  /** Every binding, as one string: two tables with the same fingerprint resolve alike. */
  fingerprint(): string {
    return JSON.stringify([[...this.aliases], this.starModules]);
  }

  /** The qualified name a local name was imported as, if any. */
  lookup(local: string): string | undefined {
    return this.aliases.get(local);
  }

  /** Whether any import brings in this module or one of its members (e.g. `torch`). */
  importsFrom(modulePrefix: string): boolean {
    for (const qualified of this.aliases.values()) {
      if (qualified === modulePrefix || qualified.startsWith(`${modulePrefix}.`)) return true;
    }
    return this.starModules.some((m) => m === modulePrefix || m.startsWith(`${modulePrefix}.`));
  }

  /**
   * The name whose binding `resolve(node)` reads: the identifier at the head of an attribute
   * chain (`nn` in `nn.functional.relu`); undefined when the head is not a name (`f().x`).
   */
  headName(node: SyntaxNode): string | undefined {
    let current = node;
    while (current.type === 'attribute') {
      const parts = attributeParts(current);
      if (!parts) break;
      current = parts.object;
    }
    return current.type === 'identifier' ? current.text : undefined;
  }

  /**
   * Resolves an identifier or attribute chain (`nn.functional.relu`) to its qualified name
   * when its first name is imported; returns undefined for local names.
   */
  resolve(node: SyntaxNode): string | undefined {
    let resolved = this.cached(node);
    if (resolved !== undefined) return resolved ?? undefined;
    // Down the object chain to a node already resolved or its head, then back up, caching
    // each link (a loop, not recursion: chains can be thousands of links deep).
    const links: [SyntaxNode, SyntaxNode][] = [];
    let current = node;
    while (resolved === undefined) {
      const parts = current.type === 'attribute' ? attributeParts(current) : undefined;
      if (!parts) {
        resolved = (current.type === 'identifier' && this.aliases.get(current.text)) || null;
        this.store(current, resolved);
        break;
      }
      links.push([current, parts.attribute]);
      current = parts.object;
      resolved = this.cached(current);
    }
    for (let i = links.length - 1; i >= 0; i--) {
      resolved = resolved === null ? null : `${resolved}.${links[i][1].text}`;
      this.store(links[i][0], resolved);
    }
    return resolved ?? undefined;
  }

  /** Whether `node` belongs to the tree whose nodes are kept by id. */
  private ownsNode(node: SyntaxNode): boolean {
    return node.source === this.tree?.source && node.id < this.slotById.length;
  }

  private cached(node: SyntaxNode): string | null | undefined {
    if (!this.ownsNode(node)) return this.resolved.get(node);
    const slot = this.slotById[node.id];
    return slot === 0 ? undefined : slot < 0 ? null : this.names[slot - 1];
  }

  private store(node: SyntaxNode, resolved: string | null): void {
    this.cachedAny = true;
    if (!this.ownsNode(node)) this.resolved.set(node, resolved);
    else if (resolved === null) this.slotById[node.id] = -1;
    else this.slotById[node.id] = this.names.push(resolved);
  }
}

/** The object and attribute name of `a.b`, if both are present. */
function attributeParts(node: SyntaxNode): { object: SyntaxNode; attribute: SyntaxNode } | undefined {
  let object: SyntaxNode | undefined;
  let attribute: SyntaxNode | undefined;
  for (const child of node.children) {
    if (child.field === 'object') object ??= child;
    else if (child.field === 'attribute') attribute ??= child;
  }
  return object && attribute ? { object, attribute } : undefined;
}

/**
 * Collects every `import` and `from ... import` in the tree (at any depth), from its by-type
 * index: last to first, so that of two imports binding one name the first one counts.
 */
export function collectImports(tree: {
  root: SyntaxNode;
  byType: ReadonlyMap<string, readonly SyntaxNode[]>;
}): ImportTable {
  // Ids are pre-order from 0 at the root, so the last node of the tree has the largest.
  const table = new ImportTable({ source: tree.root.source, nodeCount: lastDescendantId(tree.root) + 1 });
  const statements = mergeInDocumentOrder([
    tree.byType.get('import_statement') ?? [],
    tree.byType.get('import_from_statement') ?? [],
  ]);
  for (let i = statements.length - 1; i >= 0; i--) {
    const node = statements[i];
    if (!isStatement(node)) continue;
    if (node.type === 'import_statement') readImport(node, table);
    else readImportFrom(node, table);
  }
  return table;
}

/** Nodes whose children are never statements, though error recovery may nest one there. */
const NON_CONTAINERS = new Set(['expression_statement', 'return_statement', 'string', 'comment']);

/** Whether no ancestor of `node` is a {@link NON_CONTAINERS} node. */
function isStatement(node: SyntaxNode): boolean {
  for (let up = node.parent; up; up = up.parent) if (NON_CONTAINERS.has(up.type)) return false;
  return true;
}

function readImport(node: SyntaxNode, table: ImportTable): void {
  for (const child of node.children) {
    if (child.type === 'dotted_name') {
      // `import torch.nn` binds `torch`.
      const name = child.text;
      table.bind(name.split('.')[0], name.split('.')[0]);
    } else if (child.type === 'aliased_import') {
      const name = child.children.find((c) => c.field === 'name');
      const alias = child.children.find((c) => c.field === 'alias');
      if (name && alias) table.bind(alias.text, name.text);
    }
  }
}

function readImportFrom(node: SyntaxNode, table: ImportTable): void {
  const moduleNode = node.children.find((c) => c.field === 'module_name');
  if (!moduleNode) return;
  const moduleName = moduleNode.text;
  // `from . import x` names `.x` (not `..x`, which is the parent package's x).
  const member = (name: string) =>
    moduleName.endsWith('.') ? `${moduleName}${name}` : `${moduleName}.${name}`;
  for (const child of node.children) {
    if (child === moduleNode) continue;
    if (child.type === 'wildcard_import') table.starModules.push(moduleName);
    else if (child.type === 'dotted_name' && child.field === 'name')
      table.bind(child.text, member(child.text));
    else if (child.type === 'aliased_import') {
      const name = child.children.find((c) => c.field === 'name');
      const alias = child.children.find((c) => c.field === 'alias');
      if (name && alias) table.bind(alias.text, member(name.text));
    }
  }
}

// Which assignment a name's use sees, within one function (or module) scope: the last
// binding before the use, provided it dominates the use (no branch, loop-carried value or
// intervening rebinding in between). Anything less certain answers undefined.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, isWithin, unwrap, walk } from './syntax-helpers';

/** How a name got its value. */
export type Binding =
  | { kind: 'value'; value: SyntaxNode; statement: SyntaxNode }
  | { kind: 'unpack'; value: SyntaxNode; index: number; count: number; statement: SyntaxNode }
  | { kind: 'parameter'; node: SyntaxNode }
  | { kind: 'other'; node: SyntaxNode };

interface Site {
  binding: Binding;
  /** The node whose end must precede a use for the binding to reach it. */
  anchor: SyntaxNode;
}

const SCOPES = new Set(['function_definition', 'lambda', 'class_definition', 'module']);
const LOOPS = new Set(['for_statement', 'while_statement']);
const BLOCKS = new Set(['block', 'module']);
const cache = new WeakMap<SyntaxNode, Map<string, Site[]>>();

/** The scope node (function, lambda, class body or module) that `node` belongs to. */
export function scopeOf(node: SyntaxNode): SyntaxNode {
  for (let current = node.parent; current; current = current.parent)
    if (SCOPES.has(current.type)) return current;
  let root = node;
  while (root.parent) root = root.parent;
  return root;
}

/** The binding of `name` that reaches `use`, if exactly one certainly does. */
export function reachingBinding(use: SyntaxNode, name: string): Binding | undefined {
  const scope = scopeOf(use);
  const sites = sitesOf(scope).get(name) ?? [];
  let last: Site | undefined;
  for (const site of sites) {
    // A site ending before the use reaches it; one ending where it starts reaches it unless
    // the use is inside it (a zero-width node at its end): only then walk the use's parents.
    const end = site.anchor.endIndex;
    if (end < use.startIndex || (end === use.startIndex && !isWithin(use, site.anchor))) last = site;
  }
  if (!last) return undefined;
  if (last.binding.kind === 'parameter') return sites.length === 1 ? last.binding : undefined;
  const block = enclosingBlock(last.anchor);
  if (!block || !isWithin(use, block)) return undefined;
  for (let loop = use.parent; loop && loop !== scope; loop = loop.parent) {
    if (!LOOPS.has(loop.type) || isWithin(last.anchor, loop)) continue;
    if (sites.some((site) => isWithin(site.anchor, loop!))) return undefined;
  }
  return last.binding;
}

/** The block a binding certainly executes in: a `with` body always runs, so it counts as its parent block. */
function enclosingBlock(node: SyntaxNode): SyntaxNode | undefined {
  for (let current = node.parent; current; current = current.parent) {
    if (BLOCKS.has(current.type) && current.parent?.type !== 'with_statement') return current;
  }
  return undefined;
}

function sitesOf(scope: SyntaxNode): Map<string, Site[]> {
  const known = cache.get(scope);
  if (known) return known;
  const sites = new Map<string, Site[]>();
  const add = (name: string, site: Site) => {
    const list = sites.get(name);
    if (list) list.push(site);
    else sites.set(name, [site]);
  };
  if (scope.type === 'function_definition' || scope.type === 'lambda') {
    for (const param of fieldOf(scope, 'parameters')?.children ?? []) {
      const id = param.type === 'identifier' ? param : param.children.find((c) => c.type === 'identifier');
      if (id) add(id.text, { binding: { kind: 'parameter', node: param }, anchor: param });
    }
  }
  walk(scope, (node) => {
    if (node !== scope && SCOPES.has(node.type)) {
      const name = fieldOf(node, 'name');
      if (name) add(name.text, { binding: { kind: 'other', node }, anchor: node });
      return false;
    }
    if (node.type === 'assignment') recordAssignment(node, add);
    else if (node.type === 'augmented_assignment') {
      // NOTE: the value is the statement itself; readers combine the old value and the right side.
      const left = fieldOf(node, 'left');
      if (left?.type === 'identifier')
        add(left.text, { binding: { kind: 'value', value: node, statement: node }, anchor: node });
    } else if (node.type === 'named_expression') {
      const left = fieldOf(node, 'name');
      if (left?.type === 'identifier') add(left.text, { binding: { kind: 'other', node }, anchor: node });
    } else if (node.type === 'for_statement' || node.type === 'for_in_clause') {
      const left = fieldOf(node, 'left');
      if (left)
        for (const id of identifiersIn(left)) add(id, { binding: { kind: 'other', node }, anchor: left });
    } else if (node.type === 'as_pattern' || node.type === 'with_item') {
      const alias = fieldOf(node, 'alias');
      if (alias)
        for (const id of identifiersIn(alias)) add(id, { binding: { kind: 'other', node }, anchor: node });
    } else if (node.type === 'global_statement' || node.type === 'nonlocal_statement') {
      for (const id of node.children)
        if (id.type === 'identifier') add(id.text, { binding: { kind: 'other', node }, anchor: scope });
    }
  });
  cache.set(scope, sites);
  return sites;
}

function recordAssignment(node: SyntaxNode, add: (name: string, site: Site) => void): void {
  const left = fieldOf(node, 'left');
  const value = fieldOf(node, 'right');
  if (!left) return;
  const statement = node;
  const target = unwrap(left);
  if (target.type === 'identifier') {
    add(target.text, {
      binding: value && !isChained(node) ? { kind: 'value', value, statement } : { kind: 'other', node },
      anchor: node,
    });
    return;
  }
  if (target.type === 'pattern_list' || target.type === 'tuple_pattern' || target.type === 'list_pattern') {
    const elements = target.children;
    const starred = elements.some((e) => e.type === 'list_splat_pattern');
    elements.forEach((element, index) => {
      for (const id of identifiersIn(element)) {
        const simple = element.type === 'identifier' && value && !starred;
        add(id, {
          binding: simple
            ? { kind: 'unpack', value, index, count: elements.length, statement }
            : { kind: 'other', node },
          anchor: node,
        });
      }
    });
  }
}

/** `a = b = value`: the inner assignment is the right side; treat the outer as opaque. */
function isChained(node: SyntaxNode): boolean {
  return fieldOf(node, 'right')?.type === 'assignment';
}

function identifiersIn(node: SyntaxNode): string[] {
  const names: string[] = [];
  walk(node, (child) => {
    if (child.type === 'identifier' && child.parent?.type !== 'attribute') names.push(child.text);
    if (child.type === 'attribute' || child.type === 'subscript') return false;
  });
  return names;
}

/** Every binding of `name` in the scope of `use` (assignments, loop targets, parameters, ...), in document order. */
export function bindingsInScope(use: SyntaxNode, name: string): { binding: Binding; anchor: SyntaxNode }[] {
  return sitesOf(scopeOf(use)).get(name) ?? [];
}

/**
 * The parameter binding of `use` when the parameter's own value certainly reaches it: no
 * other binding of the name comes before the use, and none sits in a loop around the use
 * (which could carry a later rebinding back). `reachingBinding` answers undefined for a
 * parameter that is rebound anywhere in the function; this is the finer question.
 */
export function reachingParameter(use: SyntaxNode): SyntaxNode | undefined {
  if (use.type !== 'identifier') return undefined;
  const scope = scopeOf(use);
  const sites = sitesOf(scope).get(use.text) ?? [];
  const param = sites.find((site) => site.binding.kind === 'parameter');
  if (!param || param.binding.kind !== 'parameter') return undefined;
  for (const site of sites) {
    if (site === param) continue;
    if (site.anchor.endIndex <= use.startIndex) return undefined;
  }
  for (let loop = use.parent; loop && loop !== scope; loop = loop.parent) {
    if (LOOPS.has(loop.type) && sites.some((site) => site !== param && isWithin(site.anchor, loop!)))
      return undefined;
  }
  return param.binding.node;
}

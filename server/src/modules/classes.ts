// The top-level index of one Python file for the evaluator: its classes (with bases,
// decorators, methods and class-level fields in order), functions and module-level
// assignments, so that names resolve without rescanning the file.
import type { SyntaxNode } from '../parse/syntax';
import type { ImportTable } from '../analysis/imports';
import type { Value } from './values';
import { fieldOf } from '../analysis/syntax-helpers';

/** One `class` statement. */
export interface ClassInfo {
  name: string;
  node: SyntaxNode;
  scope: FileScope;
  bases: SyntaxNode[];
  /** Decorator expressions (`dataclass`, `dataclasses.dataclass(frozen=True)`). */
  decorators: SyntaxNode[];
  methods: Map<string, SyntaxNode>;
  /** Methods decorated `@staticmethod` or `@classmethod`. */
  methodKinds: Map<string, 'static' | 'class'>;
  /** Class-level names in source order: `n_embd: int = 768`, `expansion = 1`, `vocab: int`. */
  fields: { name: string; value?: SyntaxNode; annotated: boolean }[];
}

/** The index of one file, shared by every evaluation that reads it. */
export interface FileScope {
  root: SyntaxNode;
  imports: ImportTable;
  filePath: string | null;
  classes: Map<string, ClassInfo>;
  functions: Map<string, SyntaxNode>;
  /** Module-level `NAME = expr`: the right-hand side of the last such assignment. */
  assignments: Map<string, SyntaxNode>;
  /** Module-level values already evaluated (a name maps to `undefined` while being evaluated). */
  globals: Map<string, Value | undefined>;
}

/** Builds the index of a parsed file. */
export function buildFileScope(input: {
  root: SyntaxNode;
  imports: ImportTable;
  filePath: string | null;
}): FileScope {
  const scope: FileScope = {
    ...input,
    classes: new Map(),
    functions: new Map(),
    assignments: new Map(),
    globals: new Map(),
  };
  indexBlock(input.root, scope);
  return scope;
}

// NOTE: top-level `if`/`try`/`with` blocks are indexed too (`if TYPE_CHECKING:`, optional
// imports); the last definition of a name wins, as it would at run time on the usual path.
const NESTING = new Set([
  'if_statement',
  'else_clause',
  'elif_clause',
  'try_statement',
  'except_clause',
  'finally_clause',
  'with_statement',
  'block',
]);

function indexBlock(block: SyntaxNode, scope: FileScope): void {
  for (const statement of block.children) {
    const { definition, decorators } = unwrapDecorated(statement);
    if (definition.type === 'class_definition') {
      const info = readClass(definition, decorators, scope);
      if (info) scope.classes.set(info.name, info);
    } else if (definition.type === 'function_definition') {
      const name = fieldOf(definition, 'name');
      if (name) scope.functions.set(name.text, definition);
    } else if (statement.type === 'expression_statement') {
      const assignment = statement.children[0];
      if (assignment?.type !== 'assignment') continue;
      const left = fieldOf(assignment, 'left');
      const right = fieldOf(assignment, 'right');
      if (left?.type === 'identifier' && right) scope.assignments.set(left.text, right);
    } else if (NESTING.has(statement.type)) {
      indexBlock(statement, scope);
    }
  }
}

function unwrapDecorated(statement: SyntaxNode): { definition: SyntaxNode; decorators: SyntaxNode[] } {
  if (statement.type !== 'decorated_definition') return { definition: statement, decorators: [] };
  const definition = fieldOf(statement, 'definition') ?? statement;
  const decorators = statement.children
    .filter((c) => c.type === 'decorator')
    .map((d) => d.children[0])
    .filter((d): d is SyntaxNode => !!d);
  return { definition, decorators };
}

function readClass(node: SyntaxNode, decorators: SyntaxNode[], scope: FileScope): ClassInfo | undefined {
  const name = fieldOf(node, 'name');
  const body = fieldOf(node, 'body');
  if (!name || !body) return undefined;
  const superclasses = fieldOf(node, 'superclasses');
  const bases = superclasses ? superclasses.children.filter((c) => c.type !== 'keyword_argument') : [];
  const info: ClassInfo = {
    name: name.text,
    node,
    scope,
    bases,
    decorators,
    methods: new Map(),
    methodKinds: new Map(),
    fields: [],
  };
  for (const statement of body.children) {
    const { definition, decorators: methodDecorators } = unwrapDecorated(statement);
    if (definition.type === 'function_definition') {
      const methodName = fieldOf(definition, 'name');
      if (!methodName) continue;
      info.methods.set(methodName.text, definition);
      const binding = methodDecorators.find((d) => /^(staticmethod|classmethod)$/.test(d.text))?.text;
      if (binding) info.methodKinds.set(methodName.text, binding === 'staticmethod' ? 'static' : 'class');
      continue;
    }
    if (statement.type !== 'expression_statement') continue;
    const assignment = statement.children[0];
    if (assignment?.type !== 'assignment') continue;
    const left = fieldOf(assignment, 'left');
    if (left?.type !== 'identifier') continue;
    info.fields.push({
      name: left.text,
      value: fieldOf(assignment, 'right'),
      annotated: !!fieldOf(assignment, 'type'),
    });
  }
  return info;
}

/** The class whose body (or header) contains `line`, if any. */
export function classAtLine(scope: FileScope, line: number): ClassInfo | undefined {
  let found: ClassInfo | undefined;
  for (const info of scope.classes.values()) {
    if (info.node.start.line <= line && line <= info.node.end.line) found = info;
  }
  return found;
}

// The symbolic interpreter's core: scopes, name resolution (locals, module globals,
// imports, workspace files, builtins), expressions and attribute access. Calls live in
// calls.ts and statements in statements.ts; anything not understood becomes `unknown`.
import type { SyntaxNode } from '../parse/syntax';
import { buildFileScope, type ClassInfo, type FileScope } from './classes';
import { moduleAttribute, parseIntLiteral, sliceValue, stringLiteral, subscriptValue } from './access';
import { isActivationTable, transformersActivation } from './hf-activations';
import { evalCall } from './calls';
import { ModuleInstance } from './module-instance';
import {
  NONE,
  binaryOp,
  renderPlain,
  bool,
  compareOp,
  firstUnknown,
  iterate,
  num,
  seq,
  str,
  truthy,
  unknown,
  type Value,
} from './values';
import type { WorkspaceFiles } from './workspace-files';
import { fieldOf } from '../analysis/syntax-helpers';

/** Raised when an evaluation exceeds its step budget (pathological or huge input). */
export class BudgetExceeded extends Error {}

/** One Python scope: a function's locals (or a comprehension's), over its file. */
export class Env {
  readonly vars = new Map<string, Value>();
  constructor(
    readonly scope: FileScope,
    readonly parent?: Env,
    /** The class whose method is running (for `super()`). */
    readonly currentClass?: ClassInfo,
  ) {}
  get(name: string): Value | undefined {
    const own = this.vars.get(name);
    if (own !== undefined) return own;
    return this.parent?.get(name);
  }
  set(name: string, value: Value): void {
    this.vars.set(name, value);
  }
}

const BUILTINS = new Set(
  'range len min max int float round abs sum list tuple dict set bool str isinstance getattr hasattr setattr callable enumerate zip reversed sorted print super any all divmod pow type object'.split(
    ' ',
  ),
);

/** Layer attributes readable from a built layer (`self.fc.out_features`). */
const MAX_STEPS = 2_000_000;
/** Deepest nesting of class instantiations and function calls. */
export const MAX_DEPTH = 48;

/** Evaluates expressions for one evaluation request; holds the step budget and call records. */
export class Interpreter {
  steps = 0;
  depth = 0;
  /** The module built by each constructor call node (the first time it ran). */
  readonly builtAt = new Map<SyntaxNode, ModuleInstance>();
  /** File scopes of workspace files built during this evaluation, by path. */
  private readonly scopes = new Map<string, FileScope>();
  constructor(
    readonly workspace?: WorkspaceFiles,
    /** The torch release `hasattr(torch..., name)` is decided for; undefined means the current one. */
    readonly torchVersion?: string,
  ) {}

  tick(): void {
    if (++this.steps > MAX_STEPS) throw new BudgetExceeded('evaluation budget exceeded');
  }

  /** Evaluates one expression node. */
  evalExpr(node: SyntaxNode, env: Env): Value {
    this.tick();
    switch (node.type) {
      case 'integer':
        return num(parseIntLiteral(node.text));
      case 'float':
        return num(Number(node.text.replace(/_/g, '')));
      case 'true':
        return bool(true);
      case 'false':
        return bool(false);
      case 'none':
        return NONE;
      case 'string':
        return node.children.some((c) => c.type === 'interpolation')
          ? this.evalFString(node, env)
          : stringLiteral(node);
      case 'concatenated_string':
        return str(node.children.map((c) => (stringLiteral(c) as { value?: string }).value ?? '').join(''));
      case 'identifier':
        return this.lookup(node.text, env, node);
      case 'attribute':
        return this.evalAttribute(node, env);
      case 'parenthesized_expression':
        return node.children[0] ? this.evalExpr(node.children[0], env) : NONE;
      case 'tuple':
      case 'expression_list':
      case 'list':
        return seq(this.evalItems(node.children, env), node.type !== 'list');
      case 'dictionary':
        return this.evalDict(node, env);
      case 'binary_operator':
        return this.evalBinary(node, env);
      case 'unary_operator':
        return this.evalUnary(node, env);
      case 'not_operator': {
        const value = this.evalExpr(fieldOf(node, 'argument') ?? node.children[0], env);
        const t = truthy(value);
        return t === undefined ? unknown(node, reasonOf(value, node)) : bool(!t);
      }
      case 'boolean_operator':
        return this.evalBoolean(node, env);
      case 'comparison_operator':
        return this.evalComparison(node, env);
      case 'conditional_expression':
        return this.evalConditional(node, env);
      case 'subscript':
        return this.evalSubscript(node, env);
      case 'call':
        return evalCall(this, { node, env });
      case 'list_comprehension':
      case 'generator_expression':
      case 'set_comprehension':
      case 'dictionary_comprehension':
        return this.evalComprehension(node, env);
      default:
        return unknown(node, `\`${node.type.replace(/_/g, ' ')}\` not evaluated`);
    }
  }

  /** `f"layer{i}"`: known numbers, strings and booleans are formatted; format specs are not evaluated. */
  private evalFString(node: SyntaxNode, env: Env): Value {
    let text = '';
    for (const part of node.children) {
      if (part.type === 'string_content') text += part.text;
      else if (part.type === 'interpolation') {
        const expression = part.children[0];
        if (
          !expression ||
          part.children.some((c) => c.type === 'format_specifier' || c.type === 'type_conversion')
        )
          return unknown(node, 'f-string format not evaluated');
        const value = this.evalExpr(expression, env);
        if (value.kind !== 'num' && value.kind !== 'str' && value.kind !== 'bool' && value.kind !== 'none')
          return unknown(node, value.kind === 'unknown' ? value.reason : 'f-string not evaluated');
        text += renderPlain(value);
      }
    }
    return str(text);
  }

  /** Evaluates list items, expanding `*xs` splats of known sequences. */
  evalItems(nodes: SyntaxNode[], env: Env): Value[] {
    const items: Value[] = [];
    for (const child of nodes) {
      if (child.type === 'comment') continue;
      if (child.type === 'list_splat') {
        const value = this.evalExpr(child.children[0], env);
        const spread = iterate(value);
        if (spread) items.push(...spread);
        else items.push(unknown(child, reasonOf(value, child)));
      } else items.push(this.evalExpr(child, env));
    }
    return items;
  }

  /** Resolves a bare name: locals, then the file's globals, imports and builtins. */
  lookup(name: string, env: Env, node?: SyntaxNode): Value {
    const local = env.get(name);
    if (local !== undefined) return local;
    return this.lookupGlobal(env.scope, name) ?? unknown(node ?? name, `\`${name}\` unknown`);
  }

  /** A module-level name of `scope` (class, function, constant, import), or undefined. */
  lookupGlobal(scope: FileScope, name: string): Value | undefined {
    const cls = scope.classes.get(name);
    if (cls) return { kind: 'class', cls };
    const fn = scope.functions.get(name);
    if (fn) return { kind: 'function', node: fn, scope };
    if (scope.assignments.has(name)) {
      if (scope.globals.has(name))
        return scope.globals.get(name) ?? unknown(name, `\`${name}\` is defined in terms of itself`);
      scope.globals.set(name, undefined);
      const value = this.evalExpr(scope.assignments.get(name)!, new Env(scope));
      scope.globals.set(name, value);
      return value;
    }
    const qualified = scope.imports.lookup(name);
    if (qualified) return this.resolveQualified(scope, qualified);
    if (BUILTINS.has(name)) return { kind: 'qualified', name: `builtins.${name}` };
    return undefined;
  }

  /** A dotted import target: a workspace file's symbol when the workspace has it, else a library name. */
  resolveQualified(scope: FileScope, qualified: string): Value {
    const found = this.workspace?.resolve({ fromFile: scope.filePath, dotted: qualified });
    if (!found) return { kind: 'qualified', name: qualified };
    let fileScope = this.scopes.get(found.file.path);
    if (!fileScope) {
      fileScope = buildFileScope({
        root: found.file.root,
        imports: found.file.imports,
        filePath: found.file.path,
      });
      this.scopes.set(found.file.path, fileScope);
    }
    let value: Value = { kind: 'pymodule', scope: fileScope };
    for (const part of found.rest) value = this.getAttribute(value, part, qualified);
    return value;
  }

  private evalAttribute(node: SyntaxNode, env: Env): Value {
    const object = fieldOf(node, 'object');
    const attribute = fieldOf(node, 'attribute');
    if (!object || !attribute) return unknown(node, 'incomplete attribute');
    return this.getAttribute(this.evalExpr(object, env), attribute.text, node.text);
  }

  /** `value.name` for every kind of value. */
  getAttribute(value: Value, name: string, text: string): Value {
    switch (value.kind) {
      case 'qualified':
        return { kind: 'qualified', name: `${value.name}.${name}` };
      case 'pymodule':
        return (
          this.lookupGlobal(value.scope, name) ??
          unknown(text, `\`${name}\` not found in ${value.scope.filePath ?? 'module'}`)
        );
      case 'object':
        // NOTE: `obj.__dict__` shares the fields, so `self.__dict__.update(d)` (CfgNode) writes through.
        if (name === '__dict__') return { kind: 'dict', entries: value.fields };
        return (
          value.fields.get(name) ??
          (value.cls ? this.classAttribute(value.cls, name, value) : undefined) ??
          unknown(text, `\`${text}\` unknown`)
        );
      case 'dict':
        return value.entries.get(name) ?? unknown(text, `\`${text}\` unknown`);
      case 'class':
        return this.classAttribute(value.cls, name) ?? unknown(text, `\`${text}\` unknown`);
      case 'module':
        return moduleAttribute(this, { module: value.module, name, text, self: value });
      case 'param':
        if (name === 'shape' && value.param.shape) return seq(value.param.shape.map(num), true);
        return unknown(text, `\`${text}\` not evaluated`);
      case 'tensor':
        if (name === 'shape' && value.shape) return seq(value.shape.map(num), true);
        return unknown(text, `\`${text}\` not evaluated`);
      case 'unknown':
        return unknown(text, value.reason);
      default:
        return unknown(text, `\`${text}\` not evaluated`);
    }
  }

  /** A class-level field or method of `cls` or its user base classes; methods bind to `self`. */
  classAttribute(cls: ClassInfo, name: string, self?: Value): Value | undefined {
    for (const info of this.mro(cls)) {
      const method = info.methods.get(name);
      // NOTE: @staticmethod binds nothing; @classmethod binds the class (also when read from an instance).
      const binding = info.methodKinds.get(name);
      const bound =
        binding === 'static' ? undefined : binding === 'class' ? { kind: 'class' as const, cls } : self;
      if (method) return { kind: 'function', node: method, scope: info.scope, self: bound, cls: info };
      const field = info.fields.find((f) => f.name === name);
      if (field?.value) return this.evalExpr(field.value, new Env(info.scope));
    }
    return undefined;
  }

  /** The user classes of `cls`'s method resolution order (depth-first, left to right, no repeats). */
  mro(cls: ClassInfo): ClassInfo[] {
    const order: ClassInfo[] = [];
    const visit = (info: ClassInfo, depth: number) => {
      if (order.includes(info) || depth > 16) return;
      order.push(info);
      for (const base of this.baseClasses(info)) visit(base, depth + 1);
    };
    visit(cls, 0);
    return order;
  }

  /** The user-class bases of `cls` (library bases such as nn.Module are left out). */
  baseClasses(cls: ClassInfo): ClassInfo[] {
    const bases: ClassInfo[] = [];
    for (const base of cls.bases) {
      const value = this.evalExpr(base, new Env(cls.scope));
      if (value.kind === 'class' && value.cls !== cls) bases.push(value.cls);
    }
    return bases;
  }

  /** The qualified library names among the bases of `cls` and its user bases (`torch.nn.Module`). */
  libraryBases(cls: ClassInfo): string[] {
    const names: string[] = [];
    for (const info of this.mro(cls)) {
      for (const base of info.bases) {
        const value = this.evalExpr(base, new Env(info.scope));
        if (value.kind === 'qualified') names.push(value.name);
      }
    }
    return names;
  }

  private evalDict(node: SyntaxNode, env: Env): Value {
    const entries = new Map<string, Value>();
    for (const pair of node.children) {
      if (pair.type === 'dictionary_splat') {
        const spread = this.evalExpr(pair.children[0], env);
        if (spread.kind === 'dict') for (const [k, v] of spread.entries) entries.set(k, v);
        continue;
      }
      if (pair.type !== 'pair') continue;
      const key = this.evalExpr(fieldOf(pair, 'key')!, env);
      const value = this.evalExpr(fieldOf(pair, 'value')!, env);
      if (key.kind === 'str' || key.kind === 'num') entries.set(String(key.value), value);
    }
    return { kind: 'dict', entries };
  }

  private evalBinary(node: SyntaxNode, env: Env): Value {
    const left = this.evalExpr(fieldOf(node, 'left')!, env);
    const right = this.evalExpr(fieldOf(node, 'right')!, env);
    const known = firstUnknown([left, right]);
    if (known) return unknown(node, known.reason);
    return binaryOp(node.operator ?? '', left, right) ?? unknown(node, `\`${node.text}\` not evaluated`);
  }

  private evalUnary(node: SyntaxNode, env: Env): Value {
    const value = this.evalExpr(fieldOf(node, 'argument') ?? node.children[0], env);
    if (value.kind === 'unknown') return unknown(node, value.reason);
    if (value.kind !== 'num') return unknown(node, `\`${node.text}\` not evaluated`);
    return node.operator === '-' ? num(-value.value) : node.operator === '~' ? num(-value.value - 1) : value;
  }

  private evalBoolean(node: SyntaxNode, env: Env): Value {
    const left = this.evalExpr(fieldOf(node, 'left')!, env);
    const t = truthy(left);
    if (t === undefined) return unknown(node, reasonOf(left, node));
    const isAnd = node.operator === 'and';
    if (isAnd ? !t : t) return left;
    return this.evalExpr(fieldOf(node, 'right')!, env);
  }

  private evalComparison(node: SyntaxNode, env: Env): Value {
    const operands = node.children.map((c) => this.evalExpr(c, env));
    const ops = (node.operator ?? '')
      .replace(/not in/g, 'not_in')
      .replace(/is not/g, 'is_not')
      .split(' ');
    for (let i = 0; i + 1 < operands.length; i++) {
      const op = (ops[i] ?? '').replace('_', ' ');
      const result = compareOp(op, operands[i], operands[i + 1]);
      if (result === undefined) return unknown(node, reasonOf(firstUnknown(operands) ?? operands[i], node));
      if (!result) return bool(false);
    }
    return bool(true);
  }

  private evalConditional(node: SyntaxNode, env: Env): Value {
    const [body, condition, alternative] = node.children;
    const test = this.evalExpr(condition, env);
    const t = truthy(test);
    if (t !== undefined) return this.evalExpr(t ? body : alternative, env);
    const a = this.evalExpr(body, env);
    const b = this.evalExpr(alternative, env);
    const same = a.kind !== 'module' && a.kind !== 'param' ? compareOp('==', a, b) : undefined;
    return same ? a : unknown(node, reasonOf(test, condition));
  }

  private evalSubscript(node: SyntaxNode, env: Env): Value {
    const target = this.evalExpr(fieldOf(node, 'value')!, env);
    const indexNode = fieldOf(node, 'subscript');
    if (!indexNode) return unknown(node, 'empty subscript');
    if (indexNode.type === 'slice') return sliceValue(this, { target, node: indexNode, env, whole: node });
    const index = this.evalExpr(indexNode, env);
    if (target.kind === 'qualified' && isActivationTable(target.name) && index.kind === 'str') {
      const layer = transformersActivation(index.value, node.text);
      return layer
        ? { kind: 'module', module: layer }
        : unknown(node, `\`${node.text}\`: "${index.value}" is not a parameter-free entry of ACT2FN`);
    }
    return subscriptValue({ target, index, node });
  }

  private evalComprehension(node: SyntaxNode, env: Env): Value {
    const body = fieldOf(node, 'body') ?? node.children[0];
    const clauses = node.children.filter((c) => c.type === 'for_in_clause' || c.type === 'if_clause');
    const results: Value[] = [];
    const entries = new Map<string, Value>();
    let failure: Value | undefined;
    const run = (index: number, scopeEnv: Env) => {
      if (failure) return;
      if (index === clauses.length) {
        if (node.type !== 'dictionary_comprehension') return void results.push(this.evalExpr(body, scopeEnv));
        const key = this.evalExpr(fieldOf(body, 'key')!, scopeEnv);
        if (key.kind === 'str' || key.kind === 'num')
          entries.set(String(key.value), this.evalExpr(fieldOf(body, 'value')!, scopeEnv));
        else failure = unknown(node, reasonOf(key, body));
        return;
      }
      const clause = clauses[index];
      if (clause.type === 'if_clause') {
        const test = truthy(this.evalExpr(clause.children[0], scopeEnv));
        if (test === undefined) failure = unknown(node, `condition \`${clause.children[0].text}\` unknown`);
        else if (test) run(index + 1, scopeEnv);
        return;
      }
      const iterable = this.evalExpr(fieldOf(clause, 'right')!, scopeEnv);
      const items = iterate(iterable);
      if (!items) return void (failure = unknown(node, reasonOf(iterable, fieldOf(clause, 'right')!)));
      for (const item of items) {
        const inner = new Env(scopeEnv.scope, scopeEnv, scopeEnv.currentClass);
        bindTarget(this, { target: fieldOf(clause, 'left')!, value: item, env: inner });
        run(index + 1, inner);
      }
    };
    run(0, new Env(env.scope, env, env.currentClass));
    if (failure) return failure;
    return node.type === 'dictionary_comprehension' ? { kind: 'dict', entries } : seq(results);
  }
}

/** The reason a value is unknown, or a generic one naming `node`. */
export function reasonOf(value: Value, node: SyntaxNode): string {
  if (value.kind === 'unknown') return value.reason;
  if ((value.kind === 'seq' || value.kind === 'dict') && value.tainted) return value.tainted;
  return `\`${node.text}\` not evaluated`;
}

/** Binds a `for`/comprehension target (`x`, `i, (a, b)`) to a value in `env`. */
export function bindTarget(interp: Interpreter, input: { target: SyntaxNode; value: Value; env: Env }): void {
  const { target, value, env } = input;
  if (target.type === 'identifier') return env.set(target.text, value);
  if (
    target.type === 'pattern_list' ||
    target.type === 'tuple_pattern' ||
    target.type === 'list_pattern' ||
    target.type === 'tuple'
  ) {
    const parts = target.children.filter((c) => c.type !== 'comment');
    const items = iterate(value);
    parts.forEach((part, i) => {
      const item = items && items.length === parts.length ? items[i] : unknown(part, reasonOf(value, target));
      bindTarget(interp, { target: part, value: item, env });
    });
  }
}

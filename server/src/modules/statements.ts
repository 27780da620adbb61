// Statements of `__init__` and helper functions: assignments (to locals, `self.x`, tied
// weights, `p.requires_grad = False`), if/for/while with known conditions, returns. A branch
// or loop whose condition is unknown is not guessed: what it would set becomes unknown.
import type { SyntaxNode } from '../parse/syntax';
import { bindTarget, reasonOf, type Env, type Interpreter } from './interpreter';
import { containerMethod } from './containers';
import type { ModuleInstance } from './module-instance';
import { NONE, binaryOp, firstUnknown, iterate, shortText, truthy, unknown, type Value } from './values';
import { fieldOf } from '../analysis/syntax-helpers';

/** How a block ended early. */
export type Signal = { type: 'return'; value: Value } | { type: 'break' } | { type: 'continue' };

const MAX_ITERATIONS = 10_000;

/** Runs the statements of a block. */
export function execBlock(interp: Interpreter, input: { block: SyntaxNode; env: Env }): Signal | undefined {
  for (const statement of input.block.children) {
    const signal = execStatement(interp, { statement, env: input.env });
    if (signal) return signal;
  }
  return undefined;
}

function execStatement(interp: Interpreter, input: { statement: SyntaxNode; env: Env }): Signal | undefined {
  const { statement, env } = input;
  interp.tick();
  switch (statement.type) {
    case 'expression_statement': {
      const expression = statement.children[0];
      if (!expression) return undefined;
      if (expression.type === 'assignment') execAssignment(interp, { node: expression, env });
      else if (expression.type === 'augmented_assignment') execAugmented(interp, { node: expression, env });
      else interp.evalExpr(expression, env);
      return undefined;
    }
    case 'return_statement':
      return {
        type: 'return',
        value: statement.children[0] ? interp.evalExpr(statement.children[0], env) : NONE,
      };
    case 'break_statement':
      return { type: 'break' };
    case 'continue_statement':
      return { type: 'continue' };
    case 'if_statement':
      return execIf(interp, { node: statement, env });
    case 'for_statement':
      return execFor(interp, { node: statement, env });
    case 'while_statement':
      return execWhile(interp, { node: statement, env });
    case 'delete_statement':
      for (const target of statement.children) execDelete(interp, { target, env });
      return undefined;
    case 'with_statement':
    case 'try_statement': {
      const body = fieldOf(statement, 'body');
      return body ? execBlock(interp, { block: body, env }) : undefined;
    }
    case 'function_definition':
    case 'decorated_definition': {
      const definition =
        statement.type === 'function_definition' ? statement : fieldOf(statement, 'definition');
      const name = definition && fieldOf(definition, 'name')?.text;
      if (definition?.type === 'function_definition' && name) {
        env.set(name, { kind: 'function', node: definition, scope: env.scope, closure: env });
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function execAssignment(interp: Interpreter, input: { node: SyntaxNode; env: Env }): void {
  const { node, env } = input;
  const right = fieldOf(node, 'right');
  const left = fieldOf(node, 'left');
  if (!right || !left) return;
  if (right.type === 'assignment') {
    execAssignment(interp, { node: right, env });
    const inner = fieldOf(right, 'left');
    if (inner) assign(interp, { target: left, value: interp.evalExpr(inner, env), env, valueNode: right });
    return;
  }
  assign(interp, { target: left, value: interp.evalExpr(right, env), env, valueNode: right });
}

function execAugmented(interp: Interpreter, input: { node: SyntaxNode; env: Env }): void {
  const { node, env } = input;
  const left = fieldOf(node, 'left');
  const right = fieldOf(node, 'right');
  if (!left || !right) return;
  const current = interp.evalExpr(left, env);
  const delta = interp.evalExpr(right, env);
  const op = (node.operator ?? '').replace(/=$/, '');
  // `self.layers += [...]` on a ModuleList/Sequential extends it in place.
  if (op === '+' && current.kind === 'module' && current.module.containerKind === 'list') {
    containerMethod(interp, {
      module: current.module,
      self: current,
      name: 'extend',
      args: { positional: [delta], keywords: new Map() },
      node,
    });
    return;
  }
  const missing = firstUnknown([current, delta]);
  const value = missing
    ? unknown(node, missing.reason)
    : (binaryOp(op, current, delta) ?? unknown(node, `\`${node.text}\` not evaluated`));
  assign(interp, { target: left, value, env, valueNode: right });
}

/** Assigns to a name, `obj.attr`, `obj[key]` or a tuple of targets. */
export function assign(
  interp: Interpreter,
  input: { target: SyntaxNode; value: Value; env: Env; valueNode: SyntaxNode },
): void {
  const { target, value, env, valueNode } = input;
  if (target.type === 'attribute') {
    const object = interp.evalExpr(fieldOf(target, 'object')!, env);
    assignAttribute({ object, name: fieldOf(target, 'attribute')?.text ?? '', value, valueNode });
  } else if (target.type === 'subscript') {
    const container = interp.evalExpr(fieldOf(target, 'value')!, env);
    const key = interp.evalExpr(fieldOf(target, 'subscript')!, env);
    setItem({ container, key, value, valueNode });
  } else {
    bindTarget(interp, { target, value, env });
  }
}

/** Builtins whose result is never a module or parameter. */
const PLAIN_RESULT = /^(int|float|round|abs|len|min|max|sum|bool|str|hasattr|isinstance|callable|math\.\w+)$/;

/**
 * Whether an unknown expression may hold a module or parameter: names, attributes, subscripts
 * and calls may; arithmetic, comparisons and numeric builtins may not.
 */
function mayBuildModule(node: SyntaxNode): boolean {
  switch (node.type) {
    case 'identifier':
    case 'attribute':
    case 'subscript':
      return true;
    case 'call':
      return !PLAIN_RESULT.test(fieldOf(node, 'function')?.text ?? '');
    case 'conditional_expression':
    case 'boolean_operator':
    case 'parenthesized_expression':
    case 'list':
    case 'tuple':
    case 'list_comprehension':
    case 'generator_expression':
      return node.children.some(mayBuildModule);
    default:
      return false;
  }
}

/** `object.name = value` (also `setattr(object, "name", value)`): fields, flags and module registration. */
export function assignAttribute(input: {
  object: Value;
  name: string;
  value: Value;
  valueNode: SyntaxNode;
}): void {
  const { object, name, value, valueNode } = input;
  if (object.kind === 'object') return void object.fields.set(name, value);
  if (object.kind === 'param') {
    const flag = truthy(value);
    if (name === 'requires_grad' && flag !== undefined) object.param.trainable = flag;
    return;
  }
  if (object.kind === 'module') setModuleAttribute({ module: object.module, name, value, valueNode });
}

function setModuleAttribute(input: {
  module: ModuleInstance;
  name: string;
  value: Value;
  valueNode: SyntaxNode;
}): void {
  const { module, name, value, valueNode } = input;
  module.children.delete(name);
  module.params.delete(name);
  module.attrs.delete(name);
  if (value.kind === 'module') module.children.set(name, value.module);
  else if (value.kind === 'param') module.params.set(name, value.param);
  else if (value.kind === 'tensor' && module.buffers.has(name)) {
    module.buffers.set(name, {
      ...module.buffers.get(name)!,
      shape: value.shape,
      numel: value.shape?.reduce((a, b) => a * b, 1) ?? null,
    });
  } else {
    module.attrs.set(name, value);
    if (value.kind === 'unknown' && mayBuildModule(valueNode)) {
      module.unknowns.push({
        text: `self.${name} = ${shortText(valueNode.text)}`,
        reason: value.reason,
        line: valueNode.start.line,
      });
    }
  }
}

function setItem(input: { container: Value; key: Value; value: Value; valueNode: SyntaxNode }): void {
  const { container, key, value, valueNode } = input;
  const keyText = key.kind === 'str' || key.kind === 'num' ? String(key.value) : undefined;
  if (keyText === undefined) return;
  if (container.kind === 'dict') container.entries.set(keyText, value);
  else if (container.kind === 'seq' && key.kind === 'num')
    container.items[key.value < 0 ? container.items.length + key.value : key.value] = value;
  else if (container.kind === 'module') {
    const module = container.module;
    const name =
      module.containerKind === 'list' ? ([...module.children.keys()][Number(keyText)] ?? keyText) : keyText;
    setModuleAttribute({ module, name, value, valueNode });
  }
}

/** Methods that change their receiver (lists, dicts, modules). */
const MUTATORS =
  /^(append|extend|insert|add_module|register_\w+|update|setdefault|pop|remove|clear|__setitem__)$/;

/** The name at the root of `a.b[c].d`, if any. */
function rootName(node: SyntaxNode): string | undefined {
  let current: SyntaxNode | undefined = node;
  while (current && (current.type === 'attribute' || current.type === 'subscript'))
    current = fieldOf(current, current.type === 'attribute' ? 'object' : 'value');
  return current?.type === 'identifier' ? current.text : undefined;
}

/** Records that a statement whose condition or iterable is unknown might set things. */
function markUnknown(input: { node: SyntaxNode; header: string; reason: string; env: Env }): void {
  const { node, header, reason, env } = input;
  const self = env.get('self');
  const selfModule = self?.kind === 'module' ? self.module : undefined;
  const stack = [node];
  let touchesSelf = false;
  // Whether the skipped code may change parameters (not only buffers or plain attributes).
  let touchesParams = false;
  const selfAttribute = (target: SyntaxNode, valueNode?: SyntaxNode) => {
    const object = target.type === 'attribute' ? fieldOf(target, 'object') : undefined;
    const name = fieldOf(target, 'attribute')?.text;
    if (object?.text !== 'self' || !name || !selfModule || (valueNode && mayBuildModule(valueNode)))
      return void (touchesParams = true);
    if (selfModule.children.has(name) || selfModule.params.has(name)) return void (touchesParams = true);
    // A plain attribute (`self.flash = False`) becomes unknown, so what later reads it is unknown too.
    if (!selfModule.buffers.has(name)) selfModule.attrs.set(name, unknown(target, reason));
  };
  // A local the skipped code may change: a module it holds gets an unknown part, anything else becomes unknown.
  const taint = (target: SyntaxNode, valueNode?: SyntaxNode) => {
    const root = rootName(target);
    if (root === 'self') {
      touchesSelf = true;
      // `self.method(...)` itself is judged by the method (register_buffer or not) below.
      return target.type === 'identifier' ? undefined : selfAttribute(target, valueNode);
    }
    if (!root) return;
    const held = env.get(root);
    if (held?.kind === 'module')
      held.module.unknowns.push({ text: shortText(header), reason, line: node.start.line });
    else if (held !== undefined || target.type === 'identifier') env.set(root, unknown(root, reason));
  };
  while (stack.length) {
    const current = stack.pop()!;
    if (current.type === 'assignment' || current.type === 'augmented_assignment') {
      const left = fieldOf(current, 'left');
      const right = fieldOf(current, 'right');
      if (left?.type === 'pattern_list' || left?.type === 'tuple_pattern')
        left.children.forEach((t) => taint(t));
      else if (left) taint(left, current.type === 'assignment' ? right : current);
    } else if (current.type === 'delete_statement') {
      current.children.forEach((t) => taint(t));
      touchesParams = touchesParams || touchesSelf;
    } else if (current.type === 'call') {
      const callee = fieldOf(current, 'function');
      const object = callee?.type === 'attribute' ? fieldOf(callee, 'object') : undefined;
      const method = fieldOf(callee ?? current, 'attribute')?.text ?? '';
      if (object && MUTATORS.test(method)) {
        taint(object);
        if (rootName(object) === 'self' && !(object.text === 'self' && method === 'register_buffer'))
          touchesParams = true;
      }
      if (callee?.text === 'setattr') touchesSelf = touchesParams = true;
    }
    stack.push(...current.children);
  }
  if (touchesSelf && selfModule) {
    selfModule.unknowns.push({
      text: shortText(header),
      reason,
      line: node.start.line,
      ...(touchesParams ? {} : { bufferOnly: true }),
    });
  }
}

function execIf(interp: Interpreter, input: { node: SyntaxNode; env: Env }): Signal | undefined {
  const { node, env } = input;
  const branches: { condition?: SyntaxNode; body?: SyntaxNode }[] = [
    { condition: fieldOf(node, 'condition'), body: fieldOf(node, 'consequence') },
  ];
  for (const clause of node.children) {
    if (clause.type === 'elif_clause')
      branches.push({ condition: fieldOf(clause, 'condition'), body: fieldOf(clause, 'consequence') });
    else if (clause.type === 'else_clause') branches.push({ body: fieldOf(clause, 'body') });
  }
  for (let i = 0; i < branches.length; i++) {
    const { condition, body } = branches[i];
    if (!condition) return body ? execBlock(interp, { block: body, env }) : undefined;
    const value = interp.evalExpr(condition, env);
    const test = truthy(value);
    if (test === undefined) {
      const reason = reasonOf(value, condition);
      markUnknown({ node, header: `if ${condition.text}:`, reason, env });
      return undefined;
    }
    if (test) return body ? execBlock(interp, { block: body, env }) : undefined;
  }
  return undefined;
}

function execFor(interp: Interpreter, input: { node: SyntaxNode; env: Env }): Signal | undefined {
  const { node, env } = input;
  const right = fieldOf(node, 'right');
  const left = fieldOf(node, 'left');
  const body = fieldOf(node, 'body');
  if (!right || !left || !body) return undefined;
  const iterable = interp.evalExpr(right, env);
  const items = iterate(iterable);
  if (!items || items.length > MAX_ITERATIONS) {
    const reason = items ? `more than ${MAX_ITERATIONS} iterations` : reasonOf(iterable, right);
    markUnknown({ node: body, header: `for ${left.text} in ${right.text}:`, reason, env });
    return undefined;
  }
  for (const item of items) {
    bindTarget(interp, { target: left, value: item, env });
    const signal = execBlock(interp, { block: body, env });
    if (signal?.type === 'break') break;
    if (signal?.type === 'return') return signal;
  }
  return undefined;
}

function execWhile(interp: Interpreter, input: { node: SyntaxNode; env: Env }): Signal | undefined {
  const { node, env } = input;
  const condition = fieldOf(node, 'condition');
  const body = fieldOf(node, 'body');
  if (!condition || !body) return undefined;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const value = interp.evalExpr(condition, env);
    const test = truthy(value);
    if (test === undefined) {
      markUnknown({
        node: body,
        header: `while ${condition.text}:`,
        reason: reasonOf(value, condition),
        env,
      });
      return undefined;
    }
    if (!test) return undefined;
    const signal = execBlock(interp, { block: body, env });
    if (signal?.type === 'break') return undefined;
    if (signal?.type === 'return') return signal;
  }
  return undefined;
}

/** `del d[key]`, `del self.x`, `del name`. */
function execDelete(interp: Interpreter, input: { target: SyntaxNode; env: Env }): void {
  const { target, env } = input;
  if (target.type === 'expression_list')
    return target.children.forEach((t) => execDelete(interp, { target: t, env }));
  if (target.type === 'identifier') return void env.vars.delete(target.text);
  if (target.type === 'subscript') {
    const container = interp.evalExpr(fieldOf(target, 'value')!, env);
    const key = interp.evalExpr(fieldOf(target, 'subscript')!, env);
    const keyText = key.kind === 'str' || key.kind === 'num' ? String(key.value) : undefined;
    if (container.kind === 'dict' && keyText !== undefined) container.entries.delete(keyText);
    else if (container.kind === 'module' && keyText !== undefined) {
      container.module.children.delete(keyText);
      container.module.params.delete(keyText);
    } else if (container.kind === 'module' || (container.kind !== 'dict' && container.kind !== 'seq'))
      markUnknown({ node: target, header: `del ${target.text}`, reason: 'deleted key not evaluated', env });
    else if (container.kind === 'seq' && key.kind === 'num') container.items.splice(key.value, 1);
    return;
  }
  if (target.type === 'attribute') {
    const object = interp.evalExpr(fieldOf(target, 'object')!, env);
    const name = fieldOf(target, 'attribute')?.text ?? '';
    if (object.kind === 'module') {
      object.module.children.delete(name);
      object.module.params.delete(name);
      object.module.buffers.delete(name);
      object.module.attrs.delete(name);
    } else if (object.kind === 'object') object.fields.delete(name);
  }
}

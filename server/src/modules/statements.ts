// Statements of `__init__` and helper functions: assignments (to locals, `self.x`, tied
// weights, `p.requires_grad = False`), if/for/while with known conditions, returns. A branch
// or loop whose condition is unknown is not guessed: what it would set becomes unknown.
import type { SyntaxNode } from '../parse/syntax';
import { bindTarget, reasonOf, type Env, type Interpreter } from './interpreter';
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
    setAttribute({ object, name: fieldOf(target, 'attribute')?.text ?? '', value, valueNode });
  } else if (target.type === 'subscript') {
    const container = interp.evalExpr(fieldOf(target, 'value')!, env);
    const key = interp.evalExpr(fieldOf(target, 'subscript')!, env);
    setItem({ container, key, value, valueNode });
  } else {
    bindTarget(interp, { target, value, env });
  }
}

/** Whether an expression may build a module or parameter (it calls something CamelCase). */
function mayBuildModule(node: SyntaxNode): boolean {
  const stack = [node];
  while (stack.length) {
    const current = stack.pop()!;
    if (current.type === 'call') {
      const callee = fieldOf(current, 'function')?.text ?? '';
      if (/(^|\.)[A-Z]\w*$/.test(callee)) return true;
    }
    stack.push(...current.children);
  }
  return false;
}

function setAttribute(input: { object: Value; name: string; value: Value; valueNode: SyntaxNode }): void {
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

/** Records that a statement whose condition or iterable is unknown might set things. */
function markUnknown(input: { node: SyntaxNode; header: string; reason: string; env: Env }): void {
  const { node, header, reason, env } = input;
  const self = env.get('self');
  const stack = [node];
  let touchesSelf = false;
  while (stack.length) {
    const current = stack.pop()!;
    if (current.type === 'assignment' || current.type === 'augmented_assignment') {
      const left = fieldOf(current, 'left');
      if (left?.type === 'identifier') env.set(left.text, unknown(left, reason));
      else if (left && /^self\b/.test(left.text)) touchesSelf = true;
    } else if (
      current.type === 'call' &&
      /^self\b.*\.(append|extend|insert|add_module|register_\w+|update)$/.test(
        fieldOf(current, 'function')?.text ?? '',
      )
    ) {
      touchesSelf = true;
    }
    stack.push(...current.children);
  }
  if (touchesSelf && self?.kind === 'module') {
    self.module.unknowns.push({ text: shortText(header), reason, line: node.start.line });
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

// Expressions of the forward walk: names, attributes (parameters and buffers as model-state
// tensors), calls (modules, user functions, torch functions, Tensor methods, builtins over module
// lists), operators, comparisons, comprehensions and indexing on symbolic tensors. The statement
// and module-call half is walker.ts.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, isSuperCall } from '../analysis/syntax-helpers';
import { Env, type Interpreter } from '../modules/interpreter';
import { callValue } from '../modules/calls';
import type { Buffer, ModuleInstance, Param } from '../modules/module-instance';
import {
  NONE,
  binaryOp,
  bool,
  compareOp,
  iterate,
  num,
  seq,
  truthy,
  type FunctionValue,
  type Value,
} from '../modules/values';
import type { FValue } from './layer-ops';
import { fresh, type FTensor } from './tensor';
import { binaryTensor, callTorch, subscriptTensor, tensorAttribute, tensorMethod } from './torch-calls';
import type { Trace } from './trace';

const MAX_STEPS = 400_000;

/** Thrown when a walk is too long (pathological input); the result is then a lower bound. */
export class WalkBudget extends Error {}

export const isTensor = (v: FValue | undefined): v is FTensor => v?.kind === 'ftensor';
export const asValue = (v: FValue): Value => v as Value;

/** See the file comment. */
export abstract class ExpressionWalker {
  private readonly paramTensors = new Map<Param | Buffer, FTensor>();

  constructor(
    readonly trace: Trace,
    readonly interp: Interpreter,
  ) {}

  /** Calls a module with arguments (walker.ts). */
  abstract callModule(m: ModuleInstance, args: FValue[], keywords: Map<string, FValue>): FValue;
  /** Runs a user function or method (walker.ts). */
  abstract runFunction(fn: FunctionValue, args: FValue[], keywords: Map<string, FValue>): FValue;
  /** Runs a Sequential's children in order (walker.ts). */
  protected abstract chain(m: ModuleInstance, args: FValue[]): FValue;

  protected tick(): void {
    if (++this.trace.steps > MAX_STEPS) throw new WalkBudget('forward walk budget exceeded');
  }

  protected unknown(cause: string): FValue {
    this.trace.unknown(cause);
    return { kind: 'unknown', text: cause, reason: cause };
  }

  protected bind(target: SyntaxNode, value: FValue, env: Env): void {
    if (target.type === 'identifier') return env.set(target.text, asValue(value));
    if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list'].includes(target.type)) {
      const parts = target.children.filter((c) => c.type !== 'comment');
      const items = this.items(value);
      parts.forEach((part, i) =>
        this.bind(
          part,
          items && items.length === parts.length ? items[i] : this.unknown(`\`${target.text}\` not unpacked`),
          env,
        ),
      );
    }
  }

  /** Items of an iterable: list containers give their children; tensors are not iterated. */
  items(value: FValue): FValue[] | undefined {
    if (value.kind === 'module') {
      const m = value.module;
      if (m.containerKind === 'list')
        return [...m.children.values()].map((c) => ({ kind: 'module', module: c }) as Value);
      if (m.containerKind === 'dict')
        return [...m.children.keys()].map((k) => ({ kind: 'str', value: k }) as Value);
      return undefined;
    }
    if (value.kind === 'ftensor') return undefined;
    return iterate(value);
  }

  protected truth(value: FValue): boolean | undefined {
    if (isTensor(value)) return undefined;
    return truthy(value);
  }

  /** Evaluates an expression to a walker value. */
  evalExpr(node: SyntaxNode, env: Env): FValue {
    this.tick();
    switch (node.type) {
      case 'identifier': {
        const local = env.get(node.text);
        return local ?? this.interp.lookup(node.text, env, node);
      }
      case 'attribute': {
        const object = this.evalExpr(fieldOf(node, 'object')!, env);
        return this.attribute(object, fieldOf(node, 'attribute')?.text ?? '', node);
      }
      case 'call':
        return this.call(node, env);
      case 'binary_operator':
        return this.binary(
          node.operator ?? '',
          this.evalExpr(fieldOf(node, 'left')!, env),
          this.evalExpr(fieldOf(node, 'right')!, env),
          node,
        );
      case 'unary_operator': {
        const v = this.evalExpr(fieldOf(node, 'argument') ?? node.children[0], env);
        if (isTensor(v)) return node.operator === '-' ? (binaryTensor(this.trace, '*', v, num(-1)) ?? v) : v;
        return this.interp.evalExpr(node, env);
      }
      case 'parenthesized_expression':
        return node.children[0] ? this.evalExpr(node.children[0], env) : NONE;
      case 'tuple':
      case 'expression_list':
      case 'list':
        return seq(
          node.children.filter((c) => c.type !== 'comment').map((c) => asValue(this.evalExpr(c, env))),
          node.type !== 'list',
        );
      case 'subscript': {
        const target = this.evalExpr(fieldOf(node, 'value')!, env);
        if (isTensor(target))
          return (
            subscriptTensor(this.trace, { t: target, node, evalIndex: (n) => this.evalExpr(n, env) }) ??
            this.unknown(`indexing \`${node.text.slice(0, 40)}\` not followed`)
          );
        if (target.kind === 'seq' || target.kind === 'module') {
          const index = fieldOf(node, 'subscript');
          const i = index && index.type !== 'slice' ? this.evalExpr(index, env) : undefined;
          if (i?.kind === 'num' && target.kind === 'seq')
            return (target.items[i.value < 0 ? target.items.length + i.value : i.value] as FValue) ?? NONE;
        }
        return this.interp.evalExpr(node, env);
      }
      case 'conditional_expression': {
        const [body, condition, alternative] = node.children;
        const t = this.truth(this.evalExpr(condition, env));
        if (t === undefined)
          this.trace.unknown(`\`${condition.text.slice(0, 60)}\` undecided: took the first value`);
        return this.evalExpr(t === false ? alternative : body, env);
      }
      case 'comparison_operator':
        return this.compare(node, env);
      case 'boolean_operator': {
        const left = this.evalExpr(fieldOf(node, 'left')!, env);
        const t = this.truth(left);
        if (t === undefined) return this.interp.evalExpr(node, env);
        return (node.operator === 'and' ? !t : t) ? left : this.evalExpr(fieldOf(node, 'right')!, env);
      }
      case 'not_operator': {
        const t = this.truth(this.evalExpr(fieldOf(node, 'argument') ?? node.children[0], env));
        return t === undefined ? { kind: 'unknown', text: node.text, reason: 'undecided' } : bool(!t);
      }
      case 'list_comprehension':
      case 'generator_expression':
        return this.comprehension(node, env);
      default:
        return this.interp.evalExpr(node, env);
    }
  }

  protected compare(node: SyntaxNode, env: Env): FValue {
    const operands = node.children.map((c) => this.evalExpr(c, env));
    const ops = (node.operator ?? '')
      .replace(/is not/g, 'is_not')
      .replace(/not in/g, 'not_in')
      .split(' ');
    if (operands.length === 2 && (isTensor(operands[0]) || isTensor(operands[1]))) {
      const [a, b] = operands;
      if (ops[0] === 'is' || ops[0] === 'is_not') {
        const same = isTensor(a) && isTensor(b) ? a === b : false;
        return bool(ops[0] === 'is' ? same : !same);
      }
      return (
        binaryTensor(this.trace, ops[0], a, b) ?? this.unknown(`\`${node.text.slice(0, 40)}\` not followed`)
      );
    }
    for (let i = 0; i + 1 < operands.length; i++) {
      const result = compareOp(
        (ops[i] ?? '').replace('_', ' '),
        asValue(operands[i]),
        asValue(operands[i + 1]),
      );
      // NOTE: no cause here: an undecided comparison matters only where a branch or an op uses it.
      if (result === undefined) return { kind: 'unknown', text: node.text, reason: 'undecided' };
      if (!result) return bool(false);
    }
    return bool(true);
  }

  protected comprehension(node: SyntaxNode, env: Env): FValue {
    const body = fieldOf(node, 'body') ?? node.children[0];
    const clauses = node.children.filter((c) => c.type === 'for_in_clause');
    if (clauses.length !== 1 || node.children.some((c) => c.type === 'if_clause'))
      return this.interp.evalExpr(node, env);
    const items = this.items(this.evalExpr(fieldOf(clauses[0], 'right')!, env));
    if (!items) return this.unknown(`\`${node.text.slice(0, 50)}\` not followed`);
    const out: FValue[] = [];
    for (const item of items) {
      const inner = new Env(env.scope, env, env.currentClass);
      this.bind(fieldOf(clauses[0], 'left')!, item, inner);
      out.push(this.evalExpr(body, inner));
    }
    return seq(out.map(asValue));
  }

  protected binary(op: string, left: FValue, right: FValue, node: SyntaxNode): FValue {
    if (left.kind === 'unknown') return left;
    if (right.kind === 'unknown') return right;
    if (isTensor(left) || isTensor(right))
      return (
        binaryTensor(this.trace, op, left, right) ??
        this.unknown(`\`${node.text.slice(0, 50)}\` shapes not followed`)
      );
    return (
      binaryOp(op, asValue(left), asValue(right)) ??
      this.unknown(`\`${node.text.slice(0, 50)}\` not evaluated`)
    );
  }

  /** The tensor of a parameter or buffer (one storage each, model state). */
  stateTensor(key: Param | Buffer, shape: number[] | null, requiresGrad: boolean): FValue {
    if (!shape) return this.unknown('a parameter of unknown shape');
    let t = this.paramTensors.get(key);
    if (!t) {
      t = fresh({ shape, dtype: this.trace.paramDtype, requiresGrad, modelState: true });
      this.paramTensors.set(key, t);
    }
    return t;
  }

  protected attribute(object: FValue, name: string, node: SyntaxNode): FValue {
    if (isTensor(object))
      return (
        tensorAttribute(this.trace, object, name) ?? this.unknown(`\`.${name}\` of a tensor not followed`)
      );
    if (object.kind === 'module') {
      const m = object.module;
      const child = m.children.get(name);
      if (child) return { kind: 'module', module: child };
      const param = m.params.get(name);
      if (param) return this.stateTensor(param, param.shape, param.trainable);
      const buffer = m.buffers.get(name);
      if (buffer) return this.stateTensor(buffer, buffer.shape, false);
      if (name === 'training') return bool(true);
    }
    return this.interp.getAttribute(asValue(object), name, node.text);
  }

  protected call(node: SyntaxNode, env: Env): FValue {
    const calleeNode = fieldOf(node, 'function')!;
    const { args, keywords } = this.evalArgs(node, env);
    if (calleeNode.type === 'attribute') {
      const objectNode = fieldOf(calleeNode, 'object')!;
      const name = fieldOf(calleeNode, 'attribute')?.text ?? '';
      if (isSuperCall(objectNode)) return this.callSuper(name, args, keywords, env);
      const receiver = this.evalExpr(objectNode, env);
      if (isTensor(receiver))
        return (
          tensorMethod(this.trace, { t: receiver, name, args, keywords }) ??
          this.unknown(`\`Tensor.${name}\` not modelled`)
        );
      if (receiver.kind === 'module' && (name === 'forward' || name === '__call__'))
        return this.callModule(receiver.module, args, keywords);
      if (
        receiver.kind === 'module' &&
        receiver.module.containerKind === 'dict' &&
        (name === 'values' || name === 'items' || name === 'keys')
      ) {
        const entries = [...receiver.module.children.entries()];
        const make = ([k, c]: [string, ModuleInstance]): Value =>
          name === 'values'
            ? { kind: 'module', module: c }
            : name === 'keys'
              ? { kind: 'str', value: k }
              : seq(
                  [
                    { kind: 'str', value: k },
                    { kind: 'module', module: c },
                  ],
                  true,
                );
        return seq(entries.map(make));
      }
      return this.callValue(this.attribute(receiver, name, calleeNode), args, keywords, node);
    }
    return this.callValue(this.evalExpr(calleeNode, env), args, keywords, node);
  }

  protected callSuper(name: string, args: FValue[], keywords: Map<string, FValue>, env: Env): FValue {
    const current = env.currentClass;
    const self = env.get('self');
    if (!current || !self) return this.unknown('`super()` outside a method');
    for (const info of this.interp.mro(current).slice(1)) {
      const method = info.methods.get(name);
      if (method)
        return this.runFunction(
          { kind: 'function', node: method, scope: info.scope, self, cls: info },
          args,
          keywords,
        );
    }
    if (name === 'forward' && self.kind === 'module') {
      if (this.interp.libraryBases(current).some((b) => /\.Sequential$/.test(b)))
        return this.chain(self.module, args);
    }
    return this.unknown(`\`super().${name}\` of a library class not followed`);
  }

  protected callValue(
    callee: FValue,
    args: FValue[],
    keywords: Map<string, FValue>,
    node: SyntaxNode,
  ): FValue {
    switch (callee.kind) {
      case 'module':
        return this.callModule(callee.module, args, keywords);
      case 'function':
        return this.runFunction(callee, args, keywords);
      case 'qualified': {
        const out = callTorch(this.trace, {
          name: callee.name,
          args,
          keywords,
          callModule: (m, a) => this.callModule(m, a, new Map()),
        });
        if (out) return out;
        // An unknown argument was named where it arose; pass it on silently.
        const unknownArg = [...args, ...keywords.values()].find((a) => a.kind === 'unknown');
        if (unknownArg) return unknownArg;
        const builtin = this.builtin(callee.name, args);
        if (builtin) return builtin;
        if (args.some(isTensor) || [...keywords.values()].some(isTensor))
          return this.unknown(`\`${callee.name}\` not modelled`);
        return callValue(this.interp, {
          callee,
          args: { positional: args.map(asValue), keywords: keywords as Map<string, Value> },
          node,
        });
      }
      case 'unknown':
        return callee;
      default:
        return this.unknown(`\`${node.text.split('(')[0].slice(0, 40)}\` not followed`);
    }
  }

  /** Builtins over walker values: enumerate/zip/reversed/len of module lists and tensors. */
  protected builtin(name: string, args: FValue[]): FValue | undefined {
    const first = args[0];
    if (!first) return undefined;
    if (name === 'builtins.len') {
      if (isTensor(first)) return num(first.shape[0] ?? 0);
      const items = this.items(first);
      return items ? num(items.length) : undefined;
    }
    if (
      name === 'builtins.enumerate' ||
      name === 'builtins.reversed' ||
      name === 'builtins.list' ||
      name === 'builtins.tuple'
    ) {
      if (first.kind !== 'module' && !args.some(isTensor)) return undefined;
      const items = this.items(first);
      if (!items) return undefined;
      if (name === 'builtins.enumerate') return seq(items.map((v, i) => seq([num(i), asValue(v)], true)));
      return seq((name === 'builtins.reversed' ? [...items].reverse() : items).map(asValue));
    }
    if (name === 'builtins.zip') {
      if (!args.some((a) => a.kind === 'module' || isTensor(a))) return undefined;
      const lists = args.map((a) => this.items(a));
      if (lists.some((l) => !l)) return undefined;
      const n = Math.min(...lists.map((l) => l!.length));
      return seq(
        Array.from({ length: n }, (_, i) =>
          seq(
            lists.map((l) => asValue(l![i])),
            true,
          ),
        ),
      );
    }
    if (name === 'builtins.isinstance' && isTensor(first)) return bool(true);
    return undefined;
  }

  protected evalArgs(node: SyntaxNode, env: Env): { args: FValue[]; keywords: Map<string, FValue> } {
    const args: FValue[] = [];
    const keywords = new Map<string, FValue>();
    const list = fieldOf(node, 'arguments');
    for (const arg of list?.children ?? []) {
      if (arg.type === 'comment') continue;
      if (arg.type === 'keyword_argument')
        keywords.set(fieldOf(arg, 'name')?.text ?? '', this.evalExpr(fieldOf(arg, 'value')!, env));
      else if (arg.type === 'list_splat')
        args.push(
          ...(this.items(this.evalExpr(arg.children[0], env)) ?? [
            this.unknown(`\`${arg.text}\` not expanded`),
          ]),
        );
      else if (arg.type === 'dictionary_splat') {
        const spread = this.evalExpr(arg.children[0], env);
        if (spread.kind === 'dict') for (const [k, v] of spread.entries) keywords.set(k, v);
      } else args.push(this.evalExpr(arg, env));
    }
    return { args, keywords };
  }
}

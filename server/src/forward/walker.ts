// Follows `forward` through the module tree: module calls (catalog layers, Sequential chains,
// user modules' own `forward`), helper methods and functions, loops over ModuleList/Sequential,
// `if` on known values, `with torch.no_grad()`, and expressions on symbolic tensors. Nothing here
// depends on class or attribute names: layers are known by their torch.nn type.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf } from '../analysis/syntax-helpers';
import { Env, type Interpreter } from '../modules/interpreter';
import { bindParameters } from '../modules/instantiate';
import type { ModuleInstance } from '../modules/module-instance';
import { NONE, type FunctionValue, type Value } from '../modules/values';
import { transformerActivationBytes } from '../estimate/activations';
import { ExpressionWalker, asValue, isTensor } from './expressions';
import { callLayer, type FValue } from './layer-ops';
import { crossEntropy } from './ops';
import { fresh } from './tensor';
import type { Trace } from './trace';

export { WalkBudget } from './expressions';

type Signal =
  { type: 'return'; value: FValue } | { type: 'break' } | { type: 'continue' } | { type: 'raise' };

const MAX_DEPTH = 40;

/** See the file comment. */
export class Walker extends ExpressionWalker {
  private depth = 0;

  constructor(
    trace: Trace,
    interp: Interpreter,
    /** Children of repeated block lists: what activation checkpointing wraps. */
    readonly blocks: Set<ModuleInstance>,
  ) {
    super(trace, interp);
  }

  /** Calls a module with arguments. */
  callModule(m: ModuleInstance, args: FValue[], keywords: Map<string, FValue>): FValue {
    const close = this.blocks.has(m)
      ? this.trace.enterBlock(isTensor(args[0]) ? args[0] : undefined)
      : undefined;
    try {
      return this.callModuleInner(m, args, keywords);
    } finally {
      close?.();
    }
  }

  private callModuleInner(m: ModuleInstance, args: FValue[], keywords: Map<string, FValue>): FValue {
    // An input that is already unknown was named where it arose; pass it on silently.
    if (args[0]?.kind === 'unknown') return args[0];
    const unknownParts = m.unknowns.filter((u) => !u.bufferOnly);
    if (unknownParts.length) {
      const u = unknownParts[0];
      return this.unknown(`\`${u.text.slice(0, 50)}\`: ${u.reason}`);
    }
    if (m.kind === 'layer') {
      const out = callLayer(this.trace, { module: m, args, keywords, training: true });
      if (out) return out;
      return this.unknown(`\`${m.typeName}\` forward not modelled`);
    }
    if (m.kind === 'container') return this.chain(m, args);
    if (m.kind === 'library') return this.libraryModel(m, args, keywords);
    const cls = m.cls;
    if (!cls) return this.unknown(`\`${m.typeName}\` has no class`);
    for (const info of this.interp.mro(cls)) {
      const forward = info.methods.get('forward');
      if (forward)
        return this.runFunction(
          {
            kind: 'function',
            node: forward,
            scope: info.scope,
            self: { kind: 'module', module: m },
            cls: info,
          },
          args,
          keywords,
        );
    }
    // No forward of its own: a subclass of a torch.nn container or layer runs the base's forward.
    if (m.containerKind === 'list') return this.chain(m, args);
    const base = this.interp
      .libraryBases(cls)
      .map((b) => /^torch\.nn\.(?:modules\.\w+\.)?(\w+)$/.exec(b)?.[1])
      .find((b): b is string => !!b && b !== 'Module');
    if (base) {
      const asBase = Object.assign(Object.create(Object.getPrototypeOf(m) as object) as ModuleInstance, m, {
        typeName: base,
        kind: 'layer',
      });
      const out = callLayer(this.trace, { module: asBase, args, keywords, training: true });
      if (out) return out;
    }
    return this.unknown(`\`${m.typeName}\` has no forward`);
  }

  /**
   * A catalog model (transformers, torchvision) inside user code: a transformer's activations
   * from its catalog shape (Korthikanti et al. per saved tensor, the dtypes of this walk), its
   * logits as the output, and the loss when labels are passed. Other catalog models are unknown.
   */
  private libraryModel(m: ModuleInstance, args: FValue[], keywords: Map<string, FValue>): FValue {
    const shape = m.library?.transformer;
    const ids = args[0] ?? keywords.get('input_ids');
    if (!shape || !isTensor(ids) || ids.shape.length !== 2)
      return this.unknown(`library model \`${m.typeName}\`: no transformer shape to follow`);
    const [b, t] = ids.shape;
    const dtypes =
      this.trace.mode === 'fp32'
        ? { matmul: 4, fp32ops: 4, residual: 4 }
        : this.trace.mode === 'autocast'
          ? { matmul: 2, fp32ops: 4, residual: 4 }
          : { matmul: 2, fp32ops: 2, residual: 2 };
    const bytes = transformerActivationBytes({
      ...shape,
      vocab: undefined,
      seq: t,
      microBatch: b,
      dtypes,
      flashAttention: this.trace.sdpa,
      maskBytes: 1,
    });
    const synthetic = fresh({ shape: [Math.round(bytes)], dtype: 'bool', requiresGrad: false });
    this.trace.save(synthetic);
    this.trace.save(ids);
    if (this.trace.sdpa) this.trace.flash = true;
    const logits = fresh({
      shape: [b, t, shape.vocab ?? shape.hidden],
      dtype: this.trace.lowDtype,
      requiresGrad: true,
    });
    const fields = new Map<string, Value>([['logits', asValue(logits)]]);
    const labels = keywords.get('labels');
    if (isTensor(labels)) fields.set('loss', asValue(crossEntropy(this.trace, { logits, target: labels })));
    return { kind: 'object', className: `${m.typeName} output`, fields };
  }

  protected chain(m: ModuleInstance, args: FValue[]): FValue {
    if (m.containerKind !== 'list' || m.typeName === 'ModuleList')
      return this.unknown(`\`${m.typeName}\` is not callable`);
    let x: FValue = args[0] ?? NONE;
    for (const child of m.children.values()) x = this.callModule(child, [x], new Map());
    return x;
  }

  /** Runs a user function or method with walker values. */
  runFunction(fn: FunctionValue, args: FValue[], keywords: Map<string, FValue>): FValue {
    if (this.depth >= MAX_DEPTH) return this.unknown('calls nested too deeply');
    this.depth++;
    try {
      const env = new Env(fn.scope, fn.closure, fn.cls);
      bindParameters(this.interp, {
        fn,
        args: { positional: args.map(asValue), keywords: keywords as Map<string, Value> },
        env,
      });
      const body = fieldOf(fn.node, 'body');
      const signal = body ? this.execBlock(body, env) : undefined;
      return signal?.type === 'return' ? signal.value : NONE;
    } finally {
      this.depth--;
    }
  }

  private execBlock(block: SyntaxNode, env: Env): Signal | undefined {
    for (const statement of block.children) {
      const signal = this.execStatement(statement, env);
      if (signal) return signal;
    }
    return undefined;
  }

  private execStatement(statement: SyntaxNode, env: Env): Signal | undefined {
    this.tick();
    switch (statement.type) {
      case 'expression_statement': {
        const e = statement.children[0];
        if (e?.type === 'assignment') this.assign(e, env);
        else if (e?.type === 'augmented_assignment') this.augmented(e, env);
        else if (e && e.type !== 'string') this.evalExpr(e, env);
        return undefined;
      }
      case 'return_statement':
        return {
          type: 'return',
          value: statement.children[0] ? this.evalExpr(statement.children[0], env) : NONE,
        };
      case 'break_statement':
        return { type: 'break' };
      case 'continue_statement':
        return { type: 'continue' };
      case 'raise_statement':
        return { type: 'raise' };
      case 'if_statement':
        return this.execIf(statement, env);
      case 'for_statement':
        return this.execFor(statement, env);
      case 'with_statement':
        return this.execWith(statement, env);
      case 'try_statement': {
        const body = fieldOf(statement, 'body');
        return body ? this.execBlock(body, env) : undefined;
      }
      case 'while_statement':
        this.unknown('`while` loop in forward not followed');
        return undefined;
      default:
        return undefined;
    }
  }

  private assign(node: SyntaxNode, env: Env): void {
    const left = fieldOf(node, 'left');
    const right = fieldOf(node, 'right');
    if (!left || !right) return;
    this.bind(left, this.evalExpr(right, env), env);
  }

  private augmented(node: SyntaxNode, env: Env): void {
    const left = fieldOf(node, 'left');
    const right = fieldOf(node, 'right');
    if (left?.type !== 'identifier' || !right) return;
    const op = (node.operator ?? '+=').replace('=', '');
    env.set(left.text, asValue(this.binary(op, this.evalExpr(left, env), this.evalExpr(right, env), node)));
  }

  private execIf(node: SyntaxNode, env: Env): Signal | undefined {
    const branches: [SyntaxNode | undefined, SyntaxNode | undefined][] = [
      [fieldOf(node, 'condition'), fieldOf(node, 'consequence')],
    ];
    for (const alt of node.children.filter((c) => c.field === 'alternative')) {
      if (alt.type === 'elif_clause') branches.push([fieldOf(alt, 'condition'), fieldOf(alt, 'consequence')]);
      else branches.push([undefined, fieldOf(alt, 'body')]);
    }
    for (const [condition, body] of branches) {
      if (!condition) return body ? this.execBlock(body, env) : undefined;
      const test = this.truth(this.evalExpr(condition, env));
      if (test === undefined) {
        this.trace.unknown(
          `branch \`if ${condition.text.slice(0, 60)}\` undecided: followed its first branch`,
        );
        return body ? this.execBlock(body, env) : undefined;
      }
      if (test) return body ? this.execBlock(body, env) : undefined;
    }
    return undefined;
  }

  private execFor(node: SyntaxNode, env: Env): Signal | undefined {
    const items = this.items(this.evalExpr(fieldOf(node, 'right')!, env));
    const body = fieldOf(node, 'body');
    if (!items || !body) {
      this.unknown(`loop \`for ... in ${fieldOf(node, 'right')?.text.slice(0, 50)}\` not followed`);
      return undefined;
    }
    for (const item of items.slice(0, 10_000)) {
      this.bind(fieldOf(node, 'left')!, item, env);
      const signal = this.execBlock(body, env);
      if (signal?.type === 'break') break;
      if (signal?.type === 'return' || signal?.type === 'raise') return signal;
    }
    return undefined;
  }

  private execWith(node: SyntaxNode, env: Env): Signal | undefined {
    const body = fieldOf(node, 'body');
    const noGrad = node.children.some(
      (c) => c.type === 'with_clause' && /\b(no_grad|inference_mode)\b/.test(c.text),
    );
    if (noGrad) this.trace.noGrad++;
    try {
      return body ? this.execBlock(body, env) : undefined;
    } finally {
      if (noGrad) this.trace.noGrad--;
    }
  }
}

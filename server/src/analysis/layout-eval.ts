// Symbolic shape and stride evaluation of tensor expressions for the layout rules (SL2xx):
// follows local assignments, factory calls with literal or symbolic shapes, `B, T, C =
// x.size()` unpacking, view/reshape/transpose/permute/slicing/expand chains and matmuls.
import type { SyntaxNode } from '../parse/syntax';
import type { FileModel } from './file-model';
import { fieldOf, methodCall, positionalArgs, unwrap, walk } from './syntax-helpers';
import { reachingBinding, reachingParameter, scopeOf } from './reaching-definitions';
import { atom, div, isConcrete, mul, num, sameSize, type Size } from './symbolic-size';
import {
  contiguous,
  dropDim,
  insertDim,
  isContiguous,
  normDim,
  permute,
  sliceDim,
  transpose,
  type Layout,
} from './strides';
import { applyMethod, sliceLength } from './layout-ops';
import { helperReturnLayout } from './layout-helper-calls';
import { pieceLayout, pieceOfSubscript } from './layout-pieces';
import { perSubtree } from './per-model';

const MAX_DEPTH = 40;
const FACTORIES = /^torch\.(randn|rand|zeros|ones|empty|full)$/;
const SHAPE_PRESERVING_FUNCTIONS =
  /^torch\.(nn\.functional\.(softmax|log_softmax|dropout|gelu|relu|silu|tanh|sigmoid)|softmax|log_softmax|relu|tanh|sigmoid|exp)$/;
const SHAPE_PRESERVING_MODULES = /^torch\.nn\.(Dropout|Identity|ReLU|GELU|SiLU|Tanh|Sigmoid|Softmax)$/;

/**
 * The sizes `a // b` stands for in one scope (function, class body or module), for one atom
 * prefix. They depend on the scope's text and the prefix alone, so every evaluator shares
 * them (SL201 builds several per `.view()`), and they stay with the scope's subtree across
 * versions of a document.
 */
const scopeSubstitutions = perSubtree((scope: SyntaxNode, prefix: string): ReadonlyMap<string, Size> => {
  const found = new Map<string, Size>();
  walk(scope, (n) => {
    if (n !== scope && (n.type === 'function_definition' || n.type === 'class_definition')) return false;
    if (n.type !== 'binary_operator' || n.operator !== '//') return;
    const left = fieldOf(n, 'left');
    const right = fieldOf(n, 'right');
    if (!left || !right || !['identifier', 'attribute'].includes(left.type)) return;
    if (!['identifier', 'attribute', 'integer'].includes(right.type)) return;
    const dividend = compactText(left);
    if (found.has(dividend)) return;
    const divisor = right.type === 'integer' ? num(Number(right.text)) : atom(prefix + compactText(right));
    found.set(dividend, mul(atom(prefix + compactText(n)), divisor));
  });
  return found;
});

/** A node's text without whitespace: the spelling of a size atom (an identifier has none to remove). */
function compactText(node: SyntaxNode): string {
  return node.type === 'identifier' ? node.text : node.text.replace(/\s+/g, '');
}

/** What an evaluation assumes beyond the code it reads (SL201's untyped parameters, same-file helpers). */
export interface LayoutContext {
  /** The layout a function parameter holds, at a use its own value reaches. */
  parameterLayout?(param: SyntaxNode, use: SyntaxNode): Layout | undefined;
  /** The size an integer parameter holds (a helper called with sizes). */
  parameterSize?(param: SyntaxNode, use: SyntaxNode): Size | -1 | undefined;
  /** Prepended to opaque size atoms, so a helper's local names never meet its caller's. */
  atomPrefix?: string;
  /** Helpers being evaluated, innermost last (recursion guard). */
  active?: readonly SyntaxNode[];
}

/** Evaluates layouts and sizes of expressions in one file; results are memoised per node. */
export class LayoutEvaluator {
  private readonly layouts = new Map<SyntaxNode, Layout | undefined>();
  private depth = 0;
  /**
   * Set when the evaluation met code that raises under the assumed layouts (unpacking a
   * 4-D shape into three names): the assumption is inconsistent with the code.
   */
  inconsistent = false;

  constructor(
    readonly model: FileModel,
    readonly context: LayoutContext = {},
  ) {}

  /** A fresh evaluator of the same file under other assumptions. */
  derive(context: LayoutContext): LayoutEvaluator {
    return new LayoutEvaluator(this.model, context);
  }

  /** The layout of a tensor expression, or undefined when its shape is unknown. */
  layoutOf(node: SyntaxNode): Layout | undefined {
    if (this.layouts.has(node)) return this.layouts.get(node);
    if (this.depth > MAX_DEPTH) return undefined;
    this.depth++;
    this.layouts.set(node, undefined); // NOTE: cycle guard for self-referencing definitions.
    try {
      const layout = this.compute(unwrap(node));
      this.layouts.set(node, layout);
      return layout;
    } finally {
      this.depth--;
    }
  }

  /** A symbolic size for an integer expression (`4`, `B`, `C // self.n_head`, `x.size(1)`). */
  sizeOf(node: SyntaxNode): Size | -1 | undefined {
    const target = unwrap(node);
    if (target.type === 'integer') return num(Number(target.text));
    if (target.type === 'unary_operator' && target.operator === '-') {
      return fieldOf(target, 'argument')?.text === '1' ? -1 : undefined;
    }
    if (target.type === 'identifier') {
      const binding = reachingBinding(target, target.text);
      if (binding?.kind === 'value') {
        const value = unwrap(binding.value);
        if (value.type === 'integer' || value.type === 'binary_operator') return this.sizeOf(value);
        if (value.type === 'call' && methodCall(value)?.name === 'size') return this.sizeOf(value);
      }
      if (binding?.kind === 'unpack') {
        const layout = this.shapeSource(binding.value);
        if (layout && layout.sizes.length === binding.count) return layout.sizes[binding.index];
        if (layout) this.inconsistent = true;
      }
      const param = this.context.parameterSize && reachingParameter(target);
      const size = param && this.context.parameterSize!(param, target);
      return size ?? this.symbol(target);
    }
    if (target.type === 'attribute') return this.symbol(target);
    if (target.type === 'binary_operator') return this.arithmetic(target);
    if (target.type === 'call' || target.type === 'subscript') {
      const dim = this.sizeQuery(target);
      if (dim) {
        const layout = this.layoutOf(dim.tensor);
        const d = layout && normDim(dim.index, layout.sizes.length);
        if (layout && d !== undefined) return layout.sizes[d];
        if (layout) this.inconsistent = true; // NOTE: `x.size(3)` of a 3-D tensor raises.
      }
      return this.symbol(target);
    }
    return undefined;
  }

  /** Sizes of a target shape given as arguments (`view(B, T, C)`, `view((B, -1))`); undefined if not literal. */
  shapeArgs(call: SyntaxNode, skip = 0): (Size | -1)[] | undefined {
    const argList = fieldOf(call, 'arguments');
    let args = (argList?.children ?? [])
      .filter((c) => !['keyword_argument', 'dictionary_splat', 'comment'].includes(c.type))
      .slice(skip);
    const packed = args.length === 1 && ['tuple', 'list'].includes(unwrap(args[0]).type);
    if (packed) args = unwrap(args[0]).children;
    // NOTE: a lone non-literal argument may be a tuple (`x.view(new_shape)`) or a dtype: only sure ints count.
    if (!packed && args.length === 1 && args[0].type !== 'list_splat' && !this.surelyInt(args[0]))
      return undefined;
    const sizes: (Size | -1)[] = [];
    for (const arg of args) {
      const part = arg.type === 'list_splat' ? this.splatSizes(arg) : [this.sizeOf(arg)];
      if (!part || part.some((p) => p === undefined)) return undefined;
      sizes.push(...(part as (Size | -1)[]));
    }
    return sizes;
  }

  /** `*x.shape[:-2]` or `*x.size()[1:]` in a shape: the sizes of that slice of a known layout. */
  private splatSizes(splat: SyntaxNode): Size[] | undefined {
    const value = splat.children[0] && unwrap(splat.children[0]);
    if (value?.type !== 'subscript') return undefined;
    const parts = value.children.filter((c) => c.field === 'subscript');
    const source = fieldOf(value, 'value');
    const layout = source && this.shapeSource(source);
    if (!layout || parts.length !== 1 || parts[0].type !== 'slice') return undefined;
    const bounds = parts[0].text.split(':');
    if (bounds.length !== 2) return undefined;
    const [start, stop] = bounds.map((b) => (b.trim() === '' ? undefined : Number(b.trim())));
    if ([start, stop].some((b) => b !== undefined && !Number.isInteger(b))) return undefined;
    return layout.sizes.slice(start ?? 0, stop);
  }

  private surelyInt(node: SyntaxNode): boolean {
    const target = unwrap(node);
    if (literalInt(target) !== undefined || this.sizeQuery(target)) return true;
    if (target.type === 'binary_operator') return ['*', '//'].includes(target.operator ?? '');
    if (target.type !== 'identifier') return false;
    const binding = reachingBinding(target, target.text);
    if (binding?.kind === 'unpack') return !!this.shapeSource(binding.value) || isSizeCall(binding.value);
    return binding?.kind === 'value' && this.surelyInt(binding.value);
  }

  private compute(node: SyntaxNode): Layout | undefined {
    switch (node.type) {
      case 'identifier': {
        const binding = reachingBinding(node, node.text);
        if (binding?.kind === 'value') return this.layoutOf(binding.value);
        if (binding?.kind === 'unpack') {
          const value = unwrap(binding.value);
          if (value.type === 'tuple' || value.type === 'expression_list') {
            const element = value.children[binding.index];
            return element && value.children.length === binding.count ? this.layoutOf(element) : undefined;
          }
          if (value.type === 'call') {
            const piece = { call: value, index: binding.index, count: binding.count };
            return pieceLayout(this, piece) ?? helperReturnLayout(this, piece);
          }
        }
        const param = this.context.parameterLayout && reachingParameter(node);
        return param && this.context.parameterLayout!(param, node);
      }
      case 'attribute':
        return this.attribute(node);
      case 'subscript':
        return this.subscript(node);
      case 'binary_operator':
        return this.binary(node);
      case 'call':
        return this.call(node);
      default:
        return undefined;
    }
  }

  private attribute(node: SyntaxNode): Layout | undefined {
    const name = fieldOf(node, 'attribute')?.text;
    const object = fieldOf(node, 'object');
    if (!object || !name) return undefined;
    if (!['T', 'mT', 'data'].includes(name)) return undefined;
    const layout = this.layoutOf(object);
    if (!layout) return undefined;
    const rank = layout.sizes.length;
    if (name === 'data') return layout;
    if (name === 'T')
      return permute(
        layout,
        layout.sizes.map((_, i) => rank - 1 - i),
        '.T',
      );
    return rank >= 2 ? transpose(layout, -2, -1, '.mT') : undefined;
  }

  private subscript(node: SyntaxNode): Layout | undefined {
    const value = fieldOf(node, 'value');
    if (value?.type === 'call') {
      const piece = pieceOfSubscript(this, node);
      if (piece.handled) return piece.layout;
    }
    const base = value && this.layoutOf(value);
    if (!base) return undefined;
    const parts = node.children.filter((c) => c.field === 'subscript');
    const consumed = parts.filter((p) => p.type !== 'none' && p.type !== 'ellipsis').length;
    if (parts.filter((p) => p.type === 'ellipsis').length > 1 || consumed > base.sizes.length)
      return undefined;
    let layout: Layout = base;
    let dim = 0;
    for (const part of parts) {
      if (part.type === 'ellipsis') dim += base.sizes.length - consumed;
      else if (part.type === 'none') layout = insertDim(layout, dim++);
      else if (part.type === 'integer' || (part.type === 'unary_operator' && part.operator === '-')) {
        layout = dropDim(layout, dim);
      } else if (part.type === 'slice') {
        const sliced = sliceLength(this, { slice: part, size: layout.sizes[dim] });
        if (!sliced) return undefined;
        layout = sliceDim(layout, {
          dim,
          size: sliced.size,
          step: sliced.step,
          cause: `slicing \`${part.text}\``,
        });
        dim++;
      } else return undefined; // NOTE: tensor or variable indices may be advanced indexing (a copy).
    }
    return layout;
  }

  private binary(node: SyntaxNode): Layout | undefined {
    const left = fieldOf(node, 'left');
    const right = fieldOf(node, 'right');
    if (!left || !right) return undefined;
    if (node.operator === '@') return this.matmul(left, right);
    if (!['*', '/', '+', '-'].includes(node.operator ?? '')) return undefined;
    const scalar = (side: SyntaxNode) =>
      ['integer', 'float'].includes(unwrap(side).type) || this.model.kindOf(side) === 'number';
    const tensorSide = scalar(right) ? left : scalar(left) ? right : undefined;
    const layout = tensorSide && this.layoutOf(tensorSide);
    return layout && sameShapeResult(layout);
  }

  /** `a @ b` / `torch.matmul`: batch dims broadcast, a fresh contiguous result. */
  matmul(left: SyntaxNode, right: SyntaxNode): Layout | undefined {
    const a = this.layoutOf(left);
    const b = this.layoutOf(right);
    if (!a || !b || a.sizes.length < 2 || b.sizes.length < 2) return undefined;
    const batchA = a.sizes.slice(0, -2);
    const batchB = b.sizes.slice(0, -2);
    const longer = batchA.length >= batchB.length ? batchA : batchB;
    const shorter = longer === batchA ? batchB : batchA;
    const offset = longer.length - shorter.length;
    const batch = longer.map((s, i) => {
      const other = shorter[i - offset];
      if (!other || sameSize(other, s) || (isConcrete(other) && other.coef === 1)) return s;
      return isConcrete(s) && s.coef === 1 ? other : undefined;
    });
    if (batch.some((s) => !s)) return undefined;
    return contiguous([...(batch as Size[]), a.sizes[a.sizes.length - 2], b.sizes[b.sizes.length - 1]]);
  }

  private call(node: SyntaxNode): Layout | undefined {
    const callee = fieldOf(node, 'function');
    if (!callee) return undefined;
    const qualified = this.model.imports.resolve(callee);
    const args = positionalArgs(node);
    if (qualified) {
      if (FACTORIES.test(qualified)) {
        const shape = qualified === 'torch.full' ? this.shapeOfTuple(args[0]) : this.shapeArgs(node);
        return shape && !shape.includes(-1) ? contiguous(shape as Size[]) : undefined;
      }
      if (qualified === 'torch.arange' && args.length === 1) {
        const size = this.sizeOf(args[0]);
        return size && size !== -1 ? contiguous([size]) : undefined;
      }
      if (qualified === 'torch.matmul' && args.length === 2) return this.matmul(args[0], args[1]);
      if (SHAPE_PRESERVING_FUNCTIONS.test(qualified) && args[0]) {
        const layout = this.layoutOf(args[0]);
        return layout && sameShapeResult(layout);
      }
      const fn = /^torch\.(\w+)$/.exec(qualified)?.[1];
      if (fn && args[0]) {
        const receiver = this.layoutOf(args[0]);
        return receiver && applyMethod(this, { layout: receiver, name: fn, call: node, skip: 1 });
      }
      return undefined;
    }
    const method = methodCall(node);
    if (method) {
      if (method.receiver.text === 'self')
        return this.selfModuleCall(node, method.name) ?? helperReturnLayout(this, { call: node });
      const receiver = this.layoutOf(method.receiver);
      if (!receiver) return this.shapeOnly(node, method.name);
      return applyMethod(this, { layout: receiver, name: method.name, call: node, skip: 0 });
    }
    return callee.type === 'identifier' ? helperReturnLayout(this, { call: node }) : undefined;
  }

  /** `t.view(B, T, C)` on a tensor of unknown layout: the result has that shape (or the line raised). */
  private shapeOnly(call: SyntaxNode, name: string): Layout | undefined {
    if (name !== 'view' && name !== 'reshape') return undefined;
    const shape = this.shapeArgs(call);
    if (!shape || shape.includes(-1)) return undefined;
    return { sizes: shape as Size[], strides: null };
  }

  /** `self.drop(x)` where `self.drop = nn.Dropout(...)`: an element-wise module keeps the shape. */
  private selfModuleCall(call: SyntaxNode, name: string): Layout | undefined {
    const args = positionalArgs(call);
    if (args.length !== 1) return undefined;
    let cls: SyntaxNode | null = call.parent;
    while (cls && cls.type !== 'class_definition') cls = cls.parent;
    if (!cls) return undefined;
    let preserving = false;
    walk(cls, (n) => {
      if (n.type !== 'assignment' || fieldOf(n, 'left')?.text !== `self.${name}`) return;
      const right = fieldOf(n, 'right');
      const ctor = right?.type === 'call' ? fieldOf(right, 'function') : undefined;
      preserving = !!ctor && SHAPE_PRESERVING_MODULES.test(this.model.imports.resolve(ctor) ?? '');
    });
    const layout = preserving ? this.layoutOf(args[0]) : undefined;
    return layout && sameShapeResult(layout);
  }

  private shapeOfTuple(node: SyntaxNode | undefined): (Size | -1)[] | undefined {
    if (!node || !['tuple', 'list'].includes(unwrap(node).type)) return undefined;
    const sizes = unwrap(node).children.map((c) => this.sizeOf(c));
    return sizes.every((s) => s !== undefined) ? (sizes as (Size | -1)[]) : undefined;
  }

  /** The tensor whose shape a `x.size()` / `x.shape` expression reads. */
  private shapeSource(node: SyntaxNode): Layout | undefined {
    const value = unwrap(node);
    if (value.type === 'attribute' && fieldOf(value, 'attribute')?.text === 'shape') {
      return this.layoutOf(fieldOf(value, 'object')!);
    }
    const method = methodCall(value);
    if (method?.name === 'size' && positionalArgs(value).length === 0) return this.layoutOf(method.receiver);
    return undefined;
  }

  /** `x.size(1)` or `x.shape[1]` with a literal dim. */
  private sizeQuery(node: SyntaxNode): { tensor: SyntaxNode; index: number } | undefined {
    const method = methodCall(node);
    const args = positionalArgs(node);
    if (method?.name === 'size' && args.length === 1) {
      const index = literalInt(args[0]);
      return index === undefined ? undefined : { tensor: method.receiver, index };
    }
    if (node.type === 'subscript') {
      const value = fieldOf(node, 'value');
      const parts = node.children.filter((c) => c.field === 'subscript');
      if (
        value?.type === 'attribute' &&
        fieldOf(value, 'attribute')?.text === 'shape' &&
        parts.length === 1
      ) {
        const index = literalInt(parts[0]);
        return index === undefined ? undefined : { tensor: fieldOf(value, 'object')!, index };
      }
    }
    return undefined;
  }

  private arithmetic(node: SyntaxNode): Size | undefined {
    const left = fieldOf(node, 'left');
    const right = fieldOf(node, 'right');
    const a = left && this.sizeOf(left);
    const b = right && this.sizeOf(right);
    if (!a || !b || a === -1 || b === -1) return this.symbol(node);
    if (node.operator === '*') return mul(a, b);
    if (node.operator === '//') {
      const quotient = div(a, b);
      if (isConcrete(quotient) && Number.isInteger(quotient.coef)) return quotient;
      // NOTE: `x.size(2) // 3` is taken as exact: code that sizes a view or a split with it
      // needs the division to be exact (or the element counts would not match).
      if ([...quotient.atoms.values()].every((e) => e > 0) && quotient.coef > 0) return quotient;
      return this.symbol(node);
    }
    if ((node.operator === '+' || node.operator === '-') && isConcrete(a) && isConcrete(b)) {
      return num(node.operator === '+' ? a.coef + b.coef : a.coef - b.coef);
    }
    return this.symbol(node);
  }

  /**
   * An atom for an opaque size expression. `A // B` atoms rewrite `A` as `(A // B)·B` in the
   * same scope, so `n_head · (C // n_head)` and `C` compare equal (a view requires divisibility).
   */
  symbol(node: SyntaxNode): Size {
    const prefix = this.context.atomPrefix ?? '';
    const key = compactText(node);
    return scopeSubstitutions(scopeOf(node), prefix).get(key) ?? atom(prefix + key);
  }
}

/** The layout of an element-wise result: same shape, contiguous when the input is. */
export function sameShapeResult(layout: Layout): Layout {
  return isContiguous(layout) ? contiguous(layout.sizes) : { sizes: layout.sizes, strides: null };
}

function isSizeCall(node: SyntaxNode): boolean {
  const value = unwrap(node);
  return (
    (value.type === 'attribute' && fieldOf(value, 'attribute')?.text === 'shape') ||
    (methodCall(value)?.name === 'size' && positionalArgs(value).length === 0)
  );
}

/** A literal integer (possibly negative), else undefined. */
export function literalInt(node: SyntaxNode | undefined): number | undefined {
  if (!node) return undefined;
  const target = unwrap(node);
  if (target.type === 'integer') return Number(target.text);
  if (target.type === 'unary_operator' && target.operator === '-') {
    const argument = fieldOf(target, 'argument');
    return argument?.type === 'integer' ? -Number(argument.text) : undefined;
  }
  return undefined;
}

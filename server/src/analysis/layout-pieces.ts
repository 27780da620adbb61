// Layouts of the pieces of `chunk`, `split` and `unbind` (method or `torch.` function form),
// as unpacked (`a, b = x.chunk(2, dim=-1)`) or indexed (`x.unbind(0)[1]`): each piece is a
// narrow of the source along the split dim, so it keeps the source's strides.
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, hasSplat, keywordArg, methodCall, positionalArgs, unwrap } from './syntax-helpers';
import { div, isConcrete, num, type Size } from './symbolic-size';
import { dropDim, normDim, sliceDim, type Layout } from './strides';
import { literalInt, type LayoutEvaluator } from './layout-eval';

const SPLITTERS = new Set(['chunk', 'split', 'unbind', 'tensor_split']);

/** The piece `index` of a splitting call that the code unpacks into `count` names (or indexes, count unknown). */
export function pieceLayout(
  evaluator: LayoutEvaluator,
  input: { call: SyntaxNode; index: number; count?: number },
): Layout | undefined {
  const form = splitterCall(evaluator, input.call);
  if (!form) return undefined;
  const { name, source, args } = form;
  const layout = evaluator.layoutOf(source);
  if (!layout) return undefined;
  const rank = layout.sizes.length;
  const dimNode = keywordArg(input.call, 'dim') ?? args[name === 'unbind' ? 0 : 1];
  const dim = normDim(dimNode ? (literalInt(dimNode) ?? NaN) : 0, rank);
  if (dim === undefined) return undefined;
  const size = layout.sizes[dim];
  if (name === 'unbind') {
    const index = pieceIndex(input.index, input.count ?? (isConcrete(size) ? size.coef : undefined));
    return index === undefined ? undefined : dropDim(layout, dim);
  }
  const sizes =
    name === 'split'
      ? splitSizes(evaluator, { node: args[0], size, count: input.count })
      : chunkSizes(evaluator, { node: args[0], size, count: input.count ?? input.index + 1 });
  if (!sizes || (input.count !== undefined && sizes.length !== input.count)) return undefined;
  const index = pieceIndex(input.index, sizes.length);
  if (index === undefined) return undefined;
  const cause = `${name}(${args.map((a) => a.text).join(', ')})`;
  return sliceDim(layout, { dim, size: sizes[index], step: 1, cause });
}

/** `x.chunk(2)[0]`: handled says whether the subscript is a piece of a splitting call. */
export function pieceOfSubscript(
  evaluator: LayoutEvaluator,
  node: SyntaxNode,
): { handled: boolean; layout?: Layout } {
  const value = fieldOf(node, 'value');
  const parts = node.children.filter((c) => c.field === 'subscript');
  if (!value || !splitterCall(evaluator, value)) return { handled: false };
  const index = parts.length === 1 ? literalInt(parts[0]) : undefined;
  if (index === undefined) return { handled: true };
  return { handled: true, layout: pieceLayout(evaluator, { call: value, index }) };
}

function splitterCall(
  evaluator: LayoutEvaluator,
  call: SyntaxNode,
): { name: string; source: SyntaxNode; args: SyntaxNode[] } | undefined {
  const value = unwrap(call);
  if (value.type !== 'call' || hasSplat(value)) return undefined;
  const method = methodCall(value);
  const callee = fieldOf(value, 'function');
  const qualified = callee && evaluator.model.imports.resolve(callee);
  const fn = qualified ? /^torch\.(\w+)$/.exec(qualified)?.[1] : undefined;
  if (fn && SPLITTERS.has(fn) && fn !== 'tensor_split') {
    const [source, ...args] = positionalArgs(value);
    return source ? { name: fn, source, args } : undefined;
  }
  if (!qualified && method && SPLITTERS.has(method.name) && method.name !== 'tensor_split')
    return { name: method.name, source: method.receiver, args: positionalArgs(value) };
  return undefined;
}

function pieceIndex(index: number, count: number | undefined): number | undefined {
  if (index >= 0) return count === undefined || index < count ? index : undefined;
  return count === undefined ? undefined : index + count >= 0 ? index + count : undefined;
}

/**
 * `chunk(n)`: pieces of ceil(size / n) (the last one smaller); a symbolic size is assumed
 * divisible. With a symbolic `n`, the pieces the code uses (`count`) are each size / n.
 */
function chunkSizes(
  evaluator: LayoutEvaluator,
  input: { node: SyntaxNode | undefined; size: Size; count: number },
): Size[] | undefined {
  const { node: countNode, size } = input;
  const chunks = literalInt(countNode);
  if (chunks === undefined && countNode && input.count > 0) {
    const n = evaluator.sizeOf(countNode);
    return n && n !== -1 && !isConcrete(n) ? new Array<Size>(input.count).fill(div(size, n)) : undefined;
  }
  if (chunks === undefined || chunks <= 0) return undefined;
  if (!isConcrete(size)) return new Array<Size>(chunks).fill(div(size, num(chunks)));
  const per = Math.ceil(size.coef / chunks);
  if (per === 0) return [];
  const pieces: Size[] = [];
  for (let start = 0; start < size.coef; start += per) pieces.push(num(Math.min(per, size.coef - start)));
  return pieces;
}

/** `split(k)` (pieces of k, the last one smaller) or `split([a, b, c])`. */
function splitSizes(
  evaluator: LayoutEvaluator,
  input: { node: SyntaxNode | undefined; size: Size; count: number | undefined },
): Size[] | undefined {
  const { node, size, count: unpacked } = input;
  if (!node) return undefined;
  const target = unwrap(node);
  if (target.type === 'list' || target.type === 'tuple') {
    const sizes = target.children.map((c) => evaluator.sizeOf(c));
    return sizes.every((s): s is Size => s !== undefined && s !== -1) ? sizes : undefined;
  }
  const piece = evaluator.sizeOf(target);
  if (!piece || piece === -1) return undefined;
  if (isConcrete(size) && isConcrete(piece)) {
    if (piece.coef <= 0) return undefined;
    const pieces: Size[] = [];
    for (let start = 0; start < size.coef; start += piece.coef)
      pieces.push(num(Math.min(piece.coef, size.coef - start)));
    return pieces;
  }
  // NOTE: a symbolic split is assumed to divide the dim evenly, as code that unpacks it intends.
  const ratio = div(size, piece);
  const count = isConcrete(ratio) && Number.isInteger(ratio.coef) && ratio.coef > 0 ? ratio.coef : unpacked;
  return count === undefined ? undefined : new Array<Size>(count).fill(piece);
}

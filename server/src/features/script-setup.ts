// The training setup a script shows, for estimates: torch.autocast and its dtype, a model cast
// to bf16, the optimizer it builds, activation checkpointing called in a `forward`, and image
// sizes from transforms or example inputs. Each value carries where it was seen; anything not
// decidable is left to the settings (and said so), never guessed.
import type { SyntaxNode } from '../parse/syntax';
import type { OptimizerId, PrecisionId } from '../estimate';
import type { FileEvaluation } from '../modules';
import { callsInSourceOrder, fieldOf } from '../analysis/syntax-helpers';

/** One inferred value and where it came from ("`torch.autocast(...)` (line 12)"). */
export interface Inferred<T> {
  value: T;
  source: string;
}

/** What the script says about the setup; every field optional. */
export interface ScriptSetup {
  precision?: Inferred<PrecisionId>;
  optimizer?: Inferred<OptimizerId>;
  checkpointing?: Inferred<boolean>;
  /** Image input [C, H, W] from transforms or an example tensor. */
  imageShape?: Inferred<[number, number, number]>;
  /** Things seen but not decided (e.g. an autocast dtype chosen at run time). */
  notes: string[];
}

const cache = new WeakMap<FileEvaluation, ScriptSetup>();

function where(node: SyntaxNode): string {
  const text = node.text.replace(/\s+/g, ' ');
  return `\`${text.length > 60 ? `${text.slice(0, 57)}...` : text}\` (line ${node.start.line + 1})`;
}

function keyword(call: SyntaxNode, name: string): SyntaxNode | undefined {
  for (const arg of fieldOf(call, 'arguments')?.children ?? []) {
    if (arg.type === 'keyword_argument' && fieldOf(arg, 'name')?.text === name) return fieldOf(arg, 'value');
  }
  return undefined;
}

function positional(call: SyntaxNode): SyntaxNode[] {
  return (fieldOf(call, 'arguments')?.children ?? []).filter(
    (c) => c.type !== 'keyword_argument' && c.type !== 'comment',
  );
}

/** The dtype an expression names: bf16, fp16, or undefined when not decidable from the text. */
function dtypeOf(node: SyntaxNode | undefined, root: SyntaxNode, depth = 0): 'bf16' | 'fp16' | undefined {
  if (!node || depth > 3) return undefined;
  const text = node.text;
  const bf = /\bbfloat16\b/.test(text);
  const fp = /\b(float16|half)\b/.test(text);
  if (bf !== fp) return bf ? 'bf16' : 'fp16';
  if (node.type !== 'identifier') return undefined;
  // One assignment of the name in the file whose value names exactly one dtype.
  const values: SyntaxNode[] = [];
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'assignment' && fieldOf(n, 'left')?.text === text) {
      const right = fieldOf(n, 'right');
      if (right) values.push(right);
    }
    stack.push(...n.children);
  }
  const found = new Set(values.map((v) => dtypeOf(v, root, depth + 1)));
  return found.size === 1 ? [...found][0] : undefined;
}

function enclosingFunctionName(node: SyntaxNode): string | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'function_definition') return fieldOf(p, 'name')?.text;
  }
  return undefined;
}

const OPTIMIZERS: [RegExp, OptimizerId][] = [
  [/(^|\.)(AdamW|PagedAdamW)8bit$/, 'adam-8bit'],
  [/(^|\.)(Adam|PagedAdam)8bit$/, 'adam-8bit'],
  [/^torch\.optim\.AdamW$/, 'adamw'],
  [/^torch\.optim\.Adam$/, 'adam'],
  [/(^|\.)Adafactor$/, 'adafactor'],
];

/** Reads the setup from the file of `evaluation` (memoised per evaluation). */
export function scriptSetup(evaluation: FileEvaluation): ScriptSetup {
  const cached = cache.get(evaluation);
  if (cached) return cached;
  const setup: ScriptSetup = { notes: [] };
  const root = evaluation.scope.root;
  for (const call of callsInSourceOrder(root)) {
    const callee = fieldOf(call, 'function');
    if (!callee) continue;
    const name = evaluation.scope.imports.resolve(callee) ?? callee.text;
    const last = name.split('.').pop() ?? '';
    if (last === 'autocast' && /^torch\./.test(name) && !setup.precision) {
      // torch.autocast("cuda") defaults to float16 (torch.amp docs); torch.cuda.amp.autocast too.
      const dtypeNode = keyword(call, 'dtype');
      const dtype = dtypeNode ? dtypeOf(dtypeNode, root) : 'fp16';
      const enabled = keyword(call, 'enabled');
      if (enabled?.text === 'False') continue;
      if (dtype) setup.precision = { value: dtype === 'bf16' ? 'amp-bf16' : 'amp-fp16', source: where(call) };
      else {
        // bf16 and fp16 autocast keep the same bytes (16-bit matmuls, fp32 states); only the name differs.
        setup.precision = { value: 'amp-bf16', source: `${where(call)}, dtype decided at run time` };
        setup.notes.push(
          `autocast dtype \`${dtypeNode?.text}\` is decided at run time: bf16 and fp16 use the same memory`,
        );
      }
    } else if (/^(bfloat16)$/.test(last) || (last === 'to' && /\btorch\.bfloat16\b/.test(call.text))) {
      const object = callee.type === 'attribute' ? fieldOf(callee, 'object') : undefined;
      if (object && /model/i.test(object.text) && !setup.precision)
        setup.precision = { value: 'bf16-pure', source: where(call) };
    } else if (/^torch\.optim\.SGD$/.test(name) && !setup.optimizer) {
      const momentum = keyword(call, 'momentum');
      const zero = !momentum || /^0(\.0*)?$/.test(momentum.text);
      setup.optimizer = { value: zero ? 'sgd' : 'sgd-momentum', source: where(call) };
    } else if (!setup.optimizer) {
      const match = OPTIMIZERS.find(([pattern]) => pattern.test(name));
      if (match) setup.optimizer = { value: match[1], source: where(call) };
    }
    if (
      !setup.checkpointing &&
      (/^torch\.utils\.checkpoint\.(checkpoint|checkpoint_sequential)$/.test(name) ||
        last === 'gradient_checkpointing_enable') &&
      (last === 'gradient_checkpointing_enable' || enclosingFunctionName(call) === 'forward')
    ) {
      setup.checkpointing = { value: true, source: where(call) };
    }
    if (!setup.imageShape && /(^|\.)(RandomResizedCrop|CenterCrop)$/.test(name)) {
      const size = Number(positional(call)[0]?.text ?? keyword(call, 'size')?.text);
      if (Number.isInteger(size) && size > 0)
        setup.imageShape = { value: [3, size, size], source: where(call) };
    }
    if (!setup.imageShape && /^torch\.(randn|rand|zeros|ones|empty)$/.test(name)) {
      const dims = positional(call).map((a) => Number(a.text));
      if (dims.length === 4 && dims.every((d) => Number.isInteger(d) && d > 0) && dims[1] <= 4)
        setup.imageShape = { value: [dims[1], dims[2], dims[3]], source: where(call) };
    }
  }
  cache.set(evaluation, setup);
  return setup;
}

// Symbolic evaluation of the nn.Module classes of one file: builds each class with its
// default arguments (or the config class its `__init__` expects), counts parameters,
// buffers and what stays unknown, and records the transformer shape, the largest layer and
// the forward input template. Entry points: evaluateModules and evaluateFile.
import type { ImportTable } from '../analysis/imports';
import type { TransformerShape } from '../estimate';
import type { SyntaxNode } from '../parse/syntax';
import { buildFileScope, type ClassInfo, type FileScope } from './classes';
import { classKind, instantiateClass, parameterName } from './instantiate';
import { BudgetExceeded, Interpreter } from './interpreter';
import { countParams, type ModuleInstance, type UnknownPart } from './module-instance';
import { findScriptDims, type ScriptDims } from './script-facts';
import { forwardTemplate, transformerShape, type ForwardTemplate } from './shape';
import { renderValue, unknown, type Value } from './values';
import type { WorkspaceFiles } from './workspace-files';

export { WorkspaceFiles } from './workspace-files';
export type { ModuleInstance, UnknownPart } from './module-instance';
export type { ScriptDims } from './script-facts';

/** What the evaluator found for one nn.Module subclass. */
export interface ModuleTree {
  name: string;
  file: string | null;
  /** Zero-based position of the class name. */
  line: number;
  character: number;
  classNode: SyntaxNode;
  /** The instance built with default arguments; null when evaluation failed outright. */
  root: ModuleInstance | null;
  params: {
    /** Exact total, or null when some part is unknown (then `known` is a lower bound). */
    total: number | null;
    known: number;
    trainable: number;
    buffers: number;
  };
  /** Parts whose parameters could not be counted, with the reason. */
  unknowns: UnknownPart[];
  largestLayer: { path: string; params: number } | null;
  transformer: TransformerShape | null;
  forward: ForwardTemplate;
  /** A Python expression constructing the module in its file's namespace, or null when arguments are missing. */
  constructorExpression: string | null;
  /** How the evaluation was set up (config classes assumed, arguments left unknown). */
  assumptions: string[];
  /** The values passed to `__init__` (configs, used for heads and sequence length). */
  args: Value[];
}

/** Input of {@link evaluateModules}. */
export interface EvaluateInput {
  root: SyntaxNode;
  imports: ImportTable;
  filePath: string | null;
  workspace?: WorkspaceFiles;
  /** Batch and sequence defaults for forward templates (settings); the script's own values win. */
  defaults?: { batch: number; seq: number };
}

/** Everything one evaluation of a file produced. */
export interface FileEvaluation {
  trees: ModuleTree[];
  scope: FileScope;
  interpreter: Interpreter;
  /** The module each constructor call node built (first time), for hovers on layer calls. */
  builtAt: Map<SyntaxNode, ModuleInstance>;
  scriptDims: ScriptDims;
}

/** One ModuleTree per nn.Module subclass of the file, in source order. */
export function evaluateModules(input: EvaluateInput): ModuleTree[] {
  return evaluateFile(input).trees;
}

/** Evaluates every nn.Module subclass of a file and keeps the interpreter state for follow-up questions. */
export function evaluateFile(input: EvaluateInput): FileEvaluation {
  const scope = buildFileScope(input);
  input.workspace?.beginRequest(input.filePath);
  const interpreter = new Interpreter(input.workspace);
  const trees: ModuleTree[] = [];
  const classes = [...scope.classes.values()].sort((a, b) => a.node.startIndex - b.node.startIndex);
  for (const cls of classes) {
    let kind: string;
    try {
      kind = classKind(interpreter, cls);
    } catch {
      continue;
    }
    if (kind === 'module') trees.push(evaluateClass(interpreter, { cls, defaults: input.defaults }));
  }
  let scriptDims: ScriptDims = {};
  try {
    scriptDims = findScriptDims(interpreter, { scope, configs: trees.flatMap((t) => t.args) });
  } catch {
    // NOTE: a budget overrun while reading script dims leaves them to the settings.
  }
  return { trees, scope, interpreter, builtAt: interpreter.builtAt, scriptDims };
}

const CONFIG_PARAM = /^(config|cfg|conf|args|params|hparams|model_args|model_config|hp)$/i;

/** Arguments for a class's required `__init__` parameters: the annotated or conventional config class. */
function defaultArguments(
  interp: Interpreter,
  cls: ClassInfo,
): { args: Value[]; rendered: string[]; assumptions: string[] } {
  const init = interp.mro(cls).find((c) => c.methods.has('__init__'));
  const parameters =
    init?.methods.get('__init__')?.children.find((c) => c.field === 'parameters')?.children ?? [];
  const out = { args: [] as Value[], rendered: [] as string[], assumptions: [] as string[] };
  for (const parameter of parameters.slice(1)) {
    if (parameter.type !== 'identifier' && parameter.type !== 'typed_parameter') break;
    const name = parameterName(parameter) ?? '?';
    const annotation = parameter.children.find((c) => c.field === 'type')?.text.replace(/^["']|["']$/g, '');
    const configClass = pickConfigClass(interp, { scope: init!.scope, annotation, name });
    if (configClass) {
      const value = instantiateClass(interp, {
        cls: configClass,
        args: { positional: [], keywords: new Map() },
        node: configClass.node,
      });
      out.args.push(value);
      out.rendered.push(`${configClass.name}()`);
      out.assumptions.push(
        `\`${name}\` has no default: assumed \`${configClass.name}()\` with its field defaults`,
      );
    } else {
      out.args.push(unknown(name, `\`${name}\` has no default`));
      out.rendered.push('');
      out.assumptions.push(`\`${name}\` has no default and no config class was found: left unknown`);
    }
  }
  return out;
}

function pickConfigClass(
  interp: Interpreter,
  input: { scope: FileScope; annotation?: string; name: string },
): ClassInfo | undefined {
  const { scope, annotation, name } = input;
  if (annotation) {
    const value = resolveName(interp, scope, annotation);
    if (value?.kind === 'class' && classKind(interp, value.cls) !== 'module') return value.cls;
  }
  if (!CONFIG_PARAM.test(name)) return undefined;
  const records = [...scope.classes.values()].filter(
    (c) => /(Config|Args)$/.test(c.name) && classKind(interp, c) === 'record',
  );
  return records[0];
}

function resolveName(interp: Interpreter, scope: FileScope, dotted: string): Value | undefined {
  const [head, ...rest] = dotted.split('.');
  let value = interp.lookupGlobal(scope, head);
  for (const part of rest) if (value) value = interp.getAttribute(value, part, dotted);
  return value;
}

function evaluateClass(
  interp: Interpreter,
  input: { cls: ClassInfo; defaults?: { batch: number; seq: number } },
): ModuleTree {
  const { cls } = input;
  const name = cls.node.children.find((c) => c.field === 'name') ?? cls.node;
  const tree: ModuleTree = {
    name: cls.name,
    file: cls.scope.filePath,
    line: name.start.line,
    character: name.start.column,
    classNode: cls.node,
    root: null,
    params: { total: null, known: 0, trainable: 0, buffers: 0 },
    unknowns: [],
    largestLayer: null,
    transformer: null,
    forward: { inputs: [], dims: {}, notes: [] },
    constructorExpression: null,
    assumptions: [],
    args: [],
  };
  try {
    const { args, rendered, assumptions } = defaultArguments(interp, cls);
    tree.args = args;
    tree.assumptions.push(...assumptions);
    tree.constructorExpression = rendered.includes('') ? null : `${cls.name}(${rendered.join(', ')})`;
    const built = instantiateClass(interp, {
      cls,
      args: { positional: args, keywords: new Map() },
      node: cls.node,
    });
    if (built.kind !== 'module') throw new Error(renderValue(built));
    tree.root = built.module;
    const totals = countParams(built.module);
    tree.unknowns = totals.unknowns;
    tree.params = {
      total: totals.unknowns.length ? null : totals.known,
      known: totals.known,
      trainable: totals.trainable,
      buffers: totals.buffers,
    };
    tree.largestLayer = totals.largestLayer;
    tree.transformer = transformerShape({ root: built.module, args }) ?? null;
    const dims = input.defaults ?? { batch: 8, seq: 1024 };
    tree.forward = forwardTemplate({ root: built.module, dims });
  } catch (error) {
    const reason =
      error instanceof BudgetExceeded
        ? 'evaluation budget exceeded'
        : `evaluation failed: ${(error as Error).message}`;
    tree.unknowns.push({ text: cls.name, reason, line: tree.line });
  }
  return tree;
}

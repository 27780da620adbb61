// Symbolic evaluation of the nn.Module classes of one file: builds each class with its
// default arguments (or the config class its `__init__` expects), counts parameters,
// buffers and what stays unknown, and records the transformer shape, the largest layer and
// the forward input template. Entry points: evaluateModules and evaluateFile.
import type { ImportTable } from '../analysis/imports';
import type { TransformerShape } from '../estimate';
import type { SyntaxNode } from '../parse/syntax';
import { buildFileScope, type ClassInfo, type FileScope } from './classes';
import { classKind, instantiateClass, parameterName, runFunction } from './instantiate';
import { BudgetExceeded, Interpreter } from './interpreter';
import { countParams, describeCauses, type ModuleInstance, type UnknownPart } from './module-instance';
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
    /** Parameters of the parts that could be counted (equals `total` when exact). */
    known: number;
    /** True when `known` is a lower bound: some part is unknown (see `causes`). */
    lowerBound: boolean;
    trainable: number;
    buffers: number;
  };
  /** Parts whose parameters could not be counted, with the reason (each distinct part once). */
  unknowns: UnknownPart[];
  /** One line per distinct cause of anything unknown (parameters or buffers), for the user. */
  causes: string[];
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
  /** `--config key=value,...`: values for `__init__` parameters or fields of the config it takes. */
  overrides?: ConfigOverrides;
  /** The torch version `hasattr(torch..., name)` is decided for (default: the current release). */
  torchVersion?: string;
}

/** Values given on the command line for constructor parameters or config fields. */
export interface ConfigOverrides {
  values: Map<string, Value>;
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
  const interpreter = new Interpreter(input.workspace, input.torchVersion);
  const trees: ModuleTree[] = [];
  const classes = [...scope.classes.values()].sort((a, b) => a.node.startIndex - b.node.startIndex);
  for (const cls of classes) {
    let kind: string;
    try {
      kind = classKind(interpreter, cls);
    } catch {
      continue;
    }
    if (kind === 'module')
      trees.push(evaluateClass(interpreter, { cls, defaults: input.defaults, overrides: input.overrides }));
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

/** Arguments for a class's `__init__`: the annotated or conventional config class for required parameters, with `--config` overrides. */
function defaultArguments(
  interp: Interpreter,
  cls: ClassInfo,
  overrides?: ConfigOverrides,
): { args: Value[]; keywords: Map<string, Value>; rendered: string[]; assumptions: string[] } {
  const init = interp.mro(cls).find((c) => c.methods.has('__init__'));
  const parameters =
    init?.methods.get('__init__')?.children.find((c) => c.field === 'parameters')?.children ?? [];
  const out = {
    args: [] as Value[],
    keywords: new Map<string, Value>(),
    rendered: [] as string[],
    assumptions: [] as string[],
  };
  const used = new Set<string>();
  for (const parameter of parameters.slice(1)) {
    if (parameter.type.includes('splat') || /splat_pattern$/.test(parameter.children[0]?.type ?? ''))
      continue;
    if (parameter.type === 'keyword_separator' || parameter.type === 'positional_separator') continue;
    const name = parameterName(parameter) ?? '?';
    const override = overrides?.values.get(name);
    if (parameter.type !== 'identifier' && parameter.type !== 'typed_parameter') {
      if (override === undefined) continue;
      used.add(name);
      out.keywords.set(name, override);
      out.rendered.push(`${name}=${renderValue(override)}`);
      continue;
    }
    if (override !== undefined) {
      used.add(name);
      out.args.push(override);
      out.rendered.push(renderValue(override));
      continue;
    }
    const annotation = parameter.children.find((c) => c.field === 'type')?.text.replace(/^["']|["']$/g, '');
    const config = configArgument(interp, { cls, scope: init!.scope, annotation, name });
    if (config) {
      const applied = applyOverrides(interp, { config: config.value, overrides });
      applied.forEach((key) => used.add(key));
      out.args.push(config.value);
      const fields = applied.map((key) => `${key}=${renderValue(overrides!.values.get(key)!)}`);
      out.rendered.push(config.expression === null ? '' : `${config.expression}(${fields.join(', ')})`);
      out.assumptions.push(
        `\`${name}\` has no default: assumed \`${config.label}\`${fields.length ? ` with ${fields.join(', ')}` : ' with its field defaults'}`,
      );
    } else {
      out.args.push(unknown(name, `\`${name}\` has no default`));
      out.rendered.push('');
      out.assumptions.push(`\`${name}\` has no default and no config class was found: left unknown`);
    }
  }
  const unused = [...(overrides?.values.keys() ?? [])].filter((key) => !used.has(key));
  if (unused.length)
    out.assumptions.push(
      `--config ${unused.join(', ')}: no such parameter of \`${cls.name}\` or field of its config`,
    );
  return out;
}

/** The config object for a required parameter: its annotated or conventional config class, or the class's `get_default_config()`. */
function configArgument(
  interp: Interpreter,
  input: { cls: ClassInfo; scope: FileScope; annotation?: string; name: string },
): { value: Value; expression: string | null; label: string } | undefined {
  const configClass = pickConfigClass(interp, input);
  const noArgs = { positional: [], keywords: new Map<string, Value>() };
  if (configClass) {
    const value = instantiateClass(interp, { cls: configClass, args: noArgs, node: configClass.node });
    return { value, expression: configClass.name, label: `${configClass.name}()` };
  }
  if (!CONFIG_PARAM.test(input.name)) return undefined;
  // minGPT style: `C = GPT.get_default_config(); C.n_layer = ...; GPT(C)` (a CfgNode filled at run time).
  const factory = interp.classAttribute(input.cls, 'get_default_config');
  if (factory?.kind !== 'function') return undefined;
  const value = runFunction(interp, {
    fn: { ...factory, self: undefined },
    args: noArgs,
    node: factory.node,
  }).value;
  if (value.kind !== 'object' && value.kind !== 'dict') return undefined;
  return { value, expression: null, label: `${input.cls.name}.get_default_config()` };
}

/** Sets the `--config` values on a config object; returns the keys it took. */
function applyOverrides(
  interp: Interpreter,
  input: { config: Value; overrides?: ConfigOverrides },
): string[] {
  const { config, overrides } = input;
  if (!overrides) return [];
  const taken: string[] = [];
  for (const [key, value] of overrides.values) {
    if (config.kind === 'object') {
      // A dataclass takes only its declared fields; a plain config object (CfgNode) takes any.
      if (config.cls && !config.fields.has(key) && classKind(interp, config.cls) === 'record') continue;
      config.fields.set(key, value);
    } else if (config.kind === 'dict') config.entries.set(key, value);
    else continue;
    taken.push(key);
  }
  return taken;
}

function pickConfigClass(
  interp: Interpreter,
  input: { cls?: ClassInfo; scope: FileScope; annotation?: string; name: string },
): ClassInfo | undefined {
  const { scope, annotation, name } = input;
  if (annotation) {
    const value = resolveName(interp, scope, annotation);
    if (value?.kind === 'class' && classKind(interp, value.cls) !== 'module') return value.cls;
  }
  if (!CONFIG_PARAM.test(name)) return undefined;
  // transformers' PreTrainedModel convention: the model class names its config in `config_class`.
  const declared = input.cls ? interp.classAttribute(input.cls, 'config_class') : undefined;
  if (declared?.kind === 'class' && classKind(interp, declared.cls) !== 'module') return declared.cls;
  const named = [...scope.classes.values()].filter((c) => /(Config|Args)$/.test(c.name));
  // A dataclass first; else a transformers-style config class (a PretrainedConfig subclass).
  return (
    named.find((c) => classKind(interp, c) === 'record') ??
    named.find((c) => interp.libraryBases(c).some((b) => /PretrainedConfig$/.test(b)))
  );
}

function resolveName(interp: Interpreter, scope: FileScope, dotted: string): Value | undefined {
  const [head, ...rest] = dotted.split('.');
  let value = interp.lookupGlobal(scope, head);
  for (const part of rest) if (value) value = interp.getAttribute(value, part, dotted);
  return value;
}

/** An empty tree for a class or constructor expression, before evaluation. */
export function emptyTree(input: {
  name: string;
  file: string | null;
  at: SyntaxNode;
  classNode: SyntaxNode;
}): ModuleTree {
  return {
    name: input.name,
    file: input.file,
    line: input.at.start.line,
    character: input.at.start.column,
    classNode: input.classNode,
    root: null,
    params: { total: null, known: 0, lowerBound: true, trainable: 0, buffers: 0 },
    unknowns: [],
    causes: [],
    largestLayer: null,
    transformer: null,
    forward: { inputs: [], dims: {}, notes: [] },
    constructorExpression: null,
    assumptions: [],
    args: [],
  };
}

/** Fills a tree from the value a constructor produced (or records why it failed). */
export function finishTree(
  tree: ModuleTree,
  input: { build: () => Value; defaults?: { batch: number; seq: number } },
): ModuleTree {
  try {
    const built = input.build();
    if (built.kind !== 'module')
      throw new Error(built.kind === 'unknown' ? built.reason : `not a module: ${renderValue(built)}`);
    tree.root = built.module;
    const totals = countParams(built.module);
    tree.unknowns = totals.unknowns;
    tree.causes = describeCauses(totals);
    tree.params = {
      total: totals.unknowns.length ? null : totals.known,
      known: totals.known,
      lowerBound: totals.unknowns.length > 0,
      trainable: totals.trainable,
      buffers: totals.buffers,
    };
    tree.largestLayer = totals.largestLayer;
    tree.transformer = transformerShape({ root: built.module, args: tree.args }) ?? null;
    const dims = input.defaults ?? { batch: 8, seq: 1024 };
    tree.forward = forwardTemplate({ root: built.module, dims });
  } catch (error) {
    const reason =
      error instanceof BudgetExceeded
        ? 'evaluation budget exceeded'
        : `evaluation failed: ${(error as Error).message}`;
    tree.unknowns.push({ text: tree.name, reason, line: tree.line });
    tree.causes = describeCauses({ unknowns: tree.unknowns, bufferUnknowns: [] });
  }
  return tree;
}

function evaluateClass(
  interp: Interpreter,
  input: { cls: ClassInfo; defaults?: { batch: number; seq: number }; overrides?: ConfigOverrides },
): ModuleTree {
  const { cls } = input;
  const name = cls.node.children.find((c) => c.field === 'name') ?? cls.node;
  const tree = emptyTree({ name: cls.name, file: cls.scope.filePath, at: name, classNode: cls.node });
  return finishTree(tree, {
    defaults: input.defaults,
    build: () => {
      const { args, keywords, rendered, assumptions } = defaultArguments(interp, cls, input.overrides);
      tree.args = args;
      tree.assumptions.push(...assumptions);
      tree.constructorExpression = rendered.includes('') ? null : `${cls.name}(${rendered.join(', ')})`;
      return instantiateClass(interp, { cls, args: { positional: args, keywords }, node: cls.node });
    },
  });
}

// The model-selection options of `shardlens estimate`: `--config key=value,...` (values for
// the class's `__init__` parameters or the fields of the config it takes) and `--ctor
// "GPT(GPTConfig(n_layer=24))"` (a constructor expression evaluated in the file's namespace).
// Kept apart from cli-estimate.ts so that the estimate flags and the model flags evolve separately.
import type { FileModel } from './analysis/file-model';
import { evaluationFor } from './features/estimate-context';
import { evaluateFile, type FileEvaluation, type ModuleTree, type WorkspaceFiles } from './modules';
import { evaluateConstructor, expressionOf, parseConfigOverrides } from './modules/constructor';
import { parseSource } from './parse/parser';
import type { Parser } from 'web-tree-sitter';

/** The raw values of the model options. */
export interface ModelOptions {
  config?: string;
  ctor?: string;
}

/** Usage text of the model options, for `--help` and errors. */
export const MODEL_OPTIONS_USAGE = '[--config key=value,...] [--ctor "Class(Config(n_layer=24))"]';

/** Reads `--config`/`--ctor`; false when `flag` is not one of them. */
export function readModelOption(input: {
  options: ModelOptions;
  flag: string;
  value: () => string | undefined;
}): boolean {
  const { options, flag, value } = input;
  if (flag !== '--config' && flag !== '--ctor') return false;
  const given = value();
  if (!given) throw new Error(`${flag} needs a value`);
  if (flag === '--config') options.config = options.config ? `${options.config},${given}` : given;
  else options.ctor = given;
  return true;
}

/** The evaluation and the trees to report, honouring `--config` and `--ctor`; an error message for bad values. */
export function evaluateForOptions(input: {
  options: ModelOptions;
  model: Pick<FileModel, 'root' | 'imports' | 'filePath'>;
  workspace: WorkspaceFiles;
  parser: Parser;
}): { evaluation: FileEvaluation; trees: ModuleTree[]; fromCtor: boolean } | { error: string } {
  const { options, model, workspace, parser } = input;
  const overrides = options.config ? parseConfigOverrides(options.config) : undefined;
  if (overrides && 'error' in overrides) return { error: overrides.error };
  const evaluation = overrides
    ? evaluateFile({
        root: model.root,
        imports: model.imports,
        filePath: model.filePath,
        workspace,
        overrides,
      })
    : evaluationFor({ model, workspace });
  if (!options.ctor) return { evaluation, trees: evaluation.trees, fromCtor: false };
  const parsed = parseSource(parser, options.ctor);
  if (!expressionOf(parsed.root) || parsed.hasError)
    return { error: `--ctor needs one Python expression, got ${JSON.stringify(options.ctor)}` };
  const tree = evaluateConstructor({
    root: model.root,
    imports: model.imports,
    filePath: model.filePath,
    workspace,
    expression: parsed.root,
  });
  return { evaluation, trees: [tree], fromCtor: true };
}

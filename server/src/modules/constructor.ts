// Evaluating one constructor expression in a file's namespace (`shardlens estimate --ctor
// "GPT(GPTConfig(n_layer=24))"`, `resnet50(weights=None)`), and parsing `--config
// key=value,...` into the values the evaluator passes to `__init__` or its config.
import type { ImportTable } from '../analysis/imports';
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf } from '../analysis/syntax-helpers';
import { buildFileScope } from './classes';
import { emptyTree, finishTree, type ConfigOverrides, type ModuleTree } from './index';
import { Env, Interpreter } from './interpreter';
import { NONE, bool, num, str, type Value } from './values';
import type { WorkspaceFiles } from './workspace-files';

/** Input of {@link evaluateConstructor}. */
export interface ConstructorInput {
  /** The file whose names the expression uses. */
  root: SyntaxNode;
  imports: ImportTable;
  filePath: string | null;
  workspace?: WorkspaceFiles;
  /** The parsed expression: the root of a one-line module (`parseSource(parser, "GPT(cfg)")`). */
  expression: SyntaxNode;
  defaults?: { batch: number; seq: number };
  torchVersion?: string;
}

/** The first expression of a parsed one-line module, or undefined when it holds a statement. */
export function expressionOf(root: SyntaxNode): SyntaxNode | undefined {
  const statements = root.children.filter((c) => c.type !== 'comment');
  if (statements.length !== 1 || statements[0].type !== 'expression_statement') return undefined;
  const expression = statements[0].children[0];
  return expression && expression.type !== 'assignment' ? expression : undefined;
}

/** Builds the module an expression constructs, as a ModuleTree named after its callee. */
export function evaluateConstructor(input: ConstructorInput): ModuleTree {
  const scope = buildFileScope(input);
  input.workspace?.beginRequest(input.filePath);
  const interpreter = new Interpreter(input.workspace, input.torchVersion);
  const expression = expressionOf(input.expression) ?? input.expression;
  const callee = expression.type === 'call' ? fieldOf(expression, 'function') : undefined;
  const name = callee?.text ?? expression.text;
  const cls = callee ? scope.classes.get(callee.text) : undefined;
  const tree = emptyTree({
    name,
    file: input.filePath,
    at: cls?.node.children.find((c) => c.field === 'name') ?? expression,
    classNode: cls?.node ?? expression,
  });
  tree.constructorExpression = expression.text;
  tree.assumptions.push(`built as \`${expression.text}\``);
  return finishTree(tree, {
    defaults: input.defaults,
    build: () => interpreter.evalExpr(expression, new Env(scope)),
  });
}

/** Parses `n_layer=24,n_head=16,bias=false,model_type=gpt2` (numbers, booleans, None, strings). */
export function parseConfigOverrides(text: string): ConfigOverrides | { error: string } {
  const values = new Map<string, Value>();
  for (const item of text.split(',')) {
    if (!item.trim()) continue;
    const at = item.indexOf('=');
    const key = item.slice(0, at).trim();
    if (at < 1 || !/^[A-Za-z_]\w*$/.test(key))
      return { error: `--config expects key=value pairs separated by commas, got "${item.trim()}"` };
    values.set(key, literalValue(item.slice(at + 1).trim()));
  }
  if (!values.size) return { error: '--config needs at least one key=value' };
  return { values };
}

function literalValue(text: string): Value {
  if (/^[-+]?(\d[\d_]*)(\.\d*)?([eE][-+]?\d+)?$/.test(text)) return num(Number(text.replace(/_/g, '')));
  if (/^(true|false)$/i.test(text)) return bool(text.toLowerCase() === 'true');
  if (/^(none|null)$/i.test(text)) return NONE;
  const quoted = /^(['"])(.*)\1$/.exec(text);
  return str(quoted ? quoted[2] : text);
}

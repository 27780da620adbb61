// The batch size and sequence length a script uses, for activation estimates: module-level
// assignments, assignments in `main`/`train` functions and the `__main__` block, argparse
// defaults (`add_argument("--batch_size", default=12)`), then config fields.
import type { SyntaxNode } from '../parse/syntax';
import type { FileScope } from './classes';
import { Env, type Interpreter } from './interpreter';
import { asNumber, type Value } from './values';
import { fieldOf } from '../analysis/syntax-helpers';

const BATCH_NAMES = [
  'micro_batch_size',
  'batch_size',
  'per_device_train_batch_size',
  'train_batch_size',
  'micro_batch',
];
const SEQ_NAMES = [
  'seq_len',
  'seq_length',
  'sequence_length',
  'block_size',
  'max_seq_len',
  'max_seq_length',
  'max_length',
  'context_length',
  'ctx_len',
];

/** One dimension found in the script, and where. */
export interface ScriptDim {
  value: number;
  /** e.g. "`batch_size = 12` (line 11)". */
  source: string;
}

/** The dims found; either may be missing. */
export interface ScriptDims {
  batch?: ScriptDim;
  seq?: ScriptDim;
}

function isMainBlock(statement: SyntaxNode): boolean {
  return (
    statement.type === 'if_statement' &&
    /__name__\s*==\s*['"]__main__['"]/.test(fieldOf(statement, 'condition')?.text ?? '')
  );
}

/** Statements to read: the module body, `main`/`train` function bodies and the `__main__` block. */
function candidateStatements(scope: FileScope): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const stack = [scope.root];
  while (stack.length) {
    const node = stack.pop()!;
    for (const statement of node.children) {
      if (statement.type === 'expression_statement') out.push(statement);
      else if (isMainBlock(statement)) stack.push(fieldOf(statement, 'consequence')!);
      else if (
        statement.type === 'function_definition' &&
        /^(main|train\w*|run)$/.test(fieldOf(statement, 'name')?.text ?? '')
      ) {
        stack.push(fieldOf(statement, 'body')!);
      }
    }
  }
  return out.sort((a, b) => a.startIndex - b.startIndex);
}

/** Finds the batch size and sequence length assigned in the script, then in configs passed to the model. */
export function findScriptDims(
  interp: Interpreter,
  input: { scope: FileScope; configs: Value[] },
): ScriptDims {
  const dims: ScriptDims = {};
  const env = new Env(input.scope);
  const consider = (name: string, valueNode: SyntaxNode, text: string) => {
    const kind = BATCH_NAMES.includes(name) ? 'batch' : SEQ_NAMES.includes(name) ? 'seq' : undefined;
    if (!kind || dims[kind]) return;
    const value = asNumber(interp.evalExpr(valueNode, env));
    if (value !== undefined && value > 0)
      dims[kind] = { value, source: `\`${text.trim()}\` (line ${valueNode.start.line + 1})` };
  };
  for (const statement of candidateStatements(input.scope)) {
    const expression = statement.children[0];
    if (expression?.type === 'assignment') {
      const left = fieldOf(expression, 'left');
      const right = fieldOf(expression, 'right');
      const name =
        left?.type === 'identifier'
          ? left.text
          : left?.type === 'attribute'
            ? fieldOf(left, 'attribute')?.text
            : undefined;
      if (name && right) consider(name, right, expression.text.split('\n')[0]);
    } else if (
      expression?.type === 'call' &&
      /add_argument$/.test(fieldOf(expression, 'function')?.text ?? '')
    ) {
      const args = fieldOf(expression, 'arguments')?.children ?? [];
      const flag = args
        .find((a) => a.type === 'string')
        ?.text.replace(/^['"]-*|['"]$/g, '')
        .replace(/-/g, '_');
      const fallback = args.find(
        (a) => a.type === 'keyword_argument' && fieldOf(a, 'name')?.text === 'default',
      );
      const value = fallback && fieldOf(fallback, 'value');
      if (flag && value) consider(flag, value, `--${flag} default ${value.text}`);
    }
  }
  for (const config of input.configs) {
    if (config.kind !== 'object') continue;
    for (const [name, value] of config.fields) {
      const n = asNumber(value);
      if (n === undefined || n <= 0) continue;
      if (!dims.batch && BATCH_NAMES.includes(name))
        dims.batch = { value: n, source: `${config.className}.${name}` };
      if (!dims.seq && SEQ_NAMES.includes(name))
        dims.seq = { value: n, source: `${config.className}.${name}` };
    }
  }
  return dims;
}

// Debug aid for the corpus triage (`node out/corpus/explain-role.js FILE LINE`): prints the
// role and guard of the statement at LINE, the enclosing function's training effects, and
// which step functions or loops make it hot.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { initParser } from '../../server/src/parse/parser';
import { parseSource } from '../../server/src/parse/parser';
import { buildFileModel } from '../../server/src/analysis/file-model';
import { enclosingFunction, fieldOf, walk } from '../../server/src/analysis/syntax-helpers';
import type { SyntaxNode } from '../../server/src/parse/syntax';
import type { TrainingStepModel } from '../../server/src/analysis/training-step';

async function main(): Promise<void> {
  const [file, lineText] = process.argv.slice(2);
  const parser = await initParser({ wasmDir: resolve(__dirname, '..', '..', 'dist') });
  const model = buildFileModel({ parsed: parseSource(parser, readFileSync(file, 'utf8')), filePath: file });
  const line = Number(lineText) - 1;
  let found: SyntaxNode | undefined;
  walk(model.root, (node) => {
    if (node.start.line === line && node.type === 'expression_statement' && !found) found = node;
    if (node.start.line === line && !found && /statement|assignment/.test(node.type)) found = node;
  });
  if (!found) return void process.stdout.write('no statement\n');
  process.stdout.write(`role ${model.roleOf(found)} guard ${JSON.stringify(model.guardOf(found))}\n`);
  for (let fn = enclosingFunction(found); fn; fn = enclosingFunction(fn)) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const roles = model.roles as any;
    const effects = roles.steps.effectsOfFunction(fn);
    process.stdout.write(
      `in ${fieldOf(fn, 'name')?.text} (line ${fn.start.line + 1}) functionRole ${JSON.stringify(roles.functionRole.get(fn))} ` +
        `effects ${[...effects.effects]} containsStepLoop ${effects.containsStepLoop}\n`,
    );
    walk(fn, (node) => {
      if (node.type !== 'call') return;
      const e = roles.steps
        .calledFunctions(node)
        .map((f: SyntaxNode) => [...roles.steps.effectsOfFunction(f).effects].join('+'));
      if (e.some((x: string) => x))
        process.stdout.write(`  call line ${node.start.line + 1} ${node.text.slice(0, 50)} -> ${e}\n`);
    });
  }
  for (let loop = model.roles.enclosingLoop(found); loop; loop = model.roles.enclosingLoop(loop))
    process.stdout.write(
      `loop at ${loop.start.line + 1} hot=${model.roles.isHotLoop(loop)} ${JSON.stringify([...(model.roles as unknown as { steps: TrainingStepModel }).steps.effectsOfLoop(loop).effects])}\n`,
    );
}
void main();

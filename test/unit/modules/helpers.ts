// Shared by the module-evaluation tests: parse a fixture and evaluate its nn.Module classes,
// and ask PyTorch (Debian's python3-torch) for the true counts of the same code.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectImports } from '../../../server/src/analysis/imports';
import { evaluateModules, WorkspaceFiles, type ModuleTree } from '../../../server/src/modules';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { fixturesDir, torchPython, wasmDir } from '../../helpers/paths';

/** Folder of the model fixtures (also the workspace root for absolute imports). */
export const modelsDir = join(fixturesDir, 'models');

/** Evaluates a fixture file (relative to test/fixtures/models) with a workspace over the models folder. */
export async function evaluateFixture(
  relative: string,
): Promise<{ trees: ModuleTree[]; workspace: WorkspaceFiles }> {
  const parser = await initParser({ wasmDir });
  const filePath = join(modelsDir, relative);
  const parsed = parseSource(parser, readFileSync(filePath, 'utf8'));
  const { root } = parsed;
  const workspace = new WorkspaceFiles({ roots: [modelsDir], parser });
  return {
    trees: evaluateModules({ root, imports: collectImports(parsed), filePath, workspace }),
    workspace,
  };
}

/** The tree of class `name`, failing clearly when it is missing. */
export function treeNamed(trees: ModuleTree[], name: string): ModuleTree {
  const tree = trees.find((t) => t.name === name);
  if (!tree) throw new Error(`class ${name} not evaluated; found ${trees.map((t) => t.name).join(', ')}`);
  return tree;
}

/** True counts from PyTorch. */
export interface TorchCounts {
  params: number;
  trainable: number;
  buffers: number;
}

/** Counts from PyTorch itself for each `[module, expression]` (one Python process for all). */
export function torchTruth(cases: [string, string][]): TorchCounts[] {
  const result = spawnSync(
    torchPython,
    [join(modelsDir, 'torch_truth.py'), modelsDir, JSON.stringify(cases)],
    {
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  if (result.status !== 0) {
    const detail = (result.stderr || result.error?.message || '').trim().split('\n').slice(-3).join('\n');
    throw new Error(
      `${torchPython} could not instantiate the fixtures with PyTorch (install python3-torch): ${detail}`,
    );
  }
  return JSON.parse(result.stdout) as TorchCounts[];
}

// The kind inference's replay of unchanged functions (function-trace.ts) must give exactly
// the kinds of a full re-walk: compared node by node on every fixture, example and
// generated training file, and on a file whose second round has to re-walk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { buildFileModel } from '../../../server/src/analysis/file-model';
import { inferValueKinds } from '../../../server/src/analysis/value-facts';
import { fieldOf } from '../../../server/src/analysis/syntax-helpers';
import { generateTrainingFile } from '../../perf/generate';
import { repoRoot, wasmDir } from '../../helpers/paths';

function pythonFiles(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) pythonFiles(path, found);
    else if (name.endsWith('.py')) found.push(path);
  }
  return found;
}

async function kindsBothWays(text: string) {
  const parser = await initParser({ wasmDir });
  const parsed = parseSource(parser, text);
  const { imports, nodes, root } = buildFileModel({ parsed, filePath: null });
  const input = { root, nodeCount: parsed.nodeCount, imports, nodes };
  return {
    parsed,
    replayed: inferValueKinds({ ...input, replay: true }).kinds,
    rewalked: inferValueKinds({ ...input, replay: false }).kinds,
  };
}

const ROUND_TWO_MATTERS = `import torch

def use(m):
    y = helper(m)
    return y.item()

def helper(m):
    return torch.randn(2, 4) * m

class Net(torch.nn.Module):
    def forward(self, x):
        return self.proj(x) * self.scale

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.scale = torch.ones(1)
`;

test('replay gives the kinds of a full re-walk, including what only round two learns', async () => {
  const { parsed, replayed, rewalked } = await kindsBothWays(ROUND_TWO_MATTERS);
  assert.deepEqual(replayed, rewalked);
  // `y = helper(m)`: helper is analysed after use, so only the second round knows it returns a tensor.
  const y = fieldOf(
    parsed.byType.get('assignment')!.find((n) => n.text.startsWith('y = '))!,
    'left',
  )!;
  assert.equal(replayed[y.id], 'tensor');
});

test('replay gives the kinds of a full re-walk on every fixture, example and generated file', async () => {
  const texts = [
    ...pythonFiles(join(repoRoot, 'test', 'fixtures')),
    ...pythonFiles(join(repoRoot, 'examples')),
  ].map((path) => [path, readFileSync(path, 'utf8')] as const);
  for (let seed = 1; seed <= 4; seed++)
    texts.push([`generated seed ${seed}`, generateTrainingFile({ lines: 400 * seed, seed })]);
  assert.ok(texts.length > 40, `only ${texts.length} files`);
  for (const [name, text] of texts) {
    const { replayed, rewalked } = await kindsBothWays(text);
    assert.deepEqual(replayed, rewalked, name);
  }
});

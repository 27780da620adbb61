// The CLI's shortcut: a text with no import statement that can name a PyTorch framework is
// not parsed. It must give exactly the findings of a full analysis, on every Python file of
// the project and on imports written in the less common ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initParser } from '../../../server/src/parse/parser';
import { analyzeText } from '../../../server/src/analyzer';
import { mayImportTorch } from '../../../server/src/analysis/file-model';
import { mergeSettings } from '../../../server/src/config/settings';
import { pythonFiles } from '../../helpers/python-files';
import { repoRoot, wasmDir } from '../../helpers/paths';

const LOOP_HEAD = 'import sys\n';
const LOOP =
  'def train(model, optimizer, loader):\n    for x, y in loader:\n        loss = torch.nn.functional.mse_loss(model(x), y)\n        loss.backward()\n        optimizer.step()\n        print(loss.item())\n';

/** Imports after `;` or `:`, continued with a backslash, or inside a function: each file has findings. */
const IMPORT_FORMS = [
  `${LOOP_HEAD}try: import torch\nexcept ImportError: pass\n${LOOP}`,
  `import os; import torch\n${LOOP}`,
  `import os, \\\n    torch\n${LOOP}`,
  'def train(model, optimizer, loader):\n    from torch.nn import functional as F\n    for x, y in loader:\n        loss = F.mse_loss(model(x), y)\n        loss.backward()\n        optimizer.step()\n        print(loss.item())\n',
];

test('findingsOnly skips only texts that cannot have findings', async () => {
  const parser = await initParser({ wasmDir });
  const settings = mergeSettings({});
  const files = ['test/fixtures', 'examples', 'bench'].flatMap((dir) => pythonFiles(join(repoRoot, dir)));
  // A file that imports torch under another name still names it in its import.
  const texts = [
    ...files.map((file) => readFileSync(file, 'utf8')),
    'import torch as t\nfor x in range(3):\n    t.zeros(3).item()\n',
    'import numpy as np\nx = np.zeros(3)\nprint(x.item())\n',
    ...IMPORT_FORMS,
    // Names a framework, imports none: nothing to find.
    `# works with torch tensors too\nimport numpy as np\nprint(np.zeros(3).sum().item())\n`,
  ];
  let skipped = 0;
  for (const text of texts) {
    const full = analyzeText({ parser, text, filePath: null, settings });
    const short = analyzeText({ parser, text, filePath: null, settings, findingsOnly: true });
    assert.deepEqual(short.findings, full.findings);
    if (!mayImportTorch(text)) {
      skipped++;
      assert.equal(short.model, undefined);
      assert.equal(full.model?.usesTorch, false);
    }
  }
  assert.ok(skipped >= 3, `only ${skipped} of ${texts.length} texts import no framework`);
  for (const text of IMPORT_FORMS) {
    assert.ok(mayImportTorch(text), text);
    assert.ok(analyzeText({ parser, text, filePath: null, settings }).findings.length > 0, text);
  }
  assert.ok(skipped < texts.length / 2);
});

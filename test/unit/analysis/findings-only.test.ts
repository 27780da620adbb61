// The CLI's shortcut: a text that names no PyTorch framework is not parsed. It must give
// exactly the findings of a full analysis, on every Python file of the project.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initParser } from '../../../server/src/parse/parser';
import { analyzeText } from '../../../server/src/analyzer';
import { mayUseTorch } from '../../../server/src/analysis/file-model';
import { mergeSettings } from '../../../server/src/config/settings';
import { pythonFiles } from '../../helpers/python-files';
import { repoRoot, wasmDir } from '../../helpers/paths';

test('findingsOnly skips only texts that cannot have findings', async () => {
  const parser = await initParser({ wasmDir });
  const settings = mergeSettings({});
  const files = ['test/fixtures', 'examples', 'bench'].flatMap((dir) => pythonFiles(join(repoRoot, dir)));
  // A file that imports torch under another name still names it in its import.
  const texts = [
    ...files.map((file) => readFileSync(file, 'utf8')),
    'import torch as t\nfor x in range(3):\n    t.zeros(3).item()\n',
    'import numpy as np\nx = np.zeros(3)\nprint(x.item())\n',
  ];
  let skipped = 0;
  for (const text of texts) {
    const full = analyzeText({ parser, text, filePath: null, settings });
    const short = analyzeText({ parser, text, filePath: null, settings, findingsOnly: true });
    assert.deepEqual(short.findings, full.findings);
    if (!mayUseTorch(text)) {
      skipped++;
      assert.equal(short.model, undefined);
      assert.equal(full.model?.usesTorch, false);
    }
  }
  assert.ok(skipped >= 2, `only ${skipped} of ${texts.length} texts name no framework`);
  assert.ok(skipped < texts.length / 2);
});

// Every diagnostic message is one short sentence under MAX_MESSAGE_CHARS characters (the
// Problems panel cuts longer ones); the explanation lives in the finding's `detail`. Checked
// over every finding of every fixture, for every registered rule, and again with the
// fixtures' common names stretched to 60 characters (long names must not break the limit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { analyzeSource } from '../../helpers/analyze';
import { fixturesDir, repoRoot } from '../../helpers/paths';
import { pythonFiles } from '../../helpers/python-files';
import { rules } from '../../../server/src/rules';
import { MAX_MESSAGE_CHARS } from '../../../server/src/rules/messages/common';
import type { Finding } from '../../../server/src/rules/types';

const files = [
  ...pythonFiles(join(fixturesDir, 'rules')),
  ...pythonFiles(join(fixturesDir, 'models')),
  ...pythonFiles(join(repoRoot, 'examples')),
];

/** Local names the fixtures use often, stretched so interpolated code spans get long. */
const STRETCHED =
  /\b(loss|total|total_loss|history|losses|logits|probs|out|output|batch|x|y|mask|scaler|train_sampler|sampler|loader|train_loader|blocks|layers|epoch|step)\b/g;
const stretch = (text: string) => text.replace(STRETCHED, (name) => `${name}_${'q'.repeat(60)}`);

async function findingsOf(transform: (text: string) => string): Promise<Map<string, Finding[]>> {
  const byFile = new Map<string, Finding[]>();
  for (const file of files) {
    const analysis = await analyzeSource(transform(readFileSync(file, 'utf8')), {}, file);
    byFile.set(relative(repoRoot, file), analysis.findings);
  }
  return byFile;
}

function tooLong(byFile: Map<string, Finding[]>): string[] {
  const problems: string[] = [];
  for (const [file, findings] of byFile)
    for (const finding of findings) {
      if (finding.message.length >= MAX_MESSAGE_CHARS)
        problems.push(
          `${file}:${finding.range.start.line + 1} ${finding.code} (${finding.message.length}): ${finding.message}`,
        );
      if (/\.\s+\S/.test(finding.message.replace(/`[^`]*`/g, 'code')))
        problems.push(
          `${file}:${finding.range.start.line + 1} ${finding.code} is more than one sentence: ${finding.message}`,
        );
    }
  return problems;
}

test('every rule has a finding in the fixtures, and every message is one sentence under the limit', async () => {
  const byFile = await findingsOf((text) => text);
  const seen = new Set([...byFile.values()].flat().map((f) => f.code));
  const enabledByDefault = rules.filter((rule) => !rule.optIn).map((rule) => rule.code);
  assert.deepEqual(
    enabledByDefault.filter((code) => !seen.has(code)),
    [],
    'rules with no fixture finding: their message length would go unchecked',
  );
  assert.deepEqual(tooLong(byFile), []);
});

test('messages stay under the limit when the code they quote has long names', async () => {
  const byFile = await findingsOf(stretch);
  assert.ok([...byFile.values()].flat().length > 20, 'the stretched fixtures still produce findings');
  assert.deepEqual(tooLong(byFile), []);
});

test('every finding with a long explanation keeps it in `detail` for the hover', async () => {
  const byFile = await findingsOf((text) => text);
  const codesWithDetail = new Set(
    [...byFile.values()]
      .flat()
      .filter((f) => (f.detail ?? '').length > f.message.length)
      .map((f) => f.code),
  );
  const missing = rules.filter((rule) => !rule.optIn && !codesWithDetail.has(rule.code)).map((r) => r.code);
  assert.deepEqual(missing, []);
});

// Shared machinery of the two `.view()` truth tables (test/view-truth/): loading a committed
// table, regenerating it with real PyTorch to prove it is not stale, and SL201's findings on
// a piece of source. Used by layout-view-truth.test.ts and layout-function-truth.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { analyzeSource } from './analyze';
import { repoRoot, torchPython } from './paths';
import type { Finding } from '../../server/src/rules/types';

/** The folder holding the tables, their generators and the function cases. */
export const truthDir = join(repoRoot, 'test', 'view-truth');

/** Whether the PyTorch Python can regenerate the tables here. */
export const hasTorch = spawnSync(torchPython, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;

/** A committed table (`view-cases.json`, `function-cases.json`). */
export function loadTable<T>(file: string): T {
  return JSON.parse(readFileSync(join(truthDir, file), 'utf8')) as T;
}

/** Runs a generator with `--stdout` and returns the table it prints. */
export function regenerate<T>(script: string): T {
  const run = spawnSync(torchPython, [join(truthDir, script), '--stdout'], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as T;
}

/** SL201's findings on `source` (the rules must not throw). */
export async function sl201Findings(source: string): Promise<Finding[]> {
  const analysis = await analyzeSource(source, { select: ['SL201'] });
  assert.equal(analysis.failures.length, 0, JSON.stringify(analysis.failures));
  return analysis.findings.filter((f) => f.code === 'SL201');
}

// The SL1xx op list agrees with torch.cuda.set_sync_debug_mode("warn"): each snippet of
// test/sync-ops/sync-ops.json, placed in a minimal hot training step, must be flagged with
// exactly its expected code when it syncs (or is one of the blocking calls the debug mode
// misses), and draw no SL1xx finding when it does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSource } from '../../helpers/analyze';
import { repoRoot } from '../../helpers/paths';

interface Row {
  snippet: string;
  syncs: boolean;
  code: string | null;
}

const table = JSON.parse(readFileSync(join(repoRoot, 'test', 'sync-ops', 'sync-ops.json'), 'utf8')) as {
  rows: Row[];
};
/** Blocking calls the debug mode does not report but SL107 flags (FACTS.md). */
const UNREPORTED_BLOCKING = new Set(['torch.cuda.synchronize()', 'torch.cuda.Event().synchronize()']);

function hotStep(snippet: string): string {
  return [
    'import torch',
    '',
    'def train(model: torch.nn.Module, optimizer, params):',
    '    for step in range(100):',
    '        x = torch.randn(16, device="cuda")',
    '        counts = torch.ones(16, dtype=torch.long, device="cuda")',
    '        idx = torch.arange(4, device="cuda")',
    `        ${snippet}`,
    '        loss = model(x).sum()',
    '        loss.backward()',
    '        optimizer.step()',
    '',
  ].join('\n');
}

test('the table covers both syncing and non-syncing rows', () => {
  assert.ok(table.rows.filter((r) => r.syncs).length >= 10);
  assert.ok(table.rows.filter((r) => !r.syncs && !r.code).length >= 8);
});

for (const row of table.rows) {
  test(`sync op: ${row.snippet}`, async () => {
    const flagged = row.syncs || UNREPORTED_BLOCKING.has(row.snippet);
    assert.equal(flagged, row.code !== null, 'the table marks a code exactly for syncing rows');
    const result = await analyzeSource(hotStep(row.snippet));
    const codes = result.findings
      .filter((f) => f.range.start.line === 7 && f.code.startsWith('SL1'))
      .map((f) => `${f.code} ${f.severity}`);
    assert.deepEqual(codes, row.code ? [`${row.code} warning`] : []);
  });
}

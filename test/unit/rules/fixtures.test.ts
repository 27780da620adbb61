// Runs the analyzer over every fixture under test/fixtures/rules/ and examples/demo/:
// each `# expect:` line must be flagged with its codes at the stated severity (every marker
// states one), each `# ok:` line must not, and no
// other finding may appear (precision is checked as strictly as recall). examples/clean/
// must produce no warning- or error-level finding at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { analyzeSource } from '../../helpers/analyze';
import { readExpectations } from '../../helpers/expectations';
import { fixturesDir, repoRoot } from '../../helpers/paths';
import { pythonFiles } from '../../helpers/python-files';

const marked = [
  ...pythonFiles(join(fixturesDir, 'rules')),
  ...pythonFiles(join(repoRoot, 'examples', 'demo')),
];

for (const file of marked) {
  test(`fixture ${relative(repoRoot, file)}`, async () => {
    const text = readFileSync(file, 'utf8');
    const { expected, forbidden, malformed } = readExpectations(text);
    const analysis = await analyzeSource(text, {}, file);
    assert.equal(analysis.failures.length, 0, `rules threw: ${JSON.stringify(analysis.failures)}`);
    const problems: string[] = [...malformed];
    const found = new Map<number, Set<string>>();
    for (const finding of analysis.findings) {
      for (let line = finding.range.start.line; line <= finding.range.end.line; line++) {
        const set = found.get(line) ?? new Set<string>();
        set.add(finding.code);
        found.set(line, set);
      }
      const line = finding.range.start.line;
      const codes = expected.get(line);
      if (!codes?.has(finding.code)) {
        problems.push(
          `line ${line + 1}: unexpected ${finding.code} (${finding.severity}): ${finding.message.slice(0, 90)}`,
        );
      } else if (codes.get(finding.code) && codes.get(finding.code) !== finding.severity) {
        problems.push(
          `line ${line + 1}: ${finding.code} is ${finding.severity}, expected ${codes.get(finding.code)}`,
        );
      }
    }
    for (const [line, codes] of expected) {
      for (const code of codes.keys())
        if (!found.get(line)?.has(code)) problems.push(`line ${line + 1}: missing ${code}`);
    }
    for (const [line, codes] of forbidden) {
      for (const code of codes)
        if (found.get(line)?.has(code)) problems.push(`line ${line + 1}: ${code} must stay silent`);
    }
    assert.deepEqual(problems, []);
  });
}

for (const file of pythonFiles(join(repoRoot, 'examples', 'clean'))) {
  test(`clean example ${relative(repoRoot, file)} has no warnings`, async () => {
    const analysis = await analyzeSource(readFileSync(file, 'utf8'), {}, file);
    const loud = analysis.findings.filter((f) => f.severity === 'warning' || f.severity === 'error');
    assert.deepEqual(
      loud.map((f) => `${f.range.start.line + 1}: ${f.code} ${f.message.slice(0, 80)}`),
      [],
    );
  });
}

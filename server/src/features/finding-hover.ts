// The finding hover: the Problems panel shows one short sentence per finding; hovering the
// flagged code adds the explanation (the finding's `detail`), the quick fixes on offer and
// a link to the rule's page, as Ruff's hover does.
import type { Finding } from '../rules/types';
import { ruleByCode } from '../rules';

/** Markdown for the findings whose range covers `position`, or undefined when none does. */
export function findingHoverMarkdown(input: {
  findings: readonly Finding[];
  position: { line: number; character: number };
  docsHref: (code: string) => string;
}): string | undefined {
  const { line, character } = input.position;
  const covering = input.findings.filter((f) => {
    const { start, end } = f.range;
    const afterStart = line > start.line || (line === start.line && character >= start.column);
    const beforeEnd = line < end.line || (line === end.line && character <= end.column);
    return afterStart && beforeEnd;
  });
  if (covering.length === 0) return undefined;
  const seen = new Set<string>();
  const sections: string[] = [];
  for (const finding of covering) {
    const key = `${finding.code}\n${finding.detail ?? finding.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const name = ruleByCode(finding.code)?.name;
    const lines = [`**${finding.code}**${name ? ` \`${name}\`` : ''}: ${finding.detail ?? finding.message}`];
    if (finding.fixes.length) lines.push(`Quick fix: ${finding.fixes.map((fix) => fix.title).join('; ')}.`);
    lines.push(`[${finding.code} documentation](${input.docsHref(finding.code)})`);
    sections.push(lines.join('\n\n'));
  }
  return sections.join('\n\n---\n\n');
}

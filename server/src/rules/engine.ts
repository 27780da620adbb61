// Runs the enabled rules over a FileModel: selection by code prefix, severity by role and
// settings, suppression comments, and isolation (a rule that throws loses its findings,
// never the others', and never the server).
import type { Settings } from '../config/settings';
import type { FileModel } from '../analysis/file-model';
import type { Role } from '../analysis/loop-roles';
import { enclosingStatement, fieldOf } from '../analysis/syntax-helpers';
import type { SyntaxNode } from '../parse/syntax';
import type { Finding, Rule, RuleContext, Severity, WorkspaceContext } from './types';
import { rules as allRules } from './index';
import { weakTensorNote } from './messages/common';

const ROLE_SEVERITY: Record<Role, Severity | undefined> = {
  hot: 'warning',
  logging: 'information',
  eval: 'hint',
  setup: undefined,
};
const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, information: 1, hint: 0 };

/** Whether a rule is on under the `select` / `ignore` prefix lists (ignore wins on a tie of specificity). */
export function isRuleEnabled(
  rule: Rule,
  settings: Pick<Settings, 'select' | 'ignore' | 'severity'>,
): boolean {
  if (settings.severity[rule.code] === 'off') return false;
  // NOTE: runs for every rule of every file analysed; a plain loop, no arrays built.
  const matchLength = (prefixes: string[]) => {
    let longest = -1;
    for (const prefix of prefixes)
      if (prefix.length > longest && rule.code.startsWith(prefix.toUpperCase())) longest = prefix.length;
    return longest;
  };
  const selected = settings.select.length === 0 ? (rule.optIn ? -1 : 0) : matchLength(settings.select);
  const ignored = matchLength(settings.ignore);
  return selected >= 0 && selected > ignored;
}

/** Result of analysing one file. */
export interface AnalysisResult {
  findings: Finding[];
  /** Rules that threw, with their error, for the log. */
  failures: { code: string; error: string }[];
}

/** Runs every enabled rule on a model. */
export function runRules(
  model: FileModel,
  settings: Settings,
  rules: readonly Rule[] = allRules,
  workspace?: WorkspaceContext,
): AnalysisResult {
  const findings: Finding[] = [];
  const failures: AnalysisResult['failures'] = [];
  if (!settings.enable || !model.usesTorch) return { findings, failures };
  for (const rule of rules) {
    if (!isRuleEnabled(rule, settings) || model.suppressions.isSuppressedInFile(rule.code)) continue;
    const context = makeContext(rule, model, settings, findings, workspace);
    try {
      rule.check(context);
    } catch (error) {
      failures.push({ code: rule.code, error: (error as Error).stack ?? String(error) });
    }
  }
  findings.sort(
    (a, b) => a.range.start.line - b.range.start.line || a.range.start.column - b.range.start.column,
  );
  return { findings, failures };
}

function makeContext(
  rule: Rule,
  model: FileModel,
  settings: Settings,
  sink: Finding[],
  workspace?: WorkspaceContext,
): RuleContext {
  const override = settings.severity[rule.code];
  return {
    model,
    settings,
    ...(workspace ? { workspace } : {}),
    report({ node, message, detail, range, role, severity, fixes, tensors }) {
      let resolved: Severity | undefined;
      let effectiveRole: Role | undefined;
      if (rule.severity === 'by-role') {
        effectiveRole = role ?? model.roleOf(node);
        resolved = ROLE_SEVERITY[effectiveRole];
        if (resolved && effectiveRole === 'hot' && override && override !== 'off') resolved = override;
      } else {
        resolved = severity ?? (override && override !== 'off' ? override : rule.severity);
      }
      if (!resolved) return;
      // NOTE: the statement's lines (five positions) are worked out only where a comment may suppress.
      if (!model.suppressions.isEmpty) {
        const [firstLine, lastLine] = statementLines(node);
        if (model.suppressions.isSuppressed(rule.code, firstLine, lastLine)) return;
      }
      // Weak evidence informs, never warns: a tensor that only a loader's name suggests.
      const weak = tensors?.find((tensor) => model.weakTensorSource(tensor));
      if (weak) {
        if (SEVERITY_RANK[resolved] > SEVERITY_RANK.information) resolved = 'information';
        const note = weakTensorNote(weak, model.weakTensorSource(weak)!);
        detail = detail ? `${detail} ${note}` : note;
      }
      sink.push({
        code: rule.code,
        message,
        ...(detail ? { detail } : {}),
        range: range ?? { start: node.start, end: node.end },
        severity: resolved,
        fixes: fixes ?? [],
        ...(effectiveRole ? { role: effectiveRole } : {}),
      });
    },
  };
}

/** The lines a suppression comment may sit on: the statement's header (not a compound body). */
function statementLines(node: SyntaxNode): [number, number] {
  const statement = enclosingStatement(node);
  const body = fieldOf(statement, 'body') ?? fieldOf(statement, 'consequence');
  const first = Math.min(statement.start.line, node.start.line);
  const last = body ? Math.max(node.end.line, body.start.line - 1, statement.start.line) : statement.end.line;
  return [first, Math.max(first, last)];
}

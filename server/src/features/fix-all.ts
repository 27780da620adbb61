// `source.fixAll.shardlens`: one code action applying, in one edit, the first fix of every
// finding whose rule's fixes keep the program's results (Ruff applies only "safe" fixes on
// save the same way) and whose PyTorch requirement the workspace is known to meet.
// Fixes that would overlap an earlier one are left for the next run.
import { CodeActionKind, type CodeAction, type TextEdit } from 'vscode-languageserver';
import { torchAtLeast } from '../config/torch-version';
import type { Finding, Fix } from '../rules/types';

/** The code-action kind, for `editor.codeActionsOnSave: { "source.fixAll.shardlens": "explicit" }`. */
export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.shardlens`;

/**
 * Rules whose fixes change no result, so applying them unasked is safe: SL109 and SL501
 * (pinning and non-blocking copies: same values, earlier), SL201 (`.reshape` returns what
 * `.view` would, or runs where `.view` raises), SL302 (the variant PyTorch recommends and
 * will make the default), SL303 (no KV cache in training), SL504 (the same class under its
 * device-generic name). Detaching (SL304/305), checkpointing (SL301), `set_epoch` (SL403)
 * and `torch.full` (SL108) change behaviour someone may rely on: quick fix only.
 */
export const FIX_ALL_RULES: ReadonlySet<string> = new Set([
  'SL109',
  'SL201',
  'SL302',
  'SL303',
  'SL501',
  'SL504',
]);

/** Whether a fix may be applied without asking, for a workspace with `torchVersion`. */
export function isSafeToApply(fix: Fix, torchVersion: string): boolean {
  return !fix.minTorch || torchAtLeast(torchVersion, fix.minTorch) === true;
}

type Point = { line: number; column: number };
const before = (a: Point, b: Point) => a.line < b.line || (a.line === b.line && a.column < b.column);

/** The fix-all action for a file's findings, or undefined when nothing is auto-fixable. */
export function fixAllAction(input: {
  uri: string;
  findings: readonly Finding[];
  torchVersion: string;
}): CodeAction | undefined {
  const taken: Fix['edits'] = [];
  const overlaps = (edit: Fix['edits'][number]) =>
    taken.some((t) => before(edit.range.start, t.range.end) && before(t.range.start, edit.range.end)) ||
    taken.some(
      (t) => t.range.start.line === edit.range.start.line && t.range.start.column === edit.range.start.column,
    );
  let applied = 0;
  for (const finding of input.findings) {
    if (!FIX_ALL_RULES.has(finding.code)) continue;
    const fix = finding.fixes.find((f) => isSafeToApply(f, input.torchVersion));
    if (!fix || fix.edits.some(overlaps)) continue;
    taken.push(...fix.edits);
    applied++;
  }
  if (applied === 0) return undefined;
  const edits: TextEdit[] = taken.map((edit) => ({
    range: {
      start: { line: edit.range.start.line, character: edit.range.start.column },
      end: { line: edit.range.end.line, character: edit.range.end.column },
    },
    newText: edit.newText,
  }));
  return {
    title: `Shardlens: fix all auto-fixable problems (${applied})`,
    kind: FIX_ALL_KIND,
    edit: { changes: { [input.uri]: edits } },
  };
}

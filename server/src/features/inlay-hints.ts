// Inlay hints after each nn.Module class header: parameters, peak memory per GPU for the
// active strategy and cluster, and the gradient communication per step (with its time only
// when a link bandwidth is known). The label is short (whole parts, at most
// INLAY_LABEL_MAX_CHARS); the tooltip has the full text and the assumptions.
// Switched by `settings.inlayHints`.
import { InlayHintKind, MarkupKind, type InlayHint, type Range } from 'vscode-languageserver';
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';
import { formatBytes, formatParams, formatSeconds } from '../estimate';
import type { ModuleTree, WorkspaceFiles } from '../modules';
import {
  STRATEGY_LABELS,
  assumptionsLine,
  estimatesFor,
  evaluationFor,
  modelInputOf,
  setupFor,
  type EstimateSetup,
} from './estimate-context';

/** Inlay hints within `range`. */
export function provideInlayHints(input: {
  model: FileModel;
  range: Range;
  settings: Settings;
  workspace?: WorkspaceFiles;
}): InlayHint[] {
  const { model, range, settings } = input;
  if (!settings.inlayHints) return [];
  try {
    const evaluation = evaluationFor({ model, workspace: input.workspace });
    const hints: InlayHint[] = [];
    for (const tree of evaluation.trees) {
      if (tree.line < range.start.line || tree.line > range.end.line) continue;
      const setup = setupFor({ settings, evaluation, tree });
      const character = model.root.source.lineText(tree.line).length;
      const text = inlayText(tree, setup, input.workspace);
      hints.push({
        position: { line: tree.line, character },
        label: fitLabel(text.short),
        tooltip: {
          kind: MarkupKind.Markdown,
          value: [`**${tree.name}**: ${text.full.join(' · ')}`, assumptionsLine(setup)].join('\n\n'),
        },
        kind: InlayHintKind.Type,
        paddingLeft: true,
      });
    }
    return hints;
  } catch {
    // NOTE: hints are decoration; an analysis failure shows none rather than an error.
    return [];
  }
}

/** The longest inlay label: longer ones are cut off in the editor (issue 15). */
export const INLAY_LABEL_MAX_CHARS = 43;

/**
 * The label from the short parts: as many whole parts as fit in `maxChars` (joined by ` · `);
 * a first part that alone is too long is cut at a word boundary and ends with `…`.
 */
export function fitLabel(parts: readonly string[], maxChars = INLAY_LABEL_MAX_CHARS): string {
  let label = '';
  for (const part of parts) {
    const next = label ? `${label} · ${part}` : part;
    if (next.length > maxChars) break;
    label = next;
  }
  if (label || parts.length === 0) return label;
  const words = parts[0].split(' ');
  while (words.length > 1 && words.join(' ').length > maxChars - 1) words.pop();
  return `${words.join(' ').slice(0, maxChars - 1)}…`;
}

/** The hint text of one class: the full text (tooltip, CLI) and short parts for the label. */
export function inlayText(
  tree: ModuleTree,
  setup: EstimateSetup,
  workspace?: WorkspaceFiles,
): { full: string[]; short: string[] } {
  const input = modelInputOf(tree, { setup, workspace });
  if (!input) {
    const text = `≥ ${formatParams(tree.params.known)} params + unknown`;
    return { full: [text], short: [text] };
  }
  const [estimate] = estimatesFor({ model: input, setup, strategies: [setup.strategy] });
  const where = setup.profile ? `${setup.profile.worldSize}× ${setup.profile.gpu.name}` : '1 GPU';
  // A lower bound (part of the model unknown) says so with ≥ on every figure.
  const ge = estimate.lowerBound ? '≥ ' : '';
  const parts = [
    `${ge}${formatParams(input.params)} params`,
    `${ge}${formatBytes(estimate.memory.peak)}/GPU peak (${STRATEGY_LABELS[setup.strategy]}, ${where})`,
  ];
  const short = [parts[0], `${ge}${formatBytes(estimate.memory.peak)}/GPU`];
  if (estimate.comm.length) {
    const bytes = estimate.comm.reduce((sum, c) => sum + c.bytesPerStep, 0);
    const kinds = [...new Set(estimate.comm.map((c) => c.collective.split(' ')[0]))].join(' + ');
    const time =
      estimate.commSecondsPerStep === null ? '' : ` ≈ ${formatSeconds(estimate.commSecondsPerStep)}`;
    parts.push(`${kinds} ${ge}${formatBytes(bytes)}/step${time}`);
    short.push(`${ge}${formatBytes(bytes)}/step`);
  }
  return { full: parts, short };
}

/** The full hint text of one class (exported for tests and the CLI's text output). */
export function inlayLabel(tree: ModuleTree, setup: EstimateSetup, workspace?: WorkspaceFiles): string {
  return inlayText(tree, setup, workspace).full.join(' · ');
}

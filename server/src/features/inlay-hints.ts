// Inlay hints after each nn.Module class header: parameters, peak memory per GPU for the
// active strategy and cluster, and the gradient communication per step (with its time only
// when a link bandwidth is known). Switched by `settings.inlayHints`.
import { InlayHintKind, type InlayHint, type Range } from 'vscode-languageserver';
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';
import { formatBytes, formatParams, formatSeconds } from '../estimate';
import type { ModuleTree, WorkspaceFiles } from '../modules';
import {
  STRATEGY_LABELS,
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
      hints.push({
        position: { line: tree.line, character },
        label: inlayLabel(tree, setup, input.workspace),
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

/** The hint text of one class (exported for tests and the CLI's text output). */
export function inlayLabel(tree: ModuleTree, setup: EstimateSetup, workspace?: WorkspaceFiles): string {
  const input = modelInputOf(tree, { setup, workspace });
  if (!input) return `≥ ${formatParams(tree.params.known)} params + unknown`;
  const [estimate] = estimatesFor({ model: input, setup, strategies: [setup.strategy] });
  const where = setup.profile ? `${setup.profile.worldSize}× ${setup.profile.gpu.name}` : '1 GPU';
  // A lower bound (part of the model unknown) says so with ≥ on every figure.
  const ge = estimate.lowerBound ? '≥ ' : '';
  const parts = [
    `${ge}${formatParams(input.params)} params`,
    `${ge}${formatBytes(estimate.memory.peak)}/GPU peak (${STRATEGY_LABELS[setup.strategy]}, ${where})`,
  ];
  if (estimate.comm.length) {
    const bytes = estimate.comm.reduce((sum, c) => sum + c.bytesPerStep, 0);
    const kinds = [...new Set(estimate.comm.map((c) => c.collective.split(' ')[0]))].join(' + ');
    const time =
      estimate.commSecondsPerStep === null ? '' : ` ≈ ${formatSeconds(estimate.commSecondsPerStep)}`;
    parts.push(`${kinds} ${ge}${formatBytes(bytes)}/step${time}`);
  }
  return parts.join(' · ');
}

// Inlay hints after nn.Module classes (placeholder until the module evaluator lands).
import type { InlayHint, Range } from 'vscode-languageserver';
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';

/** Inlay hints within `range`. */
export function provideInlayHints(_input: {
  model: FileModel;
  range: Range;
  settings: Settings;
  workspace?: unknown;
}): InlayHint[] {
  return [];
}

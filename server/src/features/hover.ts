// Hover on model code (placeholder until the module evaluator lands: returns nothing).
import type { Hover } from 'vscode-languageserver';
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';

/** Hover markdown for the symbol at `position`. */
export function provideHover(_input: {
  model: FileModel;
  position: { line: number; character: number };
  settings: Settings;
  workspace?: unknown;
}): Hover | null {
  return null;
}

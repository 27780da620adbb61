// "Benchmark this layer" code lenses (placeholder until the module evaluator lands).
import type { CodeLens } from 'vscode-languageserver';
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';

/** Code lenses for the document. */
export function provideCodeLenses(_input: { model: FileModel; settings: Settings; uri: string }): CodeLens[] {
  return [];
}

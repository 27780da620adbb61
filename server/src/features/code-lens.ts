// "Benchmark this layer" code lenses on each nn.Module class: they run the client command
// `shardlens.benchmarkLayer` with the class position, which then asks `shardlens/layerAt`.
import type { CodeLens } from 'vscode-languageserver';
import type { FileModel } from '../analysis/file-model';
import type { Settings } from '../config/settings';
import type { WorkspaceFiles } from '../modules';
import { evaluationFor } from './estimate-context';

/** Code lenses for the document: one per nn.Module class, when `settings.codeLens` is on. */
export function provideCodeLenses(input: {
  model: FileModel;
  settings: Settings;
  uri: string;
  workspace?: WorkspaceFiles;
}): CodeLens[] {
  if (!input.settings.codeLens) return [];
  try {
    return evaluationFor({ model: input.model, workspace: input.workspace }).trees.map((tree) => {
      const position = { line: tree.line, character: tree.character };
      return {
        range: { start: position, end: { line: tree.line, character: tree.character + tree.name.length } },
        command: {
          title: 'Benchmark this layer',
          command: 'shardlens.benchmarkLayer',
          arguments: [{ uri: input.uri, line: tree.line, character: tree.character }],
        },
      };
    });
  } catch {
    // NOTE: lenses are optional UI; an analysis failure shows none.
    return [];
  }
}

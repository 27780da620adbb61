// Loads a fixture as the server would (FileModel + WorkspaceFiles over the models folder)
// and renders the hover at each of its `^name` markers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFileModel, type FileModel } from '../../../server/src/analysis/file-model';
import { WorkspaceFiles } from '../../../server/src/modules';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { fixturesDir, wasmDir } from '../../helpers/paths';
import { markers } from './markers';

/** The FileModel, workspace and markers of a fixture under test/fixtures/models. */
export async function loadFixture(relative: string): Promise<{
  model: FileModel;
  workspace: WorkspaceFiles;
  marks: Map<string, { line: number; character: number }>;
}> {
  const parser = await initParser({ wasmDir });
  const path = join(fixturesDir, 'models', relative);
  const model = buildFileModel({ parsed: parseSource(parser, readFileSync(path, 'utf8')), filePath: path });
  const workspace = new WorkspaceFiles({ roots: [join(fixturesDir, 'models')], parser });
  return { model, workspace, marks: markers(path) };
}

/** The position of marker `name`, failing clearly when the fixture lacks it. */
export function mark(
  marks: Map<string, { line: number; character: number }>,
  name: string,
): { line: number; character: number } {
  const position = marks.get(name);
  if (!position) throw new Error(`marker ^${name} not found`);
  return position;
}

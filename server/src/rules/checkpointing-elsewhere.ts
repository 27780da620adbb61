// Evidence from the rest of the workspace for SL301: a model file defines the deep model and
// a trainer elsewhere imports it and turns activation checkpointing on
// (`apply_activation_checkpointing(model, ...)`, `checkpoint_wrapper`, `torch.utils.checkpoint`
// on its blocks). The workspace's Python files are listed once per change of its files
// (bounded); a file's text is read again only when its size or mtime changed, and parsed only
// when it mentions checkpointing and names the model's module and one of its classes (the text
// of each file that mentions checkpointing is kept, so a keystroke reads nothing from disk).
import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { discoverPythonFiles } from '../cli/discover';
import type { FileModel } from '../analysis/file-model';
import { mayTurnOnCheckpointing, turnsOnCheckpointing } from './memory-helpers';
import type { WorkspaceContext } from './types';

/** Most workspace files looked at for a trainer; a larger workspace is cut there. */
const MAX_FILES = 2000;
/** Files larger than this are not read (the analyzer's limit for one document). */
const MAX_BYTES = 2 * 1024 * 1024;

/** What a file's text showed, as of its size and mtime. */
interface Scanned {
  size: number;
  mtimeMs: number;
  /** The text, kept only when it mentions checkpointing (the candidates); undefined otherwise. */
  text: string | undefined;
}

/** A workspace file whose text mentions checkpointing, with that text. */
interface Candidate {
  path: string;
  text: string;
}

/** Per root: the files whose text mentions checkpointing as of a generation of the workspace's files, and each file's scan. */
const candidatesByRoot = new Map<
  string,
  { generation: number; found: Candidate[]; scans: Map<string, Scanned> }
>();

/** Whether a workspace file imports one of `classNames` from `model`'s file and turns checkpointing on. */
export function checkpointedElsewhere(
  model: FileModel,
  classNames: readonly string[],
  workspace: WorkspaceContext,
): boolean {
  if (!model.filePath || classNames.length === 0) return false;
  const self = resolve(model.filePath);
  // An import that resolves to this file names its module (`from .model import Net`), unless
  // the file is a package's `__init__.py` (`from . import Net`).
  const stem = basename(self, '.py');
  const moduleNamed = (text: string) => stem === '__init__' || text.includes(stem);
  for (const { path, text } of candidates(workspace)) {
    // A trainer must import one of the classes from this file, so its text names one and the
    // module; parse only those.
    if (path === self || !moduleNamed(text) || !classNames.some((name) => text.includes(name))) continue;
    const file = workspace.files.file(path);
    if (!file || !turnsOnCheckpointing(file.imports, file.root.source.text)) continue;
    for (const name of classNames) {
      const dotted = file.imports.lookup(name);
      if (!dotted) continue;
      const found = workspace.files.resolve({ fromFile: path, dotted });
      if (found && resolve(found.file.path) === self && found.rest.join('.') === name) return true;
    }
  }
  return false;
}

/** The workspace's Python files whose text may turn checkpointing on (cached until a file changes). */
function candidates(workspace: WorkspaceContext): Candidate[] {
  const root = resolve(workspace.root);
  const cached = candidatesByRoot.get(root);
  if (cached && cached.generation === workspace.files.generation) return cached.found;
  const found: Candidate[] = [];
  const scans = new Map<string, Scanned>();
  let files: string[] = [];
  try {
    files = discoverPythonFiles({ paths: [root], cwd: root, exclude: [] }).files.slice(0, MAX_FILES);
  } catch {
    files = [];
  }
  for (const file of files) {
    const path = resolve(file);
    try {
      const { size, mtimeMs } = statSync(path);
      if (size > MAX_BYTES) continue;
      const before = cached?.scans.get(path);
      let scan = before;
      if (!scan || scan.size !== size || scan.mtimeMs !== mtimeMs) {
        const text = readFileSync(path, 'utf8');
        scan = { size, mtimeMs, text: mayTurnOnCheckpointing(text) ? text : undefined };
      }
      scans.set(path, scan);
      if (scan.text !== undefined) found.push({ path, text: scan.text });
    } catch {
      // unreadable: not evidence
    }
  }
  candidatesByRoot.set(root, { generation: workspace.files.generation, found, scans });
  return found;
}

// One file of `shardlens check`: read it, find the settings that govern it (its nearest
// pyproject.toml, then the command line), analyse it. Runs on the main thread or in a
// worker (parallel.ts); the result is plain data, so it crosses threads as it is.
import { readFileSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { analyzeText } from '../analyzer';
import { mergeSettings, type PartialSettings } from '../config/settings';
import { loadPyprojectFor } from '../config/pyproject';
import { globToRegExp } from './discover';
import type { Finding } from '../rules/types';
import { WorkspaceFiles } from '../modules/workspace-files';

/** One WorkspaceFiles per parser and working folder: a run (or a worker) reads each import once. */
const workspaces = new WeakMap<Parser, Map<string, WorkspaceFiles>>();

function workspaceFor(parser: Parser, cwd: string): WorkspaceFiles {
  let byFolder = workspaces.get(parser);
  if (!byFolder) workspaces.set(parser, (byFolder = new Map()));
  let files = byFolder.get(cwd);
  if (!files) byFolder.set(cwd, (files = new WorkspaceFiles({ roots: [cwd], parser })));
  return files;
}

/** What checking one file produced, in the order the CLI prints it. */
export interface FileCheck {
  /** Messages for stderr about this file (notes, internal errors). */
  messages: string[];
  /** Problems collected once for the whole run (unreadable file, bad pyproject.toml). */
  errors: string[];
  findings: Finding[];
  /** The path as shown (relative to the working folder, with `/`). */
  shown: string;
  /** Whether a nearer pyproject.toml excludes the file. */
  excluded: boolean;
}

/** Checks `file` with the command line's settings on top of its pyproject.toml's. */
export function checkFile(input: {
  parser: Parser;
  file: string;
  cwd: string;
  cliSettings: PartialSettings;
  /** Folder → its governing pyproject.toml, shared by the files of one run (no stat walk per file). */
  pyprojectFolders?: Map<string, string | undefined>;
}): FileCheck {
  const { parser, file, cwd, cliSettings } = input;
  const shown = relative(cwd, file).split(sep).join('/') || file;
  const result: FileCheck = { messages: [], errors: [], findings: [], shown, excluded: false };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    result.errors.push(
      `${relative(cwd, file)}: cannot read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
    return result;
  }
  const pyproject = loadPyprojectFor(file, undefined, input.pyprojectFolders);
  if (pyproject?.error) result.errors.push(pyproject.error);
  // NOTE: discovery applied the excludes of the pyproject.toml governing the working
  // folder; a file may be governed by a nearer one, whose patterns are relative to it.
  if (isExcludedBy(pyproject, file)) {
    result.excluded = true;
    return result;
  }
  const pin: PartialSettings = pyproject?.torchPin ? { torchVersion: pyproject.torchPin } : {};
  const settings = mergeSettings(pin, pyproject?.settings ?? {}, cliSettings);
  const analysis = analyzeText({
    parser,
    text,
    filePath: file,
    settings,
    workspace: { files: workspaceFor(parser, cwd), root: cwd },
    findingsOnly: true,
  });
  if (analysis.note) result.messages.push(`${shown}: ${analysis.note}`);
  for (const failure of analysis.failures)
    result.messages.push(`${shown}: internal error in ${failure.code}: ${failure.error.split('\n')[0]}`);
  result.findings = analysis.findings;
  return result;
}

/** Whether a pyproject's `exclude` globs (relative to its folder) match `file`. */
function isExcludedBy(
  pyproject: { path: string; settings: PartialSettings } | undefined,
  file: string,
): boolean {
  const patterns = pyproject?.settings.exclude ?? [];
  if (patterns.length === 0) return false;
  const rel = relative(dirname(pyproject!.path), file).split(sep).join('/');
  return patterns.some((glob) => globToRegExp(glob).test(rel));
}

// Helpers for the extension-host suite: workspace paths, polling with a timeout, and the
// text of hovers and diagnostics as the `vscode` API returns them.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

/** The e2e fixture files, relative to the workspace folder (see test/e2e/workspace.mjs). */
export const files = {
  train: 'e2e_train.py',
  other: 'e2e_other.py',
  broken: 'e2e_broken.py',
  huge: 'e2e_huge.py',
};

/** The URI of a workspace file. */
export function workspaceUri(relativePath: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the suite needs a workspace folder');
  return vscode.Uri.joinPath(folder.uri, relativePath);
}

/** Opens a workspace file in an editor. */
export async function open(relativePath: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(workspaceUri(relativePath));
  return vscode.window.showTextDocument(doc, { preview: false });
}

/** Polls `check` until it returns a truthy value; fails with `description` after `timeoutMs`. */
export async function waitFor<T>(
  description: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${description}${lastError ? `: ${lastError}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The code of a diagnostic as a string (`SL101`), whether given plainly or with a target. */
export function codeOf(diagnostic: vscode.Diagnostic): string {
  const code = diagnostic.code;
  if (code === undefined) return '';
  return typeof code === 'object' ? String(code.value) : String(code);
}

/** Waits for a diagnostic with `code` in the file, and returns it. */
export async function waitForDiagnostic(relativePath: string, code: string, timeoutMs = 60_000) {
  const uri = workspaceUri(relativePath);
  return waitFor(
    `${code} in ${relativePath}`,
    () => vscode.languages.getDiagnostics(uri).find((d) => codeOf(d) === code),
    timeoutMs,
  );
}

/** The 0-based position of the `occurrence`-th match of `text` in the document, plus `offset` characters. */
export function positionOf(doc: vscode.TextDocument, text: string, offset = 0): vscode.Position {
  const index = doc.getText().indexOf(text);
  assert.ok(index >= 0, `"${text}" not found in ${doc.uri.fsPath}`);
  return doc.positionAt(index + offset);
}

/** The hover text at a position, all providers joined. */
export async function hoverText(uri: vscode.Uri, position: vscode.Position): Promise<string> {
  const hovers =
    (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, position)) ??
    [];
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : c.value))
    .join('\n');
}

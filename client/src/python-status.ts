// Shows Shardlens' status-bar items only while a Python editor is active (a JSON or
// Markdown file gets none), as Pylance and Ruff do.
import * as vscode from 'vscode';

/** Whether the active editor (or, with none, nothing) is a Python document. */
export function isPythonEditor(editor: vscode.TextEditor | undefined): boolean {
  return editor?.document.languageId === 'python';
}

/** Shows `items` while a Python editor is active and hides them otherwise. */
export function showForPythonEditors(context: vscode.ExtensionContext, items: vscode.StatusBarItem[]): void {
  const update = () => {
    const editor = vscode.window.activeTextEditor;
    // NOTE: focusing the Output panel makes its log the active "editor"; keep the items as they were.
    if (editor?.document.uri.scheme === 'output') return;
    const show = isPythonEditor(editor);
    for (const item of items) {
      if (show) item.show();
      else item.hide();
    }
  };
  update();
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(update));
}

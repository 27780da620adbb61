// `shardlens.openRuleDocs`: opens a rule's page shipped in the extension
// (`docs/rules/SL101.md`) as a rendered, read-only Markdown preview, or the hosted page
// when `shardlens.docs.baseUrl` is set. Diagnostic code links and hovers point here.
import * as vscode from 'vscode';
import { OPEN_RULE_DOCS_COMMAND, docsPath, ruleDocsHref } from '../../server/src/rules/docs';

// NOTE: spelled out (checked against the shared constant) so the manifest contract test can read it.
const COMMAND = 'shardlens.openRuleDocs' satisfies typeof OPEN_RULE_DOCS_COMMAND;

/** Registers the command; with no argument it asks which rule. */
export function registerRuleDocs(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): void {
  const open = async (code?: unknown) => {
    const folder = vscode.Uri.joinPath(context.extensionUri, 'docs', 'rules');
    const shipped = (await vscode.workspace.fs.readDirectory(folder))
      .map(([name]) => /^(SL\d{3})\.md$/.exec(name)?.[1])
      .filter((c): c is string => !!c)
      .sort();
    let chosen = typeof code === 'string' ? code.toUpperCase() : undefined;
    if (!chosen)
      chosen = await vscode.window.showQuickPick(shipped, { title: 'Shardlens: rule documentation' });
    if (!chosen || !shipped.includes(chosen)) {
      if (chosen) void vscode.window.showWarningMessage(`Shardlens has no rule ${chosen}.`);
      return;
    }
    const baseUrl = vscode.workspace.getConfiguration('shardlens').get<string>('docs.baseUrl', '').trim();
    if (baseUrl) {
      const href = ruleDocsHref({ code: chosen, baseUrl, docsRoot: '', clientOpensDocs: false });
      await vscode.env.openExternal(vscode.Uri.parse(href));
      return;
    }
    const page = vscode.Uri.joinPath(context.extensionUri, docsPath(chosen));
    output.info(`Opening the ${chosen} documentation: ${page.fsPath}`);
    // NOTE: the preview renders the page and cannot be edited; opening the file itself would
    // let users change the installed copy.
    await vscode.commands.executeCommand('markdown.showPreview', page);
  };
  context.subscriptions.push(vscode.commands.registerCommand(COMMAND, open));
}

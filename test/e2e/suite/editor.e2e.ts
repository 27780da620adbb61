// Extension-host tests in a trusted workspace: diagnostics with their docs links, the model
// hover, the SL201 quick fix, the cluster profile setting, commands, and resilience to a
// broken file and a 5 MB file. Runs inside code-server or @vscode/test-electron.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import {
  codeOf,
  files,
  hoverText,
  open,
  positionOf,
  waitFor,
  waitForDiagnostic,
  workspaceUri,
} from './helpers';

describe('Shardlens in a trusted workspace', () => {
  before(async () => {
    const extension = vscode.extensions.getExtension('shardlens.shardlens');
    assert.ok(extension, 'the Shardlens extension is loaded');
    await open(files.train);
    await waitFor('the extension to activate', () => extension.isActive, 60_000);
    assert.equal(vscode.workspace.isTrusted, true, 'this part of the suite needs a trusted workspace');
  });

  after(async () => {
    await vscode.workspace
      .getConfiguration('shardlens')
      .update('cluster.gpu', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('reports SL101 on the .item() in the hot loop, linked to its docs page', async () => {
    const editor = await open(files.train);
    const diagnostic = await waitForDiagnostic(files.train, 'SL101');
    const itemLine = positionOf(editor.document, 'total += loss.item()').line;
    assert.equal(diagnostic.range.start.line, itemLine, 'SL101 is on the .item() line');
    assert.equal(diagnostic.source?.toLowerCase(), 'shardlens');
    const code = diagnostic.code;
    assert.ok(code && typeof code === 'object' && 'target' in code, 'the code carries a docs link');
    assert.match(code.target.toString(), /SL101/, 'the docs link points at the SL101 page');
  });

  it('shows parameters and a per-GPU memory table when hovering a model class', async () => {
    const editor = await open(files.train);
    const at = positionOf(editor.document, 'class TinyMLP', 'class '.length + 2);
    const text = await waitFor('a hover with params and DDP', async () => {
      const hover = await hoverText(editor.document.uri, at);
      return /param/i.test(hover) && /DDP/.test(hover) ? hover : false;
    });
    // TinyMLP(256, 1024): 256*1024 + 1024 + 1024*256 + 256 = 525,568 parameters.
    assert.match(text, /525[,.\s]?568|525\.6\s?K|0\.53\s?M|526\s?K/i, `the parameter count appears: ${text}`);
  });

  it('offers a quick fix for the .view() after a transpose (SL201) that removes the finding', async () => {
    const editor = await open(files.train);
    const diagnostic = await waitForDiagnostic(files.train, 'SL201');
    assert.equal(diagnostic.range.start.line, positionOf(editor.document, 'y.view(').line);
    // The 4th argument resolves up to that many actions, for servers that fill edits lazily.
    // NOTE: asked again until the fix comes (CI once got none on the first request, a race
    // not seen here in 6 runs); each failed answer is kept for the timeout message.
    const answers: string[] = [];
    const fix = await waitFor(
      'a .reshape quick fix with an edit for SL201',
      async () => {
        const actions =
          (await vscode.commands.executeCommand<vscode.CodeAction[]>(
            'vscode.executeCodeActionProvider',
            editor.document.uri,
            diagnostic.range,
            vscode.CodeActionKind.QuickFix.value,
            20,
          )) ?? [];
        const found = actions.find((a) => /reshape/i.test(a.title) && a.edit);
        if (!found) {
          const codes = vscode.languages.getDiagnostics(editor.document.uri).map(codeOf);
          answers.push(`[${actions.map((a) => a.title).join(', ')}] with diagnostics [${codes.join(', ')}]`);
          throw new Error(`${answers.length} answers without it, the first: ${answers[0]}`);
        }
        return found;
      },
      10_000,
    );
    if (answers.length)
      console.log(
        `e2e note: the SL201 quick fix came after ${answers.length} answers without it: ${answers.join('; ')}`,
      );
    assert.ok(fix.edit && (await vscode.workspace.applyEdit(fix.edit)), 'the edit applies');
    assert.match(editor.document.lineAt(diagnostic.range.start.line).text, /reshape|contiguous/);
    await waitFor(
      'SL201 to go away',
      () => !vscode.languages.getDiagnostics(editor.document.uri).some((d) => codeOf(d) === 'SL201'),
    );
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('changes the hover estimate when another cluster GPU is chosen', async () => {
    const editor = await open(files.train);
    const at = positionOf(editor.document, 'class TinyMLP', 'class '.length + 2);
    const config = vscode.workspace.getConfiguration('shardlens');
    await config.update('cluster.gpu', 'h100-sxm', vscode.ConfigurationTarget.Workspace);
    const before = await waitFor('a hover naming H100', async () => {
      const hover = await hoverText(editor.document.uri, at);
      return /H100/i.test(hover) ? hover : false;
    });
    await config.update('cluster.gpu', 'mi300x', vscode.ConfigurationTarget.Workspace);
    const after = await waitFor('a hover naming MI300X', async () => {
      const hover = await hoverText(editor.document.uri, at);
      return /MI300X/i.test(hover) ? hover : false;
    });
    assert.notEqual(after, before);
  });

  it('registers its commands', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of [
      'shardlens.benchmarkLayer',
      'shardlens.selectClusterProfile',
      'shardlens.restartServer',
    ]) {
      assert.ok(commands.includes(id), `${id} is registered`);
    }
  });

  it('keeps diagnosing other files after a broken file and a 5 MB file', async () => {
    await open(files.broken);
    const huge = await open(files.huge);
    assert.ok(huge.document.getText().length >= 5 * 1024 * 1024, 'the large file is 5 MB');
    await open(files.other);
    const diagnostic = await waitForDiagnostic(files.other, 'SL101', 90_000);
    assert.ok(diagnostic.message.length > 0);
    // The broken file gets at most a clear message, never a crash of the server.
    const broken = vscode.languages.getDiagnostics(workspaceUri(files.broken));
    assert.ok(broken.every((d) => d.message.length > 0));
  });
});

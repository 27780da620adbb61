// Entry of the extension-host suite (the @vscode/test-electron contract: `run()` resolves when
// every test passed). Runs the compiled `*.e2e.js` files beside it with mocha from the repo.
// The workspace's `e2e-suite-mode.json` picks the trusted tests or the untrusted ones.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';

/** `trusted` (default) or `untrusted`, from the workspace's e2e-suite-mode.json. */
export function suiteMode(): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const file = folder && join(folder, 'e2e-suite-mode.json');
  if (!file || !existsSync(file)) return 'trusted';
  return (JSON.parse(readFileSync(file, 'utf8')) as { mode?: string }).mode ?? 'trusted';
}

/** Called by the extension host with the suite loaded; rejects when a test fails. */
export async function run(): Promise<void> {
  const mode = suiteMode();
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec' });
  mocha.grep(/@untrusted/);
  if (mode !== 'untrusted') mocha.invert();
  for (const name of readdirSync(__dirname)
    .filter((n) => n.endsWith('.e2e.js'))
    .sort()) {
    mocha.addFile(join(__dirname, name));
  }
  console.log(`shardlens e2e suite: ${mode} workspace ${vscode.workspace.workspaceFolders?.[0]?.uri.fsPath}`);
  await new Promise<void>((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const passes = runner.stats?.passes ?? 0;
      if (failures > 0) reject(new Error(`${failures} test(s) failed`));
      else if (passes === 0) reject(new Error('no test ran: a suite that tests nothing must not pass'));
      else resolve();
    });
  });
}

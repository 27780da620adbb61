// `npm run test:vscode`: the same extension-host suite as `npm run test:e2e`, run with
// @vscode/test-electron in a downloaded VS Code (for machines that can download it; on
// Linux without a display, run under xvfb-run). Versions: SHARDLENS_VSCODE_VERSIONS
// (comma-separated, default "1.91.0,stable": the minimum engine and the current release).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { writeUserSettings } from './lib/code-server.mjs';
import { buildSuite } from './lib/ext-host.mjs';
import { runCommand } from './lib/toolchain.mjs';
import { prepareWorkspace, repoRoot, userSettings } from './workspace.mjs';

async function main() {
  const versions = (process.env.SHARDLENS_VSCODE_VERSIONS ?? '1.91.0,stable').split(',').map((v) => v.trim());
  await runCommand({ command: 'npm', args: ['run', 'build'], cwd: repoRoot, label: 'build', quiet: true });
  const suiteEntry = await buildSuite();
  const runDir = mkdtempSync(join(tmpdir(), 'shardlens-vscode-'));
  const failures = [];
  try {
    for (const version of versions) {
      for (const trusted of [true, false]) {
        const name = `${version}-${trusted ? 'trusted' : 'untrusted'}`;
        const folder = prepareWorkspace({ dir: join(runDir, `workspace-${name}`) });
        writeFileSync(
          join(folder, 'e2e-suite-mode.json'),
          JSON.stringify({ mode: trusted ? 'trusted' : 'untrusted' }),
        );
        // Each run has its own user data and extensions folders: an installed .vsix has the
        // same id as the development copy and must not shadow it.
        const userDataDir = join(runDir, `user-${name}`);
        writeUserSettings(userDataDir, userSettings({ trusted }));
        console.log(`test:vscode: VS Code ${version}, ${trusted ? 'trusted' : 'untrusted'} workspace`);
        try {
          await runTests({
            version,
            extensionDevelopmentPath: repoRoot,
            extensionTestsPath: suiteEntry,
            launchArgs: [
              folder,
              `--user-data-dir=${userDataDir}`,
              `--extensions-dir=${join(runDir, `extensions-${name}`)}`,
              '--disable-extensions',
              ...(trusted ? ['--disable-workspace-trust'] : []),
            ],
          });
        } catch (error) {
          failures.push(`${name}: ${error?.message ?? error}`);
        }
      }
    }
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.error(`test:vscode failed:\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
  console.log('test:vscode: all runs passed');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

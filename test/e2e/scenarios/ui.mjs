// UI scenarios: what a user sees in the code-server workbench with the packaged extension
// installed — Problems panel and docs links, the model hover, the SL201 quick fix, the
// benchmark panel and terminal, the cluster profile picker, and bad files not stopping others.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  dismissWidgets,
  editorText,
  goToLine,
  hoverAtCursor,
  openFile,
  poll,
  problemsRows,
  runCommand,
  terminalText,
  waitForProblem,
  webviewFrame,
} from '../lib/workbench.mjs';
import { demoFiles, fixtureFiles } from '../workspace.mjs';

/** 1-based line and column of the first `text` in a workspace file, plus `offset` characters. */
function locate(folder, file, text, offset = 0) {
  const lines = readFileSync(join(folder, file), 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(text));
  if (index < 0) throw new Error(`"${text}" not found in ${file}`);
  return { line: index + 1, column: lines[index].indexOf(text) + 1 + offset };
}

/** The GPT class of the demo model: hover and cluster scenarios. */
const gptAt = (folder) => locate(folder, demoFiles.model, 'class GPT(nn.Module)', 'class '.length + 1);

/** Scenario (a): SL101 in the Problems panel with its code linking to the docs page. */
async function problemsWithDocsLink({ page, folder }) {
  const at = locate(folder, demoFiles.train, 'loss {loss.item()', 'loss {loss.'.length);
  await openFile(page, demoFiles.train);
  await goToLine(page, at.line, at.column);
  const row = await waitForProblem(page, ['SL101', `Ln ${at.line},`], { timeoutMs: 60_000 });
  const link = row.locator('a[href]').first();
  await link.waitFor({ timeout: 10_000 }).catch(async () => {
    throw new Error(`the SL101 row has no link: ${await row.innerText()}`);
  });
  const href = await link.getAttribute('href');
  const linkText = await link.innerText();
  if (!/SL101/.test(href ?? '')) throw new Error(`the SL101 code links to ${href}, not to its docs page`);
  if (!/SL101/.test(linkText)) throw new Error(`the link text is "${linkText}", not the code`);
  await poll(
    'a squiggle under the .item() line',
    async () => (await page.locator('.monaco-editor .view-overlays [class*="squiggly-"]').count()) > 0,
  );
  return {
    details: `row "${(await row.innerText()).replace(/\s+/g, ' ')}" links to ${href}`,
    screenshot: 'diagnostics',
  };
}

/** Scenario (b): hovering a model class shows parameters and a per-strategy memory table. */
async function modelHover({ page, folder }) {
  const at = gptAt(folder);
  await openFile(page, demoFiles.model);
  await goToLine(page, at.line, at.column);
  const text = await hoverAtCursor(page, { expect: [/param/i, /DDP/], timeoutMs: 60_000 });
  return {
    details: `hover: ${text.replace(/\s+/g, ' ').slice(0, 160)}…`,
    screenshot: 'hover',
    keepWidgets: true,
  };
}

/** Scenario (c): the SL201 quick fix applies from the quick-fix menu and the finding goes away. */
async function viewQuickFix({ page, folder }) {
  const at = locate(folder, demoFiles.model, 'y = y.transpose(1, 2).view(', 'y = y.transpose(1, 2).'.length);
  await openFile(page, demoFiles.model);
  await goToLine(page, at.line, at.column);
  await waitForProblem(page, ['SL201', `Ln ${at.line},`], { timeoutMs: 60_000 });
  const rows = page.locator('.action-widget .monaco-list-row.action');
  const item = await poll(
    'a quick fix for SL201 in the quick-fix menu',
    async () => {
      await goToLine(page, at.line, at.column);
      await page.keyboard.press('Control+.');
      await rows.first().waitFor({ state: 'visible', timeout: 5000 });
      const texts = await rows.allInnerTexts();
      const index = texts.findIndex((t) => /reshape|contiguous/i.test(t));
      return index >= 0 ? { row: rows.nth(index), title: texts[index] } : false;
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  await item.row.click();
  await poll('the fixed line in the editor', async () =>
    /transpose\(1, 2\)\.(reshape|contiguous\(\)\.view)\(B, T, C\)/.test(await editorText(page)),
  );
  await poll(
    'SL201 to leave the Problems panel',
    async () => {
      const rows = await problemsRows(page);
      return !rows.some((r) => r.includes('SL201') && r.includes(`Ln ${at.line},`));
    },
    { timeoutMs: 60_000 },
  );
  return { details: `applied "${item.title.replace(/\s+/g, ' ')}"; SL201 gone`, screenshot: 'quick-fix' };
}

/** Scenario (d): Benchmark This Layer opens the panel for the class; a CPU run completes. */
async function benchmarkPanel({ page, folder }) {
  const at = locate(folder, demoFiles.model, 'class MLP(nn.Module)', 'class '.length + 1);
  await openFile(page, demoFiles.model);
  await goToLine(page, at.line, at.column);
  await runCommand(page, 'Shardlens: Benchmark This Layer');
  const frame = await webviewFrame(page, '#layer-form textarea[name="constructor"]', { timeoutMs: 60_000 });
  const constructor = frame.locator('#layer-form textarea[name="constructor"]');
  await poll('the panel to be prefilled for MLP', async () =>
    /^\s*MLP\(/.test(await constructor.inputValue()),
  );
  const prefilled = await constructor.inputValue();
  // A small CPU case on 2 cores: short sequence, two batch sizes, a short time budget.
  const dims = frame.locator('#layer-form input[name="dims"]');
  await dims.fill((await dims.inputValue()).replace(/\bT\s*=\s*\d+/, 'T=16') || 'B=2, T=16');
  await frame.locator('#layer-form input[name="batchSizes"]').fill('1, 2');
  await frame.locator('#layer-form input[name="measureMs"]').fill('20');
  await frame.locator('#layer-form input[name="maxCaseSeconds"]').fill('5');
  await frame.locator('button#run-layer').click();
  await poll(
    'the "Shardlens Benchmark" terminal',
    async () =>
      (
        await page
          .locator('.terminal-tabs-entry, .single-terminal-tab, .pane-header, .composite.title')
          .allInnerTexts()
      ).some((t) => t.includes('Shardlens Benchmark')),
    { timeoutMs: 60_000 },
  );
  await poll(
    'the benchmark command in the terminal',
    async () => /shardlens_bench/.test(await terminalText(page)),
    {
      timeoutMs: 60_000,
    },
  );
  const state = frame.locator('.status .state').first();
  await poll(
    'the run to end in the panel',
    async () =>
      (await state.count()) > 0 && !/\brunning\b/.test((await state.getAttribute('class')) ?? 'running'),
    { timeoutMs: 240_000 },
  );
  const stateText = await state.innerText();
  if (!/\bdone\b/.test((await state.getAttribute('class')) ?? '')) {
    throw new Error(`the run ended "${stateText}"; terminal:\n${(await terminalText(page)).slice(-1500)}`);
  }
  await poll(
    'a results table in the panel',
    async () => (await frame.locator('table.cases tbody tr').count()) > 0,
  ).catch(async (error) => {
    const panelText = (
      await frame
        .locator('.results')
        .first()
        .innerText()
        .catch(() => '')
    ).replace(/\s+/g, ' ');
    const terminal = (await terminalText(page))
      .split('\n')
      .filter((l) => l.trim())
      .slice(-3)
      .join(' | ');
    throw new Error(
      `${error.message}; the panel says "${panelText.slice(0, 200)}"; terminal ends "${terminal}"`,
    );
  });
  // The chart's canvas exists before any run; a rendered chart has painted pixels.
  await poll(
    'a rendered latency chart',
    async () =>
      frame.locator('canvas#chart-latency').evaluate((canvas) => {
        const ctx = canvas.getContext('2d');
        if (!ctx || canvas.width === 0 || canvas.height === 0) return false;
        const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted++;
        return painted > 100;
      }),
    { timeoutMs: 30_000 },
  );
  await frame.locator('canvas#chart-latency').scrollIntoViewIfNeeded();
  const table = (await frame.locator('table.cases').first().innerText()).replace(/\s+/g, ' ');
  return {
    details: `prefilled "${prefilled.trim()}"; results: ${table.slice(0, 140)}`,
    screenshot: 'benchmark',
  };
}

/** Scenario (e): another cluster profile from the status bar changes the hover's estimate. */
async function clusterProfile({ page, folder }) {
  const at = gptAt(folder);
  await openFile(page, demoFiles.model);
  await goToLine(page, at.line, at.column);
  const before = await hoverAtCursor(page, { expect: [/DDP/], timeoutMs: 60_000 });
  await dismissWidgets(page);
  // The status-bar entry's element id ends with the item id the extension gave it.
  const item = page
    .locator('.statusbar-item[id$="clusterProfile"], .statusbar-item:has-text("H100")')
    .first();
  const fromStatusBar = await item.isVisible().catch(() => false);
  if (fromStatusBar) await item.click();
  else await runCommand(page, 'Shardlens: Select Cluster Profile');
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  const target = await poll('MI300X in the cluster profile picker', async () => {
    const texts = await rows.allInnerTexts();
    const index = texts.findIndex((t) => /MI300X/i.test(t));
    return index >= 0 ? rows.nth(index) : false;
  });
  await target.click();
  // The picker goes on (GPUs per node, nodes, links): accept each default with Enter once its
  // step shows, until the status bar names the new GPU.
  const title = page.locator('.quick-input-widget .quick-input-title');
  const answered = new Set();
  await poll(
    'the status bar to name MI300X after the picker',
    async () => {
      if (
        /MI300X/i.test(
          await page
            .locator('.part.statusbar')
            .innerText()
            .catch(() => ''),
        )
      )
        return true;
      if (await page.locator('.quick-input-widget').isVisible()) {
        const step = await title.innerText().catch(() => '');
        if (step && !/\(1\//.test(step) && !answered.has(step)) {
          answered.add(step);
          await page.keyboard.press('Enter');
        }
      }
      return false;
    },
    { timeoutMs: 30_000, intervalMs: 300 },
  );
  await goToLine(page, at.line, at.column);
  const after = await hoverAtCursor(page, { expect: [/MI300X/i], timeoutMs: 60_000 });
  if (after === before) throw new Error('the hover did not change');
  const status = (await item.innerText().catch(() => '')).trim();
  return {
    details: `picked MI300X ${fromStatusBar ? 'from the status bar' : 'from the palette'} (status bar "${status}"); the hover changed`,
    screenshot: 'cluster-profile',
  };
}

/** Scenario (f): a broken file and a 5 MB file do not stop diagnostics for other files. */
async function badFilesDoNotStopOthers({ page, folder }) {
  await openFile(page, fixtureFiles.broken);
  await openFile(page, fixtureFiles.huge);
  const at = locate(folder, fixtureFiles.other, 'losses.append(loss.item())', 'losses.append(loss.'.length);
  await openFile(page, fixtureFiles.other);
  await waitForProblem(page, ['SL101', `Ln ${at.line},`], { timeoutMs: 60_000 });
  return {
    details: `SL101 reported in ${fixtureFiles.other} after opening the broken and the 5 MB file`,
    screenshot: 'bad-files',
  };
}

/** The UI scenarios, in the order they run against one code-server and one page. */
export const uiScenarios = [
  { name: 'a-problems-docs-link', title: 'SL101 in Problems, code links to docs', run: problemsWithDocsLink },
  { name: 'b-model-hover', title: 'hover on a model class shows params and DDP', run: modelHover },
  { name: 'c-sl201-quick-fix', title: 'SL201 quick fix applies and clears the finding', run: viewQuickFix },
  {
    name: 'd-benchmark-panel',
    title: 'Benchmark This Layer runs on CPU, table and chart',
    run: benchmarkPanel,
  },
  {
    name: 'e-cluster-profile',
    title: 'cluster profile from the status bar changes the hover',
    run: clusterProfile,
  },
  {
    name: 'f-bad-files',
    title: 'broken and 5 MB files do not stop diagnostics',
    run: badFilesDoNotStopOthers,
  },
];

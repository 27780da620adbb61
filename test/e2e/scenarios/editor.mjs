// Editor scenarios (issue 15): what a person sees of the status bar and the Output channel,
// the cluster picker (Enter keeps the current row, ids filter, a walk changes nothing),
// inlay hints (short label, tooltip, refreshed after a settings change), short messages in
// the Problems panel with the docs opening as a rendered preview, and the disable and
// fix-all code actions. Each step saves a screenshot named after what it shows.
/* global document */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  editorText,
  goToLine,
  openFile,
  poll,
  problemsRows,
  runCommand,
  screenshot,
  waitForProblem,
  webviewFrame,
} from '../lib/workbench.mjs';
import { outputDir } from '../setup.mjs';
import { demoFiles } from '../workspace.mjs';

const editorFile = 'e2e_editor.py';
const shot = (page, name) => screenshot(page, outputDir, name);

/** Merges `changes` into the workspace's .vscode/settings.json (null deletes a key); returns the old text. */
function updateWorkspaceSettings(folder, changes) {
  const path = join(folder, '.vscode', 'settings.json');
  const before = readFileSync(path, 'utf8');
  const settings = JSON.parse(before);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete settings[key];
    else settings[key] = value;
  }
  writeFileSync(path, JSON.stringify(settings, null, 2));
  return before;
}

/** 1-based line and column of `text` in a workspace file, plus `offset`. */
function locate(folder, file, text, offset = 0) {
  const lines = readFileSync(join(folder, file), 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(text));
  if (index < 0) throw new Error(`"${text}" not found in ${file}`);
  return { line: index + 1, column: lines[index].indexOf(text) + 1 + offset };
}

/**
 * Opens a top-level workspace file by clicking its Explorer row (quick open can keep a stale
 * row order after a 5 MB file was opened), falling back to quick open.
 */
async function open(page, name) {
  const row = page.locator('.explorer-folders-view .monaco-list-row', {
    hasText: new RegExp(`^${name.replace('.', '\\.')}`),
  });
  try {
    await row.first().click({ timeout: 5000 });
    await poll(
      `the editor for ${name}`,
      async () => (await page.title()).replace(/^● /, '').startsWith(`${name} `),
      {
        timeoutMs: 10_000,
      },
    );
    await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor();
  } catch {
    await openFile(page, name);
  }
}

const statusBarText = (page) =>
  page
    .locator('.part.statusbar')
    .innerText()
    .catch(() => '');
const clusterItem = (page) => page.locator('.statusbar-item[id$="clusterProfile"]').first();

/** Status-bar items only with a Python editor; the Output channel logs start, version, grammar, torch. */
async function statusBarAndOutput({ page }) {
  await open(page, demoFiles.model);
  await poll('the cluster item in the status bar', () => clusterItem(page).isVisible(), {
    timeoutMs: 60_000,
  });
  const withPython = await statusBarText(page);
  await openFile(page, '.vscode/settings.json');
  await poll('the Shardlens items to leave the status bar for a JSON file', async () => {
    const text = await statusBarText(page);
    return !/H100|Shardlens/.test(text) && !(await clusterItem(page).isVisible());
  });
  await shot(page, 'ed-status-bar-json-file');
  await open(page, demoFiles.model);
  await poll('the items back for a Python file', () => clusterItem(page).isVisible());
  await runCommand(page, 'Shardlens: Show Output');
  // The output view renders only the lines in view, so each line is found through the panel's
  // filter box, as a person would look for it.
  // `:visible`: the Problems view keeps its own (hidden) filter box in the panel once opened.
  const lines = page.locator('.panel .monaco-editor .view-lines:visible').first();
  const filter = page.locator('.panel input[placeholder^="Filter"]:visible').first();
  const found = [];
  for (const [text, pattern] of [
    ['language server', /Shardlens language server \d+\.\d+\.\d+ starting/],
    ['grammar', /Python grammar loaded in \d+ ms/],
    ['PyTorch', /PyTorch \d+\.\d+\S* found with/],
  ]) {
    found.push(
      await poll(
        `"${text}" in the Shardlens output`,
        async () => {
          // Typed on every try: the view re-renders when the channel is written to or replaced.
          await filter.fill(text);
          const visible = (await lines.innerText()).replace(/\u00a0/g, ' ');
          return visible.split('\n').find((l) => pattern.test(l)) ?? false;
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      ),
    );
  }
  await filter.fill('');
  const log = found.join('\n');
  await shot(page, 'ed-output-channel');
  await page.keyboard.press('Control+J'); // hide the panel again
  return {
    details: `status bar with model.py: "${withPython.replace(/\s+/g, ' ').slice(0, 120)}"; none for JSON; log: ${log
      .split('\n')
      .filter((l) => /starting|grammar|PyTorch/.test(l))
      .map((l) => l.trim().slice(0, 90))
      .join(' | ')}`,
  };
}

/** The focused row of the open quick pick. */
const focusedRow = (page) =>
  page.locator('.quick-input-widget .quick-input-list .monaco-list-row.focused').first();

/** Enter keeps the "(current)" row; typing an id filters; walking through changes nothing. */
async function clusterPicker({ page, folder }) {
  const original = updateWorkspaceSettings(folder, { 'shardlens.cluster.nodes': 2 });
  try {
    await open(page, demoFiles.model);
    await poll('the status bar to show 2 nodes', async () => /2 nodes/.test(await statusBarText(page)), {
      timeoutMs: 30_000,
    });
    const settingsBefore = readFileSync(join(folder, '.vscode', 'settings.json'), 'utf8');
    const statusBefore = (await clusterItem(page).innerText()).trim();
    // A walk pressing Enter at every step.
    const input = page.locator('.quick-input-widget input');
    const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await clusterItem(page).click();
    const title = page.locator('.quick-input-widget .quick-input-title');
    const steps = [];
    for (let step = 1; step <= 5; step++) {
      const stepTitle = await poll(`picker step ${step}`, async () => {
        const text = await title.innerText().catch(() => '');
        return text.includes(`(${step}/5)`) ? text : false;
      });
      const isList =
        (await rows.count()) > 0 &&
        (await focusedRow(page)
          .isVisible()
          .catch(() => false));
      if (isList) {
        const focused = await poll(`the focused row of ${stepTitle} to settle`, async () => {
          const text = (await focusedRow(page).innerText()).replace(/\s+/g, ' ');
          return (await input.inputValue()) === '' ? text : false;
        });
        if (!/\(current\)/.test(focused)) throw new Error(`${stepTitle}: Enter would pick "${focused}"`);
        steps.push(`${stepTitle}: ${focused}`);
        if (step === 1) await shot(page, 'ed-picker-enter-keeps-current');
      } else steps.push(`${stepTitle}: ${await input.inputValue()}`);
      await page.keyboard.press('Enter');
      // NOTE: a keypress can land while the widget is still settling; press again if the step stays.
      let waited = 0;
      await poll(
        `${stepTitle} to be accepted`,
        async () => {
          const now = await title.innerText().catch(() => '');
          if (!now.includes(`(${step}/5)`) || !(await page.locator('.quick-input-widget').isVisible()))
            return true;
          if ((waited += 1) % 6 === 0) await page.keyboard.press('Enter');
          return false;
        },
        { timeoutMs: 15_000, intervalMs: 500 },
      );
    }
    await poll('the picker to close', async () => !(await page.locator('.quick-input-widget').isVisible()));
    const settingsAfter = readFileSync(join(folder, '.vscode', 'settings.json'), 'utf8');
    if (settingsAfter !== settingsBefore) throw new Error(`the walk changed the settings:\n${settingsAfter}`);
    const statusAfter = (await clusterItem(page).innerText()).trim();
    if (statusAfter !== statusBefore) throw new Error(`status bar "${statusBefore}" became "${statusAfter}"`);
    await shot(page, 'ed-picker-after-walk');
    // Filtering by the id the rows show.
    await clusterItem(page).click();
    await input.waitFor({ state: 'visible' });
    await input.fill('a100-40gb');
    const filtered = await poll('rows filtered by the id a100-40gb', async () => {
      const texts = await rows.allInnerTexts();
      return texts.length > 0 && texts.every((t) => /a100-40gb/i.test(t)) ? texts : false;
    });
    await shot(page, 'ed-picker-filter-by-id');
    await page.keyboard.press('Escape');
    await poll(
      'the filtered picker to close',
      async () => !(await page.locator('.quick-input-widget').isVisible()),
    );
    return {
      details: `filter "a100-40gb" showed ${filtered.length} row(s): ${filtered[0].replace(/\s+/g, ' ')}; walk: ${steps.join(' / ')}; status bar stayed "${statusAfter}"`,
    };
  } finally {
    writeFileSync(join(folder, '.vscode', 'settings.json'), original);
  }
}

/** The hint text rendered after `class GPT(nn.Module):`. */
async function gptHint(page) {
  const line = (await editorText(page)).split('\n').find((l) => l.startsWith('class GPT(nn.Module):'));
  return line?.slice('class GPT(nn.Module):'.length).trim() ?? '';
}

/** A short inlay label, its tooltip with the full text, and a fresh label after a settings change. */
async function inlayHints({ page, folder }) {
  const at = locate(folder, demoFiles.model, 'class GPT(nn.Module)');
  await open(page, demoFiles.model);
  await goToLine(page, at.line, 1);
  const label = await poll('the inlay hint after class GPT', async () => {
    const hint = await gptHint(page);
    return /params/.test(hint) ? hint : false;
  });
  if (label.length > 43) throw new Error(`the label is ${label.length} characters: "${label}"`);
  if (/…$/.test(label)) throw new Error(`the label is cut: "${label}"`);
  const hintSpan = page
    .locator('.editor-instance .view-line span[class*="dyn-rule"]', { hasText: 'params' })
    .first();
  const hover = page.locator('.monaco-hover:not(.hidden)');
  const tooltip = await poll(
    'the inlay hint tooltip',
    async () => {
      await hintSpan.hover();
      const text = (await hover.allInnerTexts()).join('\n');
      return /Assumptions:/.test(text) ? text : false;
    },
    { timeoutMs: 30_000, intervalMs: 1000 },
  );
  await shot(page, 'ed-inlay-hint-tooltip');
  await page.mouse.move(5, 5);
  const original = updateWorkspaceSettings(folder, { 'shardlens.estimate.precision': 'bf16' });
  const changedAt = Date.now();
  try {
    const fresh = await poll(
      'the inlay label to follow the precision change',
      async () => {
        const hint = await gptHint(page);
        return hint && hint !== label ? hint : false;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    const seconds = (Date.now() - changedAt) / 1000;
    await shot(page, 'ed-inlay-hint-refreshed');
    return {
      details: `label "${label}" (${label.length} chars); tooltip "${tooltip.replace(/\s+/g, ' ').slice(0, 120)}…"; bf16 label "${fresh}" after ${seconds.toFixed(1)} s`,
    };
  } finally {
    writeFileSync(join(folder, '.vscode', 'settings.json'), original);
  }
}

/** Short messages visible whole in the Problems panel; the docs link opens a rendered preview. */
async function problemsAndDocs({ page, folder }) {
  const at = locate(folder, editorFile, 'print(loss.item())', 'print(loss.'.length);
  await open(page, editorFile);
  const row = await waitForProblem(page, ['SL101', `Ln ${at.line},`]);
  // The probe of /usr/bin/python3 finds torch 1.13, older than the 2.4 deprecation: no SL504.
  await poll(
    'SL504 to be absent (the interpreter has PyTorch < 2.4)',
    async () => !(await problemsRows(page)).some((r) => r.includes('SL504')),
    { timeoutMs: 60_000 },
  );
  const rows = (await problemsRows(page)).filter((r) => /SL\d{3}/.test(r));
  const cut = await page.evaluate(() =>
    [...document.querySelectorAll('.markers-panel .monaco-list-row *')]
      .filter(
        (el) => el.children.length === 0 && el.scrollWidth > el.clientWidth + 1 && /\S/.test(el.textContent),
      )
      .map((el) => el.textContent),
  );
  if (cut.length) throw new Error(`text cut off in the Problems panel: ${cut.join(' | ')}`);
  const messages = rows.map((r) => r.replace(/\s+/g, ' '));
  await shot(page, 'ed-problems-short-messages');
  await row.locator('a[href]').first().click();
  const frame = await webviewFrame(page, 'h1', { timeoutMs: 60_000 });
  const heading = await frame.locator('h1').first().innerText();
  if (!/SL101/.test(heading)) throw new Error(`the preview shows "${heading}"`);
  const tab = await page.locator('.tabs-container .tab.active').first().innerText();
  if (!/Preview/i.test(tab)) throw new Error(`the active tab is "${tab}", not a preview`);
  await shot(page, 'ed-docs-preview-rendered');
  return {
    details: `rows: ${messages.join(' || ').slice(0, 400)}; docs tab "${tab.trim()}", heading "${heading}"`,
  };
}

/** "Disable SL101 for this file" from the quick-fix menu, then fix-all on an explicit save. */
async function disableAndFixAll({ page, folder }) {
  const file = join(folder, editorFile);
  const originalText = readFileSync(file, 'utf8');
  const original = updateWorkspaceSettings(folder, {
    'files.autoSave': 'off',
    '[python]': { 'editor.codeActionsOnSave': { 'source.fixAll.shardlens': 'explicit' } },
  });
  try {
    const at = locate(folder, editorFile, 'print(loss.item())', 'print(loss.'.length);
    await open(page, editorFile);
    await waitForProblem(page, ['SL101', `Ln ${at.line},`]);
    await waitForProblem(page, ['SL302']);
    const actions = page.locator('.action-widget .monaco-list-row.action');
    const disable = await poll(
      'Disable SL101 in the quick-fix menu',
      async () => {
        await goToLine(page, at.line, at.column);
        await page.keyboard.press('Control+.');
        await actions.first().waitFor({ state: 'visible', timeout: 5000 });
        const texts = await actions.allInnerTexts();
        const index = texts.findIndex((t) => /Disable SL101 for this file/.test(t));
        return index >= 0 && texts.some((t) => /Disable SL101 for this line/.test(t))
          ? { row: actions.nth(index), texts }
          : false;
      },
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    await shot(page, 'ed-disable-actions-menu');
    await disable.row.click();
    await poll('the ignore-file comment on line 1', async () => {
      await goToLine(page, 1, 1);
      return (await editorText(page))
        .split('\n')
        .some((l) => l.startsWith('# shardlens: ignore-file[SL101]'));
    });
    await poll(
      'SL101 to leave the Problems panel',
      async () => !(await problemsRows(page)).some((r) => r.includes('SL101')),
    );
    // Save explicitly: editor.codeActionsOnSave runs source.fixAll.shardlens.
    await page.keyboard.press('Control+S');
    await poll(
      'use_reentrant=False written by fix-all on save',
      async () => /checkpoint\(block, x, use_reentrant=False\)/.test(await editorText(page)),
      { timeoutMs: 30_000 },
    );
    await poll(
      'SL302 to leave the Problems panel',
      async () => !(await problemsRows(page)).some((r) => r.includes('SL302')),
    );
    await shot(page, 'ed-fix-all-on-save');
    const saved = readFileSync(file, 'utf8');
    if (!saved.includes('use_reentrant=False')) throw new Error('the saved file lacks the fix');
    return {
      details: `menu: ${disable.texts.map((t) => t.replace(/\s+/g, ' ')).join(' | ')}; saved file has ignore-file[SL101] and use_reentrant=False`,
    };
  } finally {
    writeFileSync(join(folder, '.vscode', 'settings.json'), original);
    writeFileSync(file, originalText);
  }
}

/** The editor scenarios, run after the general UI scenarios on the same page. */
export const editorScenarios = [
  {
    name: 'ed-status-output',
    title: 'status bar for Python only; Output logs start',
    run: statusBarAndOutput,
  },
  { name: 'ed-cluster-picker', title: 'picker: Enter keeps current, ids filter', run: clusterPicker },
  { name: 'ed-inlay-hints', title: 'inlay hint short, tooltip, refreshed', run: inlayHints },
  { name: 'ed-problems-docs', title: 'short messages; docs open rendered', run: problemsAndDocs },
  { name: 'ed-disable-fix-all', title: 'disable for file; fix-all on save', run: disableAndFixAll },
];

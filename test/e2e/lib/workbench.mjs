// Playwright helpers for the code-server workbench in headless Debian Chromium: launch,
// command palette with retries, quick open, go to line, hover, Problems panel, terminal
// text and webview frames. Every wait polls with a timeout; nothing relies on a fixed sleep.
/* global document, window */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** Launches Chromium with a fresh profile folder. */
export async function launchBrowser({ executablePath, profileDir }) {
  rmSync(profileDir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context.setDefaultTimeout(30_000);
  return context;
}

/** Polls `check` (async, returns a truthy value when done) until it succeeds or times out. */
export async function poll(description, check, { timeoutMs = 30_000, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail =
        last instanceof Error ? last.message.split('\n')[0] : JSON.stringify(last)?.slice(0, 300);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description} (last: ${detail})`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Opens the workbench on `folder` and waits until it has painted and the explorer lists files. */
export async function openWorkbench(page, { url, folder }) {
  await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`, { waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  await poll(
    'the explorer to list the workspace',
    async () => (await page.locator('.explorer-folders-view .monaco-list-row').count()) > 0,
    {
      timeoutMs: 90_000,
    },
  );
}

/** Text of the visible quick input list rows. */
async function quickInputRows(page) {
  return page.locator('.quick-input-widget .quick-input-list .monaco-list-row').allInnerTexts();
}

/**
 * Accepts the quick input row at `index`: Enter when it is the first (focused) row, else a click.
 * NOTE: a click can wait out its timeout while the list re-renders (Quick Open refining its
 * results); Enter on the focused row does not, and a short click timeout lets callers retry.
 * A click refused for the whole timeout (twice in CI, for 60 s of retries, with the row in
 * view) falls back to the arrow keys, as long as the quick input still has the focus: the
 * keys then cannot reach the editor.
 */
async function pickRow(page, index) {
  if (index === 0) return page.keyboard.press('Enter');
  try {
    await page
      .locator('.quick-input-widget .quick-input-list .monaco-list-row')
      .nth(index)
      .click({ timeout: 5000 });
  } catch (error) {
    const input = page.locator('.quick-input-widget input');
    const focused = await input.evaluate((element) => element === document.activeElement).catch(() => false);
    if (!focused) throw error;
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
  }
}

/** Presses Escape until no quick input, hover or context widget is open. */
export async function dismissWidgets(page) {
  for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
}

/**
 * Runs a command by its palette title (e.g. "Shardlens: Benchmark This Layer"). Retries:
 * a freshly installed extension's commands can be missing for seconds after the workbench paints.
 */
export async function runCommand(page, title, { timeoutMs = 60_000 } = {}) {
  const input = page.locator('.quick-input-widget input');
  await poll(
    `the command "${title}" in the palette`,
    async () => {
      await dismissWidgets(page);
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 5000 });
      await input.fill(`>${title}`);
      const rows = await poll(
        'palette rows',
        async () => {
          const texts = await quickInputRows(page);
          return texts.length > 0 ? texts : null;
        },
        { timeoutMs: 3000 },
      ).catch(() => []);
      const index = rows.findIndex(
        (text) =>
          text.split('\n')[0].trim().toLowerCase() === title.toLowerCase() ||
          text.toLowerCase().startsWith(title.toLowerCase()),
      );
      if (index < 0) return false;
      await pickRow(page, index);
      return true;
    },
    { timeoutMs, intervalMs: 1000 },
  );
}

/** Opens a workspace file by its relative path through Quick Open. */
export async function openFile(page, relativePath) {
  const name = relativePath.split('/').pop();
  const input = page.locator('.quick-input-widget input');
  await poll(
    `quick open to find ${relativePath}`,
    async () => {
      await dismissWidgets(page);
      await page.keyboard.press('Control+P');
      await input.waitFor({ state: 'visible', timeout: 5000 });
      await input.fill(relativePath);
      const rows = await poll(
        'quick open rows',
        async () => {
          const texts = await quickInputRows(page);
          return texts.some((t) => t.includes(name)) ? texts : null;
        },
        { timeoutMs: 5000 },
      ).catch(() => []);
      const index = rows.findIndex((t) => t.includes(name));
      if (index < 0) return false;
      await pickRow(page, index);
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  // The window title starts with the active editor's name ("model.py - folder - code-server",
  // "● model.py - …" when it has unsaved changes).
  await poll(`the editor for ${name} to be active`, async () =>
    (await page.title()).replace(/^● /, '').startsWith(`${name} `),
  );
  await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor();
}

/** Moves the cursor to a 1-based line and column with Quick Open's `:line:column`. */
export async function goToLine(page, line, column = 1) {
  const input = page.locator('.quick-input-widget input');
  // NOTE: Ctrl+G does not reach Go to Line in the browser; Quick Open's ":" prefix does the same.
  await poll(
    `go to ${line}:${column}`,
    async () => {
      await dismissWidgets(page);
      await page.keyboard.press('Control+P');
      await input.waitFor({ state: 'visible', timeout: 5000 });
      await input.fill(`:${line}:${column}`);
      await page.keyboard.press('Enter');
      await input.waitFor({ state: 'hidden', timeout: 5000 });
      const status = await page
        .locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+/ })
        .first()
        .innerText();
      return status.includes(`Ln ${line}, Col ${column}`);
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
}

/** Visible text of the editor's lines (only what is rendered). */
export async function editorText(page) {
  // Monaco renders spaces as non-breaking spaces.
  return (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(
    /\u00a0/g,
    ' ',
  );
}

/**
 * Shows the hover at the cursor (editor.action.showHover) and returns its text once it
 * contains every string in `expect` (or any text when `expect` is empty).
 */
export async function hoverAtCursor(page, { expect = [], timeoutMs = 60_000 } = {}) {
  const hover = page.locator('.monaco-editor .monaco-hover:not(.hidden)');
  return poll(
    `a hover containing ${expect.map(String).join(' and ')}`,
    async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      const text = await poll(
        'hover text',
        async () => {
          const texts = await hover.allInnerTexts();
          const joined = texts.join('\n').trim();
          return joined && !/^Loading/.test(joined) ? joined : null;
        },
        { timeoutMs: 5000 },
      ).catch(() => '');
      return text && expect.every((e) => (e instanceof RegExp ? e.test(text) : text.includes(e)))
        ? text
        : false;
    },
    { timeoutMs, intervalMs: 1000 },
  );
}

/** Opens the Problems panel and returns its rows' text. */
export async function problemsRows(page) {
  const panel = page.locator('.markers-panel');
  if (!(await panel.isVisible().catch(() => false))) {
    await page.keyboard.press('Control+Shift+M');
    await panel.waitFor({ state: 'visible', timeout: 10_000 });
  }
  return panel.locator('.monaco-list-row').allInnerTexts();
}

/** Waits for a Problems row whose text matches every string given, and returns its locator. */
export async function waitForProblem(page, parts, { timeoutMs = 60_000 } = {}) {
  const row = () =>
    parts.reduce(
      (loc, part) => loc.filter({ hasText: part }),
      page.locator('.markers-panel .monaco-list-row'),
    );
  await poll(
    `a Problems row with ${JSON.stringify(parts)}`,
    async () => {
      await problemsRows(page);
      return (await row().count()) > 0;
    },
    { timeoutMs, intervalMs: 500 },
  );
  return row().first();
}

/** The frame inside a webview (iframe.webview, then #active-frame) whose body has `selector`. */
export async function webviewFrame(page, selector, { timeoutMs = 60_000 } = {}) {
  return poll(
    `a webview containing ${selector}`,
    async () => {
      for (const handle of await page.locator('iframe.webview').elementHandles()) {
        const outer = await handle.contentFrame();
        if (!outer) continue;
        const innerHandle = await outer.$('#active-frame');
        const inner = innerHandle && (await innerHandle.contentFrame());
        if (inner && (await inner.$(selector))) return inner;
      }
      return null;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** Text of the terminal panel's rows (DOM renderer; GPU acceleration is off in the settings). */
export async function terminalText(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.terminal-wrapper .xterm-rows')].map((el) => el.innerText).join('\n'),
  );
}

/** Saves a screenshot to `dir/name.png` and returns its path. */
export async function screenshot(page, dir, name) {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** The workbench's own notion of readiness: used to detect a page that never loaded. */
export async function workbenchTitle(page) {
  return page.evaluate(() => window.document.title);
}

// Benchmarks over a real LSP connection: latency from didChange to the publishDiagnostics
// of that version (in process, debounce 0), hover latency, and the RSS of a spawned
// `dist/server.js --stdio` after 10,000 random edits relative to after the first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileUri, spawnServer, startInProcess } from '../helpers/lsp-client';
import { RandomEditor, lineBreakOf, positionAt } from './edits';
import { Dice, generateTrainingFile } from './generate';
import { PublishWatcher } from './lsp-timing';
import { median, nowMs, percentile, round } from './stats';
import { processParseCounts } from '../../server/src/parse/incremental';
import { kindCarryCounts } from '../../server/src/analysis/kind-carry';
import type { Parser } from 'web-tree-sitter';
import { parseSource } from '../../server/src/parse/parser';

const FAST_SETTINGS = { diagnostics: { debounceMs: 0 } };

/** Edit-to-diagnostics latency on a large file. */
export interface EditLatency {
  label: string;
  lines: number;
  edits: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** The slowest of the first WARM_UP_EDITS keystrokes after opening the file (not in the samples). */
  coldMaxMs: number;
  /** Versions re-parsed from the previous tree / parsed fresh (syntax errors, first open). */
  incrementalParses?: number;
  freshParses?: number;
  /** Function analyses (per function and round) carried from the previous version / walked again. */
  carriedFunctions?: number;
  walkedFunctions?: number;
}

/** Hover latency. */
export interface HoverLatency {
  lines: number;
  requests: number;
  answered: number;
  p50Ms: number;
  p95Ms: number;
}

/** Server memory over many edits. */
export interface MemoryGrowth {
  edits: number;
  lines: number;
  rssAfterFirstMB: number;
  rssAfterAllMB: number;
  /** RSS after all edits / after the first edit. */
  ratio: number;
  /** RSS after all edits / after the first 1,000 (issue 13's measure). */
  ratioToFirstThousand: number;
  samplesMB: number[];
}

/** Keystrokes after opening a file that are timed but not sampled (see measureEditLatency). */
export const WARM_UP_EDITS = 10;

/**
 * The keystrokes of the edit benchmark: `comment` types `#` at the start of a line and
 * deletes it (the first session's measure); `identifier` types a letter inside the first
 * word of a line and deletes it (a rename in progress, which changes what the rules see);
 * `statement` opens a line in a block, types a line of code a character a keystroke as VS
 * Code does (brackets closed as they open), and deletes the line (many versions have a syntax
 * error: an unfinished expression). Its sites are the lines `statementSites` finds.
 * `error` types a letter at the start of an indented line of code, before its indentation,
 * and deletes it: every version it types has a syntax error (the worst case of a keystroke
 * anywhere in a file: each such version is parsed afresh).
 * `random` types one of {@link RANDOM_KEYS} at a seeded random offset anywhere in the file
 * (inside strings, comments, words, indentation) and deletes it: no site is chosen for it.
 */
export type Keystroke = 'comment' | 'identifier' | 'statement' | 'error' | 'random';

/**
 * What `random` types, as VS Code sends each key by default: a bracket with its closing one,
 * Enter as a line break with the indentation of the line it splits (`\n` stands for it).
 * Quotes come alone: VS Code closes them only before whitespace.
 */
const RANDOM_KEYS = ['q', '7', ' ', '.', ',', ':', '=', '()', '[]', '"', "'", '#', '\n'];

/** What `statement` types on a new line of a block. */
const STATEMENT = 'scale = torch.cat([a, b.view(-1)], dim=0).sum().item()';
/** The bracket VS Code inserts after each opening one (its default `editor.autoClosingBrackets`). */
const CLOSER: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** One keystroke: `[start, end)` of the text at that moment becomes `text`. */
interface Keypress {
  start: number;
  end: number;
  text: string;
}

/** Lines 20 to n-20 of `text`, spread over the file in a fixed order (7919 is prime). */
function spreadLines(lines: readonly string[], count: number, accept: (line: number) => boolean): number[] {
  const found: number[] = [];
  for (let i = 0; found.length < count && i < count * 50; i++) {
    const line = 20 + ((i * 7919) % Math.max(1, lines.length - 40));
    if (accept(line)) found.push(line);
  }
  return found;
}

/**
 * The zero-based lines of `text` that hold one whole assignment statement of a block (an
 * indented line a new statement may follow). Read from the syntax tree: a keyword argument
 * on a line of its own (`num_layers=num_layers,` inside a call) looks the same as text.
 */
export function statementSites(parser: Parser, text: string): Set<number> {
  const parsed = parseSource(parser, text);
  const sites = new Set<number>();
  for (const assignment of parsed.byType.get('assignment') ?? []) {
    const statement = assignment.parent;
    if (statement?.type !== 'expression_statement' || statement.parent?.type !== 'block') continue;
    if (statement.children.length !== 1) continue;
    const { start, end } = statement;
    if (start.line === end.line) sites.add(start.line);
  }
  return sites;
}

/**
 * At least `count` keypresses of kind `keystroke` on `text`, in order; `statement` types at
 * lines of `statementLines` (see {@link statementSites}).
 */
export function keypresses(
  text: string,
  keystroke: Keystroke,
  count: number,
  statementLines: ReadonlySet<number> = new Set(),
): Keypress[] {
  const rawLines = text.split('\n');
  const lineStarts: number[] = [];
  for (let i = 0, offset = 0; i < rawLines.length; offset += rawLines[i].length + 1, i++)
    lineStarts.push(offset);
  // A line's text without its break, in `\r\n` files too (typing goes before the `\r`).
  const lines = rawLines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const presses: Keypress[] = [];
  if (keystroke === 'statement') {
    // An assignment statement of a block, whole on its line, followed by a line of the same
    // indentation (the block's next statement).
    const indentOf = (line: number) => /^[ \t]*/.exec(lines[line] ?? '')![0];
    const perSite = STATEMENT.length + 2;
    const chosen = spreadLines(
      lines,
      Math.ceil(count / (perSite + 1)) + 1,
      (line) =>
        statementLines.has(line) &&
        indentOf(line + 1) === indentOf(line) &&
        /^[ \t]*[A-Za-z_]/.test(lines[line + 1] ?? ''),
    );
    for (const line of chosen) {
      // Enter at the end of the line (the editor indents the new line), then the statement
      // as VS Code types it by default: an opening bracket brings its closing one, which
      // typing it then steps over (no change). Then the new line is deleted in one change.
      const end = lineStarts[line] + lines[line].length;
      const newLine = `${lineBreakOf(text)}${indentOf(line)}`;
      presses.push({ start: end, end, text: newLine });
      let cursor = end + newLine.length;
      const closers: string[] = [];
      for (const typed of STATEMENT) {
        if (closers[closers.length - 1] === typed) {
          closers.pop();
          cursor++;
          continue;
        }
        const closer = CLOSER[typed];
        presses.push({ start: cursor, end: cursor, text: closer ? typed + closer : typed });
        if (closer) closers.push(closer);
        cursor++;
      }
      presses.push({ start: end, end: cursor, text: '' });
      // Each site's text is deleted again: the next site's offsets hold.
      if (presses.length >= count) break;
    }
    return presses;
  }
  if (keystroke === 'random') return randomPresses(text, count);
  // One site per two sampled keystrokes; the warm-up takes the first sites, which the last
  // samples visit again.
  const sites = spreadLines(lines, Math.ceil((count - WARM_UP_EDITS) / 2), (line) => {
    if (keystroke === 'comment') return true;
    if (keystroke === 'error') return INDENTED_CODE.test(lines[line] ?? '');
    const word = FIRST_WORD.exec(lines[line] ?? '');
    return !!word && !KEYWORD.test(word[0]);
  });
  const typed = keystroke === 'comment' ? '#' : 'q';
  const atLineStart = keystroke === 'comment' || keystroke === 'error';
  for (let i = 0; sites.length && presses.length < count; i++) {
    const line = sites[i % sites.length];
    const at = lineStarts[line] + (atLineStart ? 0 : FIRST_WORD.exec(lines[line])!.index + 1);
    presses.push({ start: at, end: at, text: typed }, { start: at, end: at + 1, text: '' });
  }
  return presses;
}

/** `random`'s keystrokes: each of {@link RANDOM_KEYS} at a seeded offset, then its deletion. */
function randomPresses(text: string, count: number): Keypress[] {
  const dice = new Dice(13);
  const presses: Keypress[] = [];
  while (presses.length < count && text.length > 0) {
    let at = dice.int(0, text.length);
    // Never between the `\r` and the `\n` of a line break.
    if (text[at - 1] === '\r' && text[at] === '\n') at++;
    let typed = dice.pick(RANDOM_KEYS);
    if (typed === '\n') {
      const lineStart = Math.max(text.lastIndexOf('\n', at - 1), text.lastIndexOf('\r', at - 1)) + 1;
      const indentation = /^[ \t]*/.exec(text.slice(lineStart, at))![0];
      typed = `${lineBreakOf(text)}${indentation}`;
    }
    presses.push({ start: at, end: at, text: typed }, { start: at, end: at + typed.length, text: '' });
  }
  return presses;
}

/** A line `error` types before: indented code. */
const INDENTED_CODE = /^[ \t]+[A-Za-z_]/;
/** The word `identifier` types into: the first of three or more letters on the line. */
const FIRST_WORD = /[A-Za-z_][A-Za-z_]{2,}/;
const KEYWORD =
  /^(def|class|import|from|return|for|while|if|elif|else|with|try|except|assert|and|not|or|in|is|lambda|pass|raise|yield|async|await|global|del|True|False|None)$/;

/** Measures didChange → publishDiagnostics on `text`, `edits` keystrokes (each followed by its undo). */
export async function measureEditLatency(input: {
  label: string;
  text: string;
  edits: number;
  keystroke: Keystroke;
  /** Reads the statement sites (see {@link statementSites}). */
  parser: Parser;
  /** Spawn `dist/server.js --stdio` from this repository instead of serving in process. */
  stdioFrom?: string;
  /** Send the whole text with each change, as a client with full document sync does. */
  wholeText?: boolean;
}): Promise<EditLatency> {
  const { text, edits, keystroke } = input;
  const spawned = input.stdioFrom ? spawnServer(join(input.stdioFrom, 'dist', 'server.js')) : undefined;
  const pair = spawned
    ? { client: spawned.client, dispose: async () => void (await spawned.client.shutdown(), spawned.stop()) }
    : startInProcess();
  const { client } = pair;
  const watcher = new PublishWatcher(client);
  try {
    await client.initialize({ settings: FAST_SETTINGS });
    const uri = fileUri(`/tmp/shardlens-bench/latency-${input.label.replace(/\W+/g, '-')}.py`);
    await client.open(uri, text);
    await watcher.waitFor(uri, 1);
    const before = { ...processParseCounts };
    const carriedBefore = { ...kindCarryCounts };
    const samples: number[] = [];
    // Keystrokes on lines spread over the file: a keystroke and its undo, or a statement typed
    // and deleted. The first WARM_UP_EDITS are not samples: a server that just opened the file
    // runs its analysis mostly unoptimised by V8 for the first few versions (reported apart,
    // as `coldMaxMs`).
    const sites = keystroke === 'statement' ? statementSites(input.parser, text) : undefined;
    const presses = keypresses(text, keystroke, edits + WARM_UP_EDITS, sites).slice(0, edits + WARM_UP_EDITS);
    const cold: number[] = [];
    let current = text;
    for (let i = 0; i < presses.length; i++) {
      const { start: from, end: to, text: typed } = presses[i];
      const range = { start: positionAt(current, from), end: positionAt(current, to) };
      current = current.slice(0, from) + typed + current.slice(to);
      const start = nowMs();
      const version = input.wholeText
        ? await client.replace(uri, current)
        : await client.change(uri, [{ range, text: typed }]);
      const arrived = await watcher.waitFor(uri, version);
      (i < WARM_UP_EDITS ? cold : samples).push(arrived - start);
    }
    return {
      label: input.label,
      lines: text.split('\n').length,
      edits: samples.length,
      p50Ms: round(median(samples)),
      p95Ms: round(percentile(samples, 95)),
      maxMs: round(Math.max(...samples)),
      coldMaxMs: round(Math.max(...cold)),
      // A spawned server's parse counters live in its own process.
      ...(spawned
        ? {}
        : {
            incrementalParses: processParseCounts.incremental - before.incremental,
            freshParses: processParseCounts.fresh - before.fresh,
            carriedFunctions: kindCarryCounts.carried - carriedBefore.carried,
            walkedFunctions: kindCarryCounts.walked - carriedBefore.walked,
          }),
    };
  } finally {
    await pair.dispose();
  }
}

/** Measures hover round trips at identifiers spread over a `lines`-line file. */
export async function measureHover(lines: number, requests: number): Promise<HoverLatency> {
  const pair = startInProcess();
  const { client } = pair;
  const watcher = new PublishWatcher(client);
  try {
    await client.initialize({ settings: FAST_SETTINGS });
    const uri = fileUri('/tmp/shardlens-bench/hover.py');
    const text = generateTrainingFile({ lines, seed: 6 });
    await client.open(uri, text);
    await watcher.waitFor(uri, 1);
    const targets: { line: number; character: number }[] = [];
    const pattern = /\b(class \w+|nn\.\w+|self\.\w+|model|loss|optimizer|DDP)\b/g;
    for (const match of text.matchAll(pattern)) targets.push(positionAt(text, match.index! + 1));
    const step = Math.max(1, Math.floor(targets.length / requests));
    const chosen = targets.filter((_, i) => i % step === 0).slice(0, requests);
    await client.hover(uri, chosen[0]);
    const samples: number[] = [];
    let answered = 0;
    for (const position of chosen) {
      const start = nowMs();
      const hover = await client.hover(uri, position);
      samples.push(nowMs() - start);
      if (hover) answered++;
    }
    return {
      lines,
      requests: chosen.length,
      answered,
      p50Ms: round(median(samples)),
      p95Ms: round(percentile(samples, 95)),
    };
  } finally {
    await pair.dispose();
  }
}

/** Resident set size of a process in MB, from /proc. */
export function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) / 1024;
}

/** Spawns the bundled server, applies `edits` random edits (each analysed), and compares RSS. */
export async function measureMemory(input: {
  repoRoot: string;
  edits: number;
  lines: number;
}): Promise<MemoryGrowth> {
  const server = spawnServer(join(input.repoRoot, 'dist', 'server.js'));
  const { client, pid } = server;
  const watcher = new PublishWatcher(client);
  try {
    await client.initialize({ settings: FAST_SETTINGS });
    const uri = fileUri('/tmp/shardlens-bench/memory.py');
    const text = generateTrainingFile({ lines: input.lines, seed: 8 });
    await client.open(uri, text);
    await watcher.waitFor(uri, 1);
    const editor = new RandomEditor(9, text);
    let rssAfterFirst = 0;
    const samples: number[] = [];
    for (let i = 1; i <= input.edits; i++) {
      const version = await client.change(uri, [editor.next()]);
      await watcher.waitFor(uri, version);
      if (i === 1) rssAfterFirst = rssMB(pid);
      if (i % 1000 === 0) {
        samples.push(round(rssMB(pid), 1));
        watcher.clear();
        // NOTE: keep the drifting text near its original size so every analysis costs the same.
        if (editor.text.length > text.length * 2 || editor.text.length < text.length / 2) {
          const all = client.document(uri).getText();
          const reset = await client.change(uri, [
            { range: { start: { line: 0, character: 0 }, end: positionAt(all, all.length) }, text },
          ]);
          editor.text = text;
          await watcher.waitFor(uri, reset);
        }
      }
    }
    const rssAfterAll = rssMB(pid);
    await client.shutdown(true);
    return {
      edits: input.edits,
      lines: input.lines,
      rssAfterFirstMB: round(rssAfterFirst, 1),
      rssAfterAllMB: round(rssAfterAll, 1),
      ratio: round(rssAfterAll / rssAfterFirst, 3),
      ratioToFirstThousand: round(rssAfterAll / (samples[0] ?? rssAfterAll), 3),
      samplesMB: samples,
    };
  } catch (error) {
    throw new Error(`${(error as Error).message}\nserver stderr: ${server.stderr().slice(0, 2000)}`);
  } finally {
    server.stop();
  }
}

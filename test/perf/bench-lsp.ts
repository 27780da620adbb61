// Benchmarks over a real LSP connection: latency from didChange to the publishDiagnostics
// of that version (in process, debounce 0), hover latency, and the RSS of a spawned
// `dist/server.js --stdio` after 10,000 random edits relative to after the first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileUri, spawnServer, startInProcess } from '../helpers/lsp-client';
import { RandomEditor, positionAt } from './edits';
import { generateTrainingFile } from './generate';
import { PublishWatcher } from './lsp-timing';
import { median, nowMs, percentile, round } from './stats';
import { processParseCounts } from '../../server/src/parse/incremental';
import { kindCarryCounts } from '../../server/src/analysis/kind-carry';

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
 * word of a line and deletes it (a rename in progress, which changes what the rules see).
 */
export type Keystroke = 'comment' | 'identifier';

function keystrokeSites(
  text: string,
  keystroke: Keystroke,
  count: number,
): { line: number; character: number }[] {
  const lines = text.split('\n');
  const sites: { line: number; character: number }[] = [];
  for (let i = 0; sites.length < count && i < count * 50; i++) {
    const line = 20 + ((i * 7919) % Math.max(1, lines.length - 40));
    if (keystroke === 'comment') sites.push({ line, character: 0 });
    else {
      const word = /[A-Za-z_][A-Za-z_]{2,}/.exec(lines[line] ?? '');
      if (
        word &&
        !/^(def|class|import|from|return|for|while|if|elif|else|with|try|except|assert|and|not|or|in|is|lambda|pass|raise|yield|async|await|global|del|True|False|None)$/.test(
          word[0],
        )
      )
        sites.push({ line, character: word.index + 1 });
    }
  }
  return sites;
}

/** Measures didChange → publishDiagnostics on `text`, `edits` keystrokes (each followed by its undo). */
export async function measureEditLatency(input: {
  label: string;
  text: string;
  edits: number;
  keystroke: Keystroke;
  /** Spawn `dist/server.js --stdio` from this repository instead of serving in process. */
  stdioFrom?: string;
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
    const sites = keystrokeSites(text, keystroke, Math.ceil(edits / 2));
    const typed = keystroke === 'comment' ? '#' : 'q';
    // A keystroke and its undo, alternately, on lines spread over the file. The first
    // WARM_UP_EDITS are not samples: a server that just opened the file runs its analysis
    // mostly unoptimised by V8 for the first few versions (reported apart, as `coldMaxMs`).
    const cold: number[] = [];
    for (let i = 0; i < edits + WARM_UP_EDITS && sites.length; i++) {
      const at = sites[Math.floor(i / 2) % sites.length];
      const start = nowMs();
      const version =
        i % 2 === 0
          ? await client.insert(uri, at, typed)
          : await client.change(uri, [
              { range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: '' },
            ]);
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

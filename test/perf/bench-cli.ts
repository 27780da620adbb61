// Benchmark: CLI throughput (files/s, MB/s) on a generated corpus, and the same corpus
// through the pyright CLI (default options, JSON output) for scale.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { parseOnly } from '../../server/src/parse/parser';
import { pythonFilesUnder } from './bench-real';
import { Dice, generateTrainingFile } from './generate';
import { median, nowMs, round } from './stats';

/** Results of the throughput comparison. */
export interface CliThroughput {
  files: number;
  megabytes: number;
  lines: number;
  shardlensSeconds: number;
  shardlensFilesPerSecond: number;
  shardlensMBPerSecond: number;
  shardlensRuns: number;
  pyrightSeconds: number | null;
  pyrightFilesPerSecond: number | null;
  pyrightFilesAnalyzed: number | null;
  /** How many times faster than pyright (issue 13's target: at least 25). */
  pyrightOverShardlens: number | null;
  /** Our time over pyright's (below 1 means faster). */
  shardlensOverPyright: number | null;
  pyrightNote: string;
  /** A bare single-thread tree-sitter parse of the same files, in process (no analysis, no I/O counted). */
  bareParseSeconds: number | null;
  /** pyright time / bare parse time: the most any tree-sitter tool on one core could reach. */
  pyrightOverBareParse: number | null;
}

/** Writes `files` generated training files (20 to 200 lines) into a new temporary folder. */
export function writeCorpus(files: number, seed = 42): { dir: string; bytes: number; lines: number } {
  const dir = mkdtempSync(join(tmpdir(), 'shardlens-corpus-'));
  const dice = new Dice(seed);
  let bytes = 0;
  let lines = 0;
  for (let i = 0; i < files; i++) {
    const folder = join(dir, `pkg${i % 20}`);
    if (i < 20) mkdirSync(folder);
    const count = dice.int(20, 200);
    const text = generateTrainingFile({ lines: count, seed: seed * 100_003 + i });
    writeFileSync(join(folder, `train_${i}.py`), text);
    bytes += Buffer.byteLength(text);
    lines += count;
  }
  return { dir, bytes, lines };
}

function timeCommand(command: string, args: string[], cwd: string, outFile: string, timeoutMs: number) {
  const out = openSync(outFile, 'w');
  try {
    const start = nowMs();
    const result = spawnSync(command, args, {
      cwd,
      stdio: ['ignore', out, 'pipe'],
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    return {
      seconds: (nowMs() - start) / 1000,
      status: result.status,
      signal: result.signal,
      stderr: String(result.stderr ?? ''),
    };
  } finally {
    closeSync(out);
  }
}

/** Seconds to parse every `.py` file under `dir` once, bare, on this thread (files read first). */
function bareParseTime(parser: Parser, dir: string): number {
  const texts = pythonFilesUnder(dir).map((path) => readFileSync(path, 'utf8'));
  const start = nowMs();
  for (const text of texts) parseOnly(parser, text);
  return (nowMs() - start) / 1000;
}

/** Copies the first `count` files of `files` (paths under `root`) into a new temporary folder, keeping their relative paths. */
export function sampleCorpus(
  root: string,
  files: readonly string[],
  count: number,
): { dir: string; files: number; bytes: number; lines: number } {
  const dir = mkdtempSync(join(tmpdir(), 'shardlens-real-'));
  let bytes = 0;
  let lines = 0;
  for (const path of files.slice(0, count)) {
    const target = join(dir, relative(root, path));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(path, target);
    const text = readFileSync(path, 'utf8');
    bytes += Buffer.byteLength(text);
    lines += text.split('\n').length;
  }
  return { dir, files: Math.min(count, files.length), bytes, lines };
}

/** Runs our CLI `runs` times and pyright once over a corpus of `files` files. */
export function measureCli(input: {
  repoRoot: string;
  files: number;
  runs: number;
  pyright: boolean;
  /** A folder of real files to use instead of a generated corpus (left in place). */
  existing?: { dir: string; files: number; bytes: number; lines: number };
  /** When given, the same files are also parsed bare with it, for the bound above. */
  parser?: Parser;
}): CliThroughput {
  const corpus = input.existing ?? writeCorpus(input.files);
  const files = input.existing?.files ?? input.files;
  const outFile = join(tmpdir(), `shardlens-bench-out-${process.pid}.json`);
  try {
    const ours: number[] = [];
    for (let i = 0; i < input.runs; i++) {
      const run = timeCommand(
        process.execPath,
        [join(input.repoRoot, 'dist', 'cli.js'), 'check', '.', '--format', 'json', '--fail-on', 'never'],
        corpus.dir,
        outFile,
        600_000,
      );
      if (run.status !== 0)
        throw new Error(`shardlens check exited ${run.status}: ${run.stderr.slice(0, 2000)}`);
      const findings = JSON.parse(readFileSync(outFile, 'utf8'));
      if (!Array.isArray(findings) && typeof findings !== 'object')
        throw new Error('shardlens check printed no JSON');
      ours.push(run.seconds);
    }
    const seconds = median(ours);
    const megabytes = corpus.bytes / 1024 / 1024;
    let pyrightSeconds: number | null = null;
    let pyrightFilesAnalyzed: number | null = null;
    let pyrightNote = 'not run';
    if (input.pyright) {
      const run = timeCommand(
        process.execPath,
        [join(input.repoRoot, 'node_modules', 'pyright', 'index.js'), '--outputjson'],
        corpus.dir,
        outFile,
        1_800_000,
      );
      try {
        const report = JSON.parse(readFileSync(outFile, 'utf8')) as {
          summary?: { filesAnalyzed?: number; timeInSec?: number };
        };
        pyrightFilesAnalyzed = report.summary?.filesAnalyzed ?? null;
        pyrightSeconds = run.seconds;
        pyrightNote = `pyright ${run.status === 1 ? 'found type errors (exit 1), as expected without torch stubs' : `exit ${run.status}`}; its own timeInSec ${report.summary?.timeInSec}`;
      } catch {
        pyrightNote = `pyright failed (status ${run.status}, signal ${run.signal}): ${run.stderr.slice(0, 500)}`;
      }
    }
    const bareParseSeconds = input.parser ? bareParseTime(input.parser, corpus.dir) : null;
    return {
      bareParseSeconds: bareParseSeconds === null ? null : round(bareParseSeconds, 2),
      pyrightOverBareParse:
        bareParseSeconds === null || pyrightSeconds === null
          ? null
          : round(pyrightSeconds / bareParseSeconds, 1),
      files,
      megabytes: round(megabytes, 2),
      lines: corpus.lines,
      shardlensSeconds: round(seconds, 2),
      shardlensFilesPerSecond: round(files / seconds, 0),
      shardlensMBPerSecond: round(megabytes / seconds, 2),
      shardlensRuns: input.runs,
      pyrightSeconds: pyrightSeconds === null ? null : round(pyrightSeconds, 2),
      pyrightFilesPerSecond: pyrightSeconds === null ? null : round(files / pyrightSeconds, 0),
      pyrightFilesAnalyzed,
      shardlensOverPyright: pyrightSeconds === null ? null : round(seconds / pyrightSeconds, 3),
      pyrightOverShardlens: pyrightSeconds === null ? null : round(pyrightSeconds / seconds, 1),
      pyrightNote,
    };
  } finally {
    if (!input.existing) rmSync(corpus.dir, { recursive: true, force: true });
    rmSync(outFile, { force: true });
  }
}

// Benchmark inputs from real code: the development corpus (SHARDLENS_CORPUS, default
// /work/corpus; public repositories checked out there, never copied into the project).
// Picks the files nearest a line count for the edit benchmark, and measures whole-file
// analysis against the bare parse over every file of the corpus.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { parseOnly } from '../../server/src/parse/parser';
import { analyzeText, MAX_ANALYSED_BYTES } from '../../server/src/analyzer';
import { mayUseTorch } from '../../server/src/analysis/file-model';
import { mergeSettings } from '../../server/src/config/settings';
import { nowMs, round } from './stats';

/** The corpus folder, or undefined when it is not on this machine. */
export function corpusDir(): string | undefined {
  const dir = process.env.SHARDLENS_CORPUS ?? '/work/corpus';
  return existsSync(dir) ? dir : undefined;
}

/** Every `.py` file under `dir`, sorted (symlinks not followed). */
export function pythonFilesUnder(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory() && !name.startsWith('.')) pythonFilesUnder(path, found);
    else if (stat.isFile() && name.endsWith('.py')) found.push(path);
  }
  return found;
}

/** A training script's evidence: it runs a backward pass or an optimizer step itself. */
export const TRAINS = /\.backward\(|optimizer\.step\(/;

/** The file that imports torch (and matches `also`, when given) whose line count is nearest `lines`. */
export function fileNear(
  files: readonly string[],
  lines: number,
  also?: RegExp,
): { path: string; text: string; lines: number } {
  let best: { path: string; text: string; lines: number } | undefined;
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    if (!/^\s*(import torch|from torch)/m.test(text) || (also && !also.test(text))) continue;
    const count = text.split('\n').length;
    if (!best || Math.abs(count - lines) < Math.abs(best.lines - lines)) best = { path, text, lines: count };
  }
  if (!best) throw new Error('no file imports torch');
  return best;
}

/** Whole-file analysis time over bare parse time, summed over a corpus. */
export interface CorpusRatio {
  files: number;
  megabytes: number;
  parseSeconds: number;
  analysisSeconds: number;
  /** analysis (parse included) / parse, as the server analyses an open file (every file parsed and modelled). */
  ratio: number;
  /** The same as `shardlens check` analyses (`findingsOnly`: a file whose imports name no framework is not parsed). */
  checkSeconds: number;
  checkRatio: number;
  /** Only the files that name a PyTorch framework: how many, and the server's ratio on them. */
  torchFiles: number;
  torchRatio: number;
  /** Files whose parse has syntax errors (re-parsed fresh on every edit in the server). */
  filesWithSyntaxErrors: number;
  /**
   * The same files parsed as Shardlens parses them, with its own text copy (text-input.ts);
   * `parseSeconds` is web-tree-sitter's parse as published, the ratios' basis.
   */
  ownParseSeconds: number;
  /** The server's ratio with Shardlens's own parse as the basis: every file, the framework files. */
  ratioToOwnParse: number;
  torchRatioToOwnParse: number;
}

/** Parses and analyses each file of `files`, side by side, `rounds` times; sums the best round of each. */
export function measureCorpusRatio(parser: Parser, files: readonly string[], rounds = 2): CorpusRatio {
  const settings = mergeSettings({});
  let parse = 0;
  let analysis = 0;
  let check = 0;
  let torchFiles = 0;
  let torchParse = 0;
  let torchAnalysis = 0;
  let ownParse = 0;
  let torchOwnParse = 0;
  let bytes = 0;
  let counted = 0;
  let withErrors = 0;
  for (const path of files) {
    const text = readFileSync(path, 'utf8');
    if (Buffer.byteLength(text) > MAX_ANALYSED_BYTES) continue;
    let bestParse = Infinity;
    let bestAnalysis = Infinity;
    let bestCheck = Infinity;
    let bestOwnParse = Infinity;
    for (let i = 0; i < rounds; i++) {
      let t = nowMs();
      parseOnly(parser, text);
      bestParse = Math.min(bestParse, nowMs() - t);
      t = nowMs();
      parser.parse(text)?.delete();
      bestOwnParse = Math.min(bestOwnParse, nowMs() - t);
      t = nowMs();
      const result = analyzeText({ parser, text, filePath: null, settings });
      bestAnalysis = Math.min(bestAnalysis, nowMs() - t);
      if (i === 0 && result.model?.hasSyntaxError) withErrors++;
      t = nowMs();
      analyzeText({ parser, text, filePath: null, settings, findingsOnly: true });
      bestCheck = Math.min(bestCheck, nowMs() - t);
    }
    parse += bestParse;
    ownParse += bestOwnParse;
    analysis += bestAnalysis;
    check += bestCheck;
    if (mayUseTorch(text)) {
      torchFiles++;
      torchParse += bestParse;
      torchOwnParse += bestOwnParse;
      torchAnalysis += bestAnalysis;
    }
    bytes += Buffer.byteLength(text);
    counted++;
  }
  return {
    files: counted,
    megabytes: round(bytes / 1024 / 1024, 1),
    parseSeconds: round(parse / 1000, 2),
    analysisSeconds: round(analysis / 1000, 2),
    ratio: round(analysis / parse),
    checkSeconds: round(check / 1000, 2),
    checkRatio: round(check / parse),
    torchFiles,
    torchRatio: round(torchAnalysis / torchParse),
    filesWithSyntaxErrors: withErrors,
    ownParseSeconds: round(ownParse / 1000, 2),
    ratioToOwnParse: round(analysis / ownParse),
    torchRatioToOwnParse: round(torchAnalysis / torchOwnParse),
  };
}

// Benchmark: analysis time over bare parse time per file size, measured side by side in
// one process (each round runs every stage on the same text), plus the cost of lowering
// through the public TreeCursor API versus the direct wasm walk.
import type { Parser } from 'web-tree-sitter';
import { parseOnly, parseSource } from '../../server/src/parse/parser';
import { activeLoweringWalk, setLoweringWalk, type LoweringWalk } from '../../server/src/parse/direct-walk';
import { buildFileModel } from '../../server/src/analysis/file-model';
import { runRules } from '../../server/src/rules/engine';
import { analyzeText } from '../../server/src/analyzer';
import { mergeSettings } from '../../server/src/config/settings';
import { generateTrainingFile } from './generate';
import { median, nowMs, round } from './stats';

/** One row of the ratio table (milliseconds are medians over the rounds). */
export interface RatioRow {
  lines: number;
  kilobytes: number;
  nodes: number;
  rounds: number;
  parseMs: number;
  lowerMs: number;
  fileModelMs: number;
  rulesMs: number;
  /** analyzeText end to end: parse + lower + FileModel + rules. */
  totalMs: number;
  totalOverParse: number;
  /** (total − parse) / parse: what the analysis adds on top of the parse. */
  extraOverParse: number;
}

/** Lowering through the public cursor API versus the direct walk, on one file. */
export interface LoweringComparison {
  lines: number;
  /** The walk the lowering takes by default (`memory` once its probe check passed). */
  defaultWalk: LoweringWalk;
  parseMs: number;
  /** The lowering alone (parse + lower, less the parse), per walk. */
  lowerCursorApiMs: number;
  lowerExportsMs: number;
  lowerMemoryMs: number;
  /** Public-API time over the default walk's. */
  speedup: number;
}

function countNodes(root: { children: readonly unknown[] }): number {
  let count = 0;
  const stack = [root];
  while (stack.length) {
    const node = stack.pop()!;
    count++;
    for (const child of node.children) stack.push(child as typeof root);
  }
  return count;
}

/** Measures each stage `rounds` times on a generated file of `lines` lines. */
export function measureRatio(parser: Parser, lines: number, rounds: number): RatioRow {
  const text = generateTrainingFile({ lines, seed: lines });
  const settings = mergeSettings({});
  const parse: number[] = [];
  const lower: number[] = [];
  const model: number[] = [];
  const rules: number[] = [];
  const total: number[] = [];
  let nodes = 0;
  // Warm-up: JIT and the wasm heap.
  for (let i = 0; i < 2; i++) analyzeText({ parser, text, filePath: null, settings });
  for (let i = 0; i < rounds; i++) {
    let t = nowMs();
    parseOnly(parser, text);
    parse.push(nowMs() - t);
    t = nowMs();
    const parsed = parseSource(parser, text);
    const parsedMs = nowMs() - t;
    lower.push(parsedMs);
    t = nowMs();
    const fileModel = buildFileModel({ parsed, filePath: null });
    model.push(nowMs() - t);
    t = nowMs();
    runRules(fileModel, settings);
    rules.push(nowMs() - t);
    nodes = countNodes(parsed.root);
    t = nowMs();
    analyzeText({ parser, text, filePath: null, settings });
    total.push(nowMs() - t);
  }
  const parseMs = median(parse);
  const totalMs = median(total);
  return {
    lines,
    kilobytes: round(Buffer.byteLength(text) / 1024, 1),
    nodes,
    rounds,
    parseMs: round(parseMs),
    // parseSource is parse + lower; the lowering alone is the difference of the medians.
    lowerMs: round(Math.max(0, median(lower) - parseMs)),
    fileModelMs: round(median(model)),
    rulesMs: round(median(rules)),
    totalMs: round(totalMs),
    totalOverParse: round(totalMs / parseMs),
    extraOverParse: round((totalMs - parseMs) / parseMs),
  };
}

/** Compares the three lowering walks, alternating them round by round. */
export function compareLowering(parser: Parser, lines: number, rounds: number): LoweringComparison {
  const text = generateTrainingFile({ lines, seed: lines });
  const defaultWalk = activeLoweringWalk();
  const walks: LoweringWalk[] = ['cursor', 'exports', 'memory'];
  const parse: number[] = [];
  const lowering = new Map<LoweringWalk, number[]>(walks.map((walk) => [walk, []]));
  try {
    for (let i = 0; i < rounds + 2; i++) {
      let t = nowMs();
      parseOnly(parser, text);
      const p = nowMs() - t;
      if (i >= 2) parse.push(p);
      for (const walk of walks) {
        setLoweringWalk(walk);
        t = nowMs();
        parseSource(parser, text);
        if (i >= 2) lowering.get(walk)!.push(nowMs() - t);
      }
    }
  } finally {
    setLoweringWalk('memory');
  }
  const parseMs = median(parse);
  const lowerMs = (walk: LoweringWalk) => Math.max(0, median(lowering.get(walk)!) - parseMs);
  return {
    lines,
    defaultWalk,
    parseMs: round(parseMs),
    lowerCursorApiMs: round(lowerMs('cursor')),
    lowerExportsMs: round(lowerMs('exports')),
    lowerMemoryMs: round(lowerMs('memory')),
    speedup: round(lowerMs('cursor') / Math.max(lowerMs(defaultWalk), 0.01), 1),
  };
}

// Hostile inputs shared by the robustness tests: seeded mutations and truncations of
// realistic training files, random bytes, 10,000-deep nesting of several shapes, and
// text with CRLF, a BOM, tabs and astral characters.
import { Dice, generateTrainingFile } from '../perf/generate';

/** Depth of the deep-nesting inputs (recursive walks overflow near 5,700). */
export const DEEP = 10_000;

/** Deletes, inserts, duplicates and swaps random spans of `text`. */
export function mutate(text: string, dice: Dice): string {
  let out = text;
  const operations = dice.int(1, 8);
  for (let i = 0; i < operations; i++) {
    const a = dice.int(0, out.length);
    const b = Math.min(out.length, a + dice.int(0, 200));
    switch (dice.int(0, 4)) {
      case 0:
        out = out.slice(0, a) + out.slice(b);
        break;
      case 1:
        out =
          out.slice(0, a) +
          dice.pick(['(', ')', '[', ':', '\n    ', '"""', "f'{", '\\', '\t', '😀', '\r\n', 'lambda', '**']) +
          out.slice(a);
        break;
      case 2:
        out = out.slice(0, a) + out.slice(a, b) + out.slice(a, b) + out.slice(b);
        break;
      case 3: {
        const c = dice.int(0, out.length);
        const d = Math.min(out.length, c + dice.int(0, 200));
        out =
          c >= b ? out.slice(0, a) + out.slice(c, d) + out.slice(b, c) + out.slice(a, b) + out.slice(d) : out;
        break;
      }
      default:
        out = out.slice(0, a);
    }
  }
  return out;
}

/** `count` mutated or truncated variants of generated training files. */
export function mutatedFiles(count: number, seed: number): string[] {
  const dice = new Dice(seed);
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const base = generateTrainingFile({ lines: dice.int(20, 160), seed: seed + i });
    files.push(dice.chance(0.2) ? base.slice(0, dice.int(0, base.length)) : mutate(base, dice));
  }
  return files;
}

/** Random byte strings decoded as UTF-8 (invalid sequences become U+FFFD) and as Latin-1. */
export function randomByteTexts(count: number, seed: number): string[] {
  const dice = new Dice(seed);
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = Buffer.alloc(dice.int(0, 4096));
    for (let j = 0; j < bytes.length; j++) bytes[j] = dice.int(0, 255);
    texts.push(i % 2 === 0 ? bytes.toString('utf8') : bytes.toString('latin1'));
  }
  return texts;
}

/** 10,000-deep inputs by name; each is a torch script so the rules run on it. */
export function deepInputs(depth = DEEP): Record<string, string> {
  const head = 'import torch\n';
  let ifs = head;
  for (let i = 0; i < depth; i++) ifs += `${' '.repeat(i)}if x${i}:\n`;
  ifs += `${' '.repeat(depth)}loss.item()\n`;
  return {
    parentheses: `${head}y = ${'('.repeat(depth)}x.item()${')'.repeat(depth)}\n`,
    'nested ifs': ifs,
    'binary chain': `${head}y = ${Array.from({ length: depth }, (_, i) => `t${i}`).join(' + ')}\n`,
    'boolean chain': `${head}y = ${Array.from({ length: depth }, (_, i) => `t${i}`).join(' and ')}\n`,
    'comparison chain': `${head}y = ${Array.from({ length: depth }, (_, i) => `t${i}`).join(' < ')}\n`,
    'attribute chain': `${head}y = torch${'.a'.repeat(depth)}.item()\n`,
    'call chain': `${head}y = ${'f('.repeat(depth)}x${')'.repeat(depth)}\n`,
    'method chain': `${head}y = x${'.view(-1)'.repeat(depth)}\n`,
    'nested lists': `${head}y = ${'['.repeat(depth)}1${']'.repeat(depth)}\n`,
    'unary chain': `${head}y = ${'-'.repeat(depth)}x\n`,
    'not chain': `${head}y = ${'not '.repeat(depth)}x\n`,
    'subscript chain': `${head}y = x${'[0]'.repeat(depth)}\n`,
    'nested lambdas': `${head}f = ${'lambda: '.repeat(depth)}x.item()\n`,
    'unclosed brackets': `${head}y = ${'(['.repeat(depth)}\n`,
  };
}

/** Text with CRLF line ends, a BOM, tabs and astral characters, and a known SL101 line. */
export function awkwardText(): { text: string; itemLine: number; itemColumn: number } {
  const lines = [
    '\uFEFFimport torch',
    '# 𝒳 astral 😀 characters before the finding',
    'for x, y in loader:',
    '\tloss = model(x).sum()  # tab-indented',
    '\tloss.backward()',
    '\topt.step()',
    "\ts = '😀😀'; print(loss.item())",
  ];
  const itemLine = 6;
  const itemColumn = lines[6].indexOf('loss.item()');
  return { text: `${lines.join('\r\n')}\r\n`, itemLine, itemColumn };
}

// Seeded random editing of a document for the benchmarks and the robustness tests:
// incremental LSP changes (line / UTF-16 column ranges) that insert, delete and replace
// spans, including astral characters, CRLF and tabs, and the text that results.
import { Dice } from './generate';

/** An LSP position: zero-based line and UTF-16 column. */
export interface LspPosition {
  line: number;
  character: number;
}

/** One incremental change. */
export interface LspChange {
  range: { start: LspPosition; end: LspPosition };
  text: string;
}

const SNIPPETS = [
  'loss.item()',
  '\n    x = x.view(-1, 4)',
  '\nfor step, batch in enumerate(loader):\n    loss = model(batch).sum()\n    print(loss.item())\n',
  '(',
  ')',
  ':',
  '\n',
  '\r\n',
  '\t',
  '    ',
  '"',
  "f'{x!r}'",
  '# 😀 comment\n',
  '𝒳 = torch.zeros(3)\n',
  'é',
  'dist.all_reduce(t)\n',
  'with torch.no_grad():\n    pass\n',
  'if step % 10 == 0:\n',
  'def ',
  'class M(nn.Module):\n',
  '',
];

/** The line break `text` uses: `\r\n` when it has one, else `\n`. */
export function lineBreakOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** The UTF-16 offset of an LSP position in `text` (lines end at \n, \r\n or \r, as LSP says). */
export function offsetAt(text: string, position: LspPosition): number {
  let line = 0;
  let i = 0;
  while (line < position.line && i < text.length) {
    const code = text.charCodeAt(i++);
    if (code === 10 || (code === 13 && text.charCodeAt(i) !== 10)) line++;
  }
  let end = i;
  while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
  return Math.min(i + position.character, end);
}

/** The LSP position of a UTF-16 offset. */
export function positionAt(text: string, offset: number): LspPosition {
  let line = 0;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || (code === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, character: offset - lineStart };
}

/** Moves an offset off the second half of a surrogate pair and out of a CRLF pair. */
function snap(text: string, offset: number): number {
  const code = text.charCodeAt(offset);
  if (code >= 0xdc00 && code <= 0xdfff && offset > 0) return offset - 1;
  if (code === 10 && text.charCodeAt(offset - 1) === 13) return offset - 1;
  return offset;
}

/** Produces random edits of a text; `apply` keeps the expected text in step. */
export class RandomEditor {
  private readonly dice: Dice;
  constructor(
    seed: number,
    public text: string,
  ) {
    this.dice = new Dice(seed);
  }

  /** The next random change (already applied to {@link text}). */
  next(): LspChange {
    const dice = this.dice;
    const length = this.text.length;
    const start = snap(this.text, dice.int(0, length));
    const spanLength = dice.chance(0.5) ? 0 : dice.int(0, Math.min(40, length - start));
    const end = snap(this.text, Math.min(length, start + spanLength));
    const insert = dice.chance(0.15) ? '' : dice.pick(SNIPPETS);
    const change: LspChange = {
      range: { start: positionAt(this.text, start), end: positionAt(this.text, Math.max(start, end)) },
      text: insert,
    };
    this.text = this.text.slice(0, start) + insert + this.text.slice(Math.max(start, end));
    return change;
  }
}

const KEYWORDS = new Set(
  'and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield None True False self'.split(
    ' ',
  ),
);
const TYPED_STATEMENTS = [
  'y = x.item()',
  'loss = loss + 1.0',
  'print(step)',
  'z = torch.zeros(4).view(2, 2)',
];

/** A keystroke of {@link TypingEditor}'s plans that deletes the character before the caret. */
const BACKSPACE = '\b';

/**
 * Produces the edits of someone typing into a file that parses: characters typed one at
 * a time (a new statement after a line, a letter inside a word), digits changed, lines
 * duplicated and comments added, a `#` or a `)` typed at a line's start and deleted, so
 * most versions parse without errors and some pass through an error on the way (an
 * unfinished `y = `, a stray `)`) or come back to an earlier text.
 */
export class TypingEditor {
  private readonly dice: Dice;
  private pending: { offset: number; chars: string[] } | undefined;
  constructor(
    seed: number,
    public text: string,
  ) {
    this.dice = new Dice(seed);
  }

  /** The next change (already applied to {@link text}). */
  next(): LspChange {
    if (!this.pending) this.pending = this.plan();
    const { offset, chars } = this.pending;
    const typed = chars.shift()!;
    const deleted = typed === BACKSPACE ? 1 : 0;
    const inserted = deleted ? '' : typed;
    if (chars.length === 0) this.pending = undefined;
    else this.pending.offset = offset - deleted + inserted.length;
    const change = {
      range: { start: positionAt(this.text, offset - deleted), end: positionAt(this.text, offset) },
      text: inserted,
    };
    this.text = this.text.slice(0, offset - deleted) + inserted + this.text.slice(offset);
    return change;
  }

  /** Where to type what next, as a list of keystrokes. */
  private plan(): { offset: number; chars: string[] } {
    const dice = this.dice;
    const lines = this.text.split('\n');
    const line = dice.int(0, lines.length - 1);
    const lineStart = lines.slice(0, line).reduce((sum, l) => sum + l.length + 1, 0);
    // In a `\r\n` text a line ends before its `\r`, and a new line takes the same break.
    const content = lines[line].endsWith('\r') ? lines[line].slice(0, -1) : lines[line];
    const newline = lineBreakOf(this.text);
    const indent = /^\s*/.exec(content)![0];
    const endOfLine = lineStart + content.length;
    const choice = dice.int(0, 5);
    if (
      choice === 0 &&
      content.trim() &&
      !content.trimEnd().endsWith(':') &&
      !content.trimEnd().endsWith('\\')
    ) {
      return { offset: endOfLine, chars: [newline + indent, ...dice.pick(TYPED_STATEMENTS)] };
    }
    const digit = /\d/.exec(content);
    if (choice === 1 && digit) return { offset: lineStart + digit.index, chars: [String(dice.int(1, 9))] };
    const word = /[A-Za-z_][A-Za-z_]+/.exec(content.slice(indent.length));
    if (choice === 2 && word && !KEYWORDS.has(word[0]))
      return { offset: lineStart + indent.length + word.index + 1, chars: ['q'] };
    if (choice === 3 && /^\s*\w+ = /.test(content)) return { offset: endOfLine, chars: [newline + content] };
    if (choice === 4 && content.trim())
      return { offset: lineStart + indent.length, chars: [dice.pick(['#', ')']), BACKSPACE] };
    return { offset: endOfLine, chars: [...'  # ok'] };
  }
}

// The module-level chunks of a Python text: it is cut before each `def`, `class` or
// decorator line that starts at column 0 outside strings and brackets (a decorated
// definition stays whole; small chunks run together in groups). A text with syntax errors
// is parsed chunk by chunk (chunked.ts), so an error stays inside its chunk. On the 3,153
// error-free files of the development corpus, each chunk parsed alone gives the same nodes
// as the whole file's parse (docs/performance-log.md, "Texts with syntax errors, chunk by chunk").
import { RecentTexts } from './recent-texts';
import { scanLines, STOP } from './line-scan';

/** A line that may start a chunk: a definition or a decorator. */
const CHUNK_HEAD = /^(?:async[ \t]+def\b|def\b|class\b|@[A-Za-z_])/;
/** A definition: at column 0 it can be inside no bracket, so one left open before it is closed. */
const DEFINITION = /^(?:async[ \t]+def\b|def\b|class\b)/;
/** Enough of a line to match {@link CHUNK_HEAD}. */
const HEAD_LENGTH = 12;

/**
 * The start offsets of the chunks of `text`, in order; the first is 0 and each chunk ends
 * where the next starts (the last at the end of the text): the {@link chunkHeads}, small
 * chunks run together (see {@link groupSmallChunks}).
 */
export function chunkStarts(text: string): number[] {
  // NOTE: a `#` typed and deleted brings the same text back; its scan (1 ms on 5,000 lines) is kept.
  // The text looked up moves to the front: each version with an error after an error-free one
  // reads the error-free text's chunks (chunked.ts), and typing a key and deleting it at one
  // place after another comes back to that text each time; it must outlast the texts with errors.
  return recent.get(text, () => ({
    starts: groupSmallChunks(text, chunkHeads(text), text.length),
    definitionCuts: new Map(),
    literalCuts: new Map(),
  })).starts;
}

/** The last texts scanned or looked up: their chunk starts, and the cuts of their large definitions and literals by chunk start. */
const recent = new RecentTexts<{
  starts: number[];
  definitionCuts: Map<number, { end: number; cuts: DefinitionCuts | undefined }>;
  literalCuts: Map<number, { end: number; cuts: LiteralCuts | undefined }>;
}>(2);

/** A chunk this long or longer always ends at the next start. */
const SMALL_CHUNK = 400;
/** About one start in this many after a small chunk is kept (see {@link groupSmallChunks}). */
const GROUPING = 8;

/**
 * The starts with small chunks run together: each chunk is parsed alone, which costs about
 * 0.1 ms however short it is (5,000 one-line functions took 420 ms against 33 ms for the
 * whole file). A start after a chunk shorter than {@link SMALL_CHUNK} is kept only when its
 * first two lines hash to 0 modulo {@link GROUPING}, so which starts are kept depends only on
 * the text next to each: an edit moves no group boundary away from it. The start of a chunk
 * of {@link SPLIT_DEFINITION} characters or more is always kept: a large class or function is
 * cut into groups of its body's statements only when it starts its chunk (definition-chunks.ts). The entries of a large
 * literal are grouped the same way, in larger groups (see {@link literalCuts}).
 */
function groupSmallChunks(
  text: string,
  starts: number[],
  end: number,
  small = SMALL_CHUNK,
  grouping = GROUPING,
): number[] {
  const kept = [starts[0]];
  for (let i = 1; i < starts.length; i++) {
    if (
      starts[i] - starts[i - 1] >= small ||
      lineHash(text, starts[i]) % grouping === 0 ||
      (starts[i + 1] ?? end) - starts[i] >= SPLIT_DEFINITION
    )
      kept.push(starts[i]);
  }
  return kept;
}

/**
 * A hash of the two lines starting at `start` (FNV-1a over their UTF-16 code units): a
 * chunk's first line alone is often the same in many (`@register_model`).
 */
function lineHash(text: string, start: number): number {
  let hash = 0x811c9dc5;
  let lines = 0;
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 && ++lines === 2) break;
    hash ^= code;
    hash = Math.imul(hash, 0x01000193);
  }
  // NOTE: FNV's low bits vary little between lines that differ at their ends (`def f12(`,
  // `def f13(`); MurmurHash3's finalizer mixes every bit into them.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The start offsets of the lines that may start a chunk, in order, 0 first: each line that
 * begins with a definition or a decorator at column 0, is not inside a string, a bracket or
 * a line continued by `\\`, and is not the definition a decorator above it decorates. A
 * definition at column 0 starts one inside brackets too: it cannot be inside them. A
 * statement at column 0 of {@link SPLIT_LITERAL} characters or more whose first line opens a
 * bracket (a large literal: a model zoo's dictionary of configurations) is a chunk of its
 * own, with the comments after it: it is cut into groups of entries when it is parsed
 * (literal-chunks.ts).
 */
export function chunkHeads(text: string): number[] {
  const starts = [0];
  let decorating = false;
  /** The column-0 statement being scanned (not a definition or a decorator), -1 if none. */
  let statement = startsStatement(text, 0) && !CHUNK_HEAD.test(text.slice(0, HEAD_LENGTH)) ? 0 : -1;
  /** Whether the next line visited is the second of `statement`: its depth says whether the first opened a bracket. */
  let secondLine = statement === 0;
  /** `statement` when its first line opened a bracket. */
  let bracketed = -1;
  /** Ends the statement scanned at `i`: a large bracketed one becomes a chunk of its own. */
  const endStatement = (i: number, cutHere: boolean) => {
    if (bracketed !== -1 && i - bracketed >= SPLIT_LITERAL) {
      if (starts[starts.length - 1] !== bracketed) starts.push(bracketed);
      if (cutHere) starts.push(i);
    }
    statement = bracketed = -1;
    secondLine = false;
  };
  scanLines(text, 0, text.length, (i, depth) => {
    if (secondLine) {
      secondLine = false;
      bracketed = depth > 0 ? statement : -1;
    }
    const head = text.slice(i, i + HEAD_LENGTH);
    const definitionHere = CHUNK_HEAD.test(head) && (depth === 0 || DEFINITION.test(head));
    // NOTE: a statement ends where the next starts at column 0: a definition (inside brackets
    // too), or code outside brackets that is no clause of a compound statement and no closing
    // bracket (one closed early leaves the depth low until the literal's own closing line).
    if (definitionHere) endStatement(i, false);
    else if (depth === 0 && startsStatement(text, i) && !CLAUSE.test(head)) {
      endStatement(i, true);
      statement = i;
      secondLine = true;
    }
    if (!definitionHere) return depth;
    if (!decorating) starts.push(i);
    decorating = head[0] === '@';
    return 0;
  });
  if (bracketed !== -1 && text.length - bracketed >= SPLIT_LITERAL && starts[starts.length - 1] !== bracketed)
    starts.push(bracketed);
  return starts;
}

/** A clause that continues a compound statement at column 0. */
const CLAUSE = /^(?:else|elif|except|finally)\b/;

/** Whether a line at `i` can start a statement: code (not blank, not a comment) that is not a closing bracket. */
function startsStatement(text: string, i: number): boolean {
  const char = text[i];
  return char !== undefined && !' \t\n\r\f#)]}'.includes(char);
}

/** A definition whose chunk is cut into groups of its body's statements when it is large. */
const SPLIT_HEAD = /^(?:class\b|(?:async[ \t]+)?def\b)/;

/** A compound statement or a definition at column 0: lines indented like a definition's body after it are its body. */
const COMPOUND_HEAD = /^(?:if|elif|else|for|while|try|except|finally|with|async|match|def|class)\b|^@/;

/** A class or function chunk at least this long is cut between its body's statements when it is parsed (definition-chunks.ts). */
export const SPLIT_DEFINITION = 8_000;
/**
 * A column-0 statement with a bracket open this long or longer is a chunk of its own (see
 * {@link chunkHeads}); as long as {@link SPLIT_DEFINITION}, whose chunks' starts are always kept.
 */
export const SPLIT_LITERAL = SPLIT_DEFINITION;

/** How a class or function chunk is cut: the lines of its header, then groups of its body's statements. */
export interface DefinitionCuts {
  /** Where the `class` or `def` line starts: after the decorators of a decorated definition, the chunk's start otherwise. */
  definitionStart: number;
  /** Where the header's lines end: the start of the body's first line with code. */
  headerEnd: number;
  /** The starts of the groups after the first, in order (the first starts with the chunk). */
  cuts: number[];
  /** What the chunk defines. */
  type: 'class_definition' | 'function_definition';
  /**
   * When the definition's body opens with a definition and nothing else at the body's
   * indentation starts a group (torch's distributed tests keep a large base class inside
   * another): that definition, whose body the cuts are in. The header lines then run from
   * the outer `class` or `def` line to the inner definition's body, and each group is parsed
   * under both; what follows the inner definition in the outer body is the last group's.
   */
  inner?: {
    /** Where the inner definition's node starts: its first decorator, or its `class` or `def`. */
    topStart: number;
    /** Where its `class` or `def` starts. */
    definitionStart: number;
    type: 'class_definition' | 'function_definition';
  };
}

/**
 * The cuts of the chunk `[start, end)` when it is a class or a function, decorated or not, of
 * at least {@link SPLIT_DEFINITION} characters (or `minLength`): before each line at the body's
 * indentation, outside strings, brackets and continued lines, that starts a group (see
 * {@link startsGroup}; a decorated definition stays whole), small groups run together as
 * chunks do (see {@link groupSmallChunks}). No cut comes after a compound statement's header
 * or a definition at column 0 (a body like the definition's may follow it), nor after a
 * comment indented less than the body with no code line between (the next code line decides
 * its block). A definition at the body's indentation cuts inside brackets too.
 */
export function definitionCuts(
  text: string,
  start: number,
  end: number,
  minLength = SPLIT_DEFINITION,
): DefinitionCuts | undefined {
  if (end - start < minLength) return undefined;
  const known = minLength === SPLIT_DEFINITION ? recent.peek(text)?.definitionCuts : undefined;
  return keptCuts(known, start, end, () => scanDefinitionCuts(text, start, end));
}

/**
 * The cuts of the chunk `[start, end)` from `known`, a recent text's memo, or `scan`ned and
 * kept there. The server cuts a text's large statements again in the next version but one: a
 * version with an error is followed by the clean text it came from.
 */
function keptCuts<T>(
  known: Map<number, { end: number; cuts: T | undefined }> | undefined,
  start: number,
  end: number,
  scan: () => T | undefined,
): T | undefined {
  const kept = known?.get(start);
  if (kept?.end === end) return kept.cuts;
  const cuts = scan();
  known?.set(start, { end, cuts });
  return cuts;
}

/** The cuts of {@link definitionCuts}, scanned: the definition's own, or those of the one definition its body holds (see {@link DefinitionCuts.inner}). */
function scanDefinitionCuts(text: string, start: number, end: number): DefinitionCuts | undefined {
  const outer = scanBody(text, start, end, '');
  if (!outer?.opensWithDefinition || outer.cutsInBody) return outer?.cuts;
  const inner = scanBody(text, outer.bodyStart, outer.memberEnd, outer.bodyIndent)?.cuts;
  return inner
    ? {
        definitionStart: outer.definitionStart,
        headerEnd: inner.headerEnd,
        cuts: inner.cuts,
        type: outer.type,
        inner: {
          topStart: outer.bodyStart + outer.bodyIndent.length,
          definitionStart: inner.definitionStart,
          type: inner.type,
        },
      }
    : outer.cuts;
}

/** What {@link scanBody} found of a definition at one indentation. */
interface ScannedBody {
  /** The cuts of its body, when it has any. */
  cuts?: DefinitionCuts;
  definitionStart: number;
  type: DefinitionCuts['type'];
  /** The start of the body's first line with code, and that line's indentation. */
  bodyStart: number;
  bodyIndent: string;
  /**
   * Whether the body's first statement is a definition (decorated or not): when the body
   * has no cuts of its own, that definition's body may be cut instead, with both headers
   * before each group.
   */
  opensWithDefinition: boolean;
  /** Whether a group starts in the body before {@link memberEnd}. */
  cutsInBody: boolean;
  /** Where the definition ends: the first line after it with code at its own indentation, or the end. */
  memberEnd: number;
}

/**
 * The definition starting the line at `start` (after its indentation `base`, with its
 * decorators) to `end`: where its header ends, and the cuts of {@link definitionCuts}.
 */
function scanBody(text: string, start: number, end: number, base: string): ScannedBody | undefined {
  const opening = start + base.length;
  let definitionStart = SPLIT_HEAD.test(text.slice(opening, opening + HEAD_LENGTH)) ? opening : -1;
  if (definitionStart === -1 && text[opening] !== '@') return undefined;
  let bodyIndent: string | undefined;
  let headerEnd = -1;
  let decorating = false;
  let afterShallowComment = false;
  /** Whether the body's first statement (after its decorators) has been seen, and whether it is a definition. */
  let firstStatementSeen = false;
  let cutsInBody = false;
  let opensWithDefinition = false;
  /** Where code at the definition's own indentation first follows its body (-1: none does). */
  let memberEnd = -1;
  const heads = [start];
  const isClass = () => text.startsWith('class', definitionStart);
  scanLines(text, start, end, (i, depth) => {
    let j = i;
    while (text[j] === ' ' || text[j] === '\t') j++;
    const char = text[j];
    if (j >= end || char === '\n' || char === '\r') return depth;
    const indent = text.slice(i, j);
    const head = text.slice(j, j + HEAD_LENGTH);
    const definition = indent === bodyIndent && DEFINITION.test(head);
    if (depth > 0 && !definition) return depth;
    if (char === '#') {
      // (Sticky until the next code line: each comment between decides with the others.)
      afterShallowComment ||= bodyIndent !== undefined && !indent.startsWith(bodyIndent);
      return depth;
    }
    if (definitionStart === -1) {
      // The decorators: the class or function follows them.
      if (indent === base && SPLIT_HEAD.test(head)) definitionStart = j;
      return indent === base && char === '@' ? depth : definitionStart === -1 ? STOP : 0;
    }
    if (bodyIndent === undefined) {
      bodyIndent = indent;
      headerEnd = i;
      decorating = char === '@';
      firstStatementSeen = !decorating;
      opensWithDefinition = SPLIT_HEAD.test(head);
      return indent.length <= base.length ? STOP : depth;
    }
    if (!firstStatementSeen && indent === bodyIndent && char !== '@') {
      firstStatementSeen = true;
      opensWithDefinition = SPLIT_HEAD.test(head);
    }
    if (indent === base && memberEnd === -1) {
      memberEnd = i;
      cutsInBody = heads.length > 1;
    }
    // NOTE: after a simple statement at column 0, lines indented like the body are no
    // members, but tree-sitter reads that indentation as whitespace, without an error (`x = 1`
    // then `    def f(self):` parses clean): the cuts go on, and a group with nodes after its
    // definition and no error has the whole chunk parsed instead (definition-chunks.ts). After a
    // compound statement or a definition, they are its body: no more cuts.
    if (indent === base) return COMPOUND_HEAD.test(head) ? STOP : depth;
    if (indent === bodyIndent && startsGroup(text, j, head, isClass())) {
      if (!decorating && !afterShallowComment && i !== headerEnd) heads.push(i);
      decorating = char === '@';
      afterShallowComment = false;
      return 0;
    }
    decorating = false;
    afterShallowComment = false;
    return depth;
  });
  if (definitionStart === -1 || headerEnd <= definitionStart || bodyIndent === undefined) return undefined;
  const type = isClass() ? 'class_definition' : 'function_definition';
  const cuts = groupSmallChunks(text, heads, end).slice(1);
  return {
    ...(cuts.length ? { cuts: { definitionStart, headerEnd, cuts, type } } : {}),
    definitionStart,
    type,
    bodyStart: headerEnd,
    bodyIndent,
    opensWithDefinition: firstStatementSeen && opensWithDefinition,
    cutsInBody: memberEnd === -1 ? heads.length > 1 : cutsInBody,
    memberEnd: memberEnd === -1 ? end : memberEnd,
  };
}

/**
 * Whether the line of a definition's body whose code starts at `j` (at the body's
 * indentation, outside brackets) may start a group: in a class, a definition or a decorator
 * (a member); in a function, any statement but a clause that continues the compound
 * statement before it (`else`, `elif`, `except`, `finally`).
 */
function startsGroup(text: string, j: number, head: string, inClass: boolean): boolean {
  return inClass ? CHUNK_HEAD.test(head) : startsStatement(text, j) && !CLAUSE.test(head);
}

/** The bracket that closes each opening one. */
const CLOSER: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
const CLOSER_CHARS = ')]}';
/** An entry of a literal this long or longer ends its group (see {@link groupSmallChunks}). */
const LARGE_ENTRY = 2_000;
/** About one entry start in this many begins a group of a literal's entries. */
const ENTRY_GROUPING = 16;

/** How a large literal chunk is cut: its first line, groups of its entries, and its closing lines. */
export interface LiteralCuts {
  /** The literal's opening bracket: the last character of the statement's first line outside comments. */
  open: number;
  /** Where the line after the first starts: the first group of entries starts here. */
  headEnd: number;
  /** Where the line that starts with the literal's closing bracket starts: it and the rest of the chunk are the tail. */
  tailStart: number;
  /** The starts of the groups of entries after the first, in order. */
  cuts: number[];
}

/**
 * The cuts of the chunk `[start, end)` when it is a statement at column 0 of at least
 * {@link SPLIT_LITERAL} characters whose first line ends by opening a dictionary, a set, a
 * list or a call's arguments, and whose closing bracket starts a line at column 0 (`}` or
 * `})`; the first such line closes it): before each line indented as the first entry that follows a comma
 * (an entry, or a comment before one), small groups run together as chunks do (see
 * {@link groupSmallChunks}).
 */
export function literalCuts(text: string, start: number, end: number): LiteralCuts | undefined {
  if (end - start < SPLIT_LITERAL || !startsStatement(text, start)) return undefined;
  if (CHUNK_HEAD.test(text.slice(start, start + HEAD_LENGTH))) return undefined;
  const known = recent.peek(text)?.literalCuts;
  return keptCuts(known, start, end, () => scanLiteralCuts(text, start, end));
}

/** The cuts of {@link literalCuts}, scanned. */
function scanLiteralCuts(text: string, start: number, end: number): LiteralCuts | undefined {
  let open = -1;
  let headEnd = -1;
  let tailStart = -1;
  /** The indentation of the literal's first entry. */
  let entryIndent: string | undefined;
  const starts: number[] = [];
  scanLines(text, start, end, (i, depth, last) => {
    let j = i;
    while (text[j] === ' ' || text[j] === '\t') j++;
    if (headEnd === -1) {
      // The second line: the first must have opened the literal with its last character.
      if (depth === 0 || last < start || !CLOSER[text[last]] || !opensLiteral(text, last)) return STOP;
      open = last;
      headEnd = i;
      starts.push(i);
    }
    if (j >= end || text[j] === '\n' || text[j] === '\r') return depth;
    // NOTE: lines are told by their indentation, not by the depth of brackets, which an
    // error in one entry (a `#` before its first line) leaves wrong until the literal's end.
    // Other code at column 0 is an error inside the literal (the chunk ends where the
    // statement does: chunkHeads).
    if (j === i && text[j] === CLOSER[text[open]]) {
      tailStart = i;
      return STOP;
    }
    entryIndent ??= text[j] === '#' ? undefined : text.slice(i, j);
    if (
      i !== headEnd &&
      text.slice(i, j) === entryIndent &&
      !CLOSER_CHARS.includes(text[j]) &&
      text[last] === ',' &&
      last >= headEnd
    )
      starts.push(i);
    return depth;
  });
  if (tailStart === -1 || entryIndent === undefined) return undefined;
  const cuts = groupSmallChunks(text, starts, tailStart, LARGE_ENTRY, ENTRY_GROUPING).slice(1);
  return cuts.length ? { open, headEnd, tailStart, cuts } : undefined;
}

/**
 * Whether the bracket at `at` opens a literal whose empty form parses as the filled one
 * does: a dictionary or set, a list (not a subscript), or a call's arguments (not a tuple).
 */
function opensLiteral(text: string, at: number): boolean {
  let before = at - 1;
  while (text[before] === ' ' || text[before] === '\t') before--;
  const afterName = /[\w)\]]/.test(text[before] ?? '');
  if (text[at] === '(') return afterName;
  if (text[at] === '[') return !afterName;
  return true;
}

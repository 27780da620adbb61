// The module-level chunks of a Python text: it is cut before each `def`, `class` or
// decorator line that starts at column 0 outside strings and brackets (a decorated
// definition stays whole; small chunks run together in groups). A text with syntax errors
// is parsed chunk by chunk (chunked.ts), so an error stays inside its chunk. On the 3,153
// error-free files of the development corpus, each chunk parsed alone gives the same nodes
// as the whole file's parse (docs/performance.md, "Texts with syntax errors, chunk by chunk").

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
  const known = recent.find((entry) => entry.text === text);
  if (known) return known.starts;
  const starts = groupSmallChunks(text, chunkHeads(text));
  recent.unshift({ text, starts });
  recent.length = Math.min(recent.length, RECENT_TEXTS);
  return starts;
}

/** The last texts scanned, newest first, and their chunk starts. */
const recent: { text: string; starts: number[] }[] = [];
const RECENT_TEXTS = 2;

/** A chunk this long or longer always ends at the next start. */
const SMALL_CHUNK = 400;
/** About one start in this many after a small chunk is kept (see {@link groupSmallChunks}). */
const GROUPING = 8;

/**
 * The starts with small chunks run together: each chunk is parsed alone, which costs about
 * 0.1 ms however short it is (5,000 one-line functions took 420 ms against 33 ms for the
 * whole file). A start after a chunk shorter than {@link SMALL_CHUNK} is kept only when its
 * first two lines hash to 0 modulo {@link GROUPING}, so which starts are kept depends only on
 * the text next to each: an edit moves no group boundary away from it.
 */
function groupSmallChunks(text: string, starts: number[]): number[] {
  const kept = [starts[0]];
  for (let i = 1; i < starts.length; i++) {
    if (starts[i] - starts[i - 1] >= SMALL_CHUNK || lineHash(text, starts[i]) % GROUPING === 0)
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
 * definition at column 0 starts one inside brackets too: it cannot be inside them.
 */
export function chunkHeads(text: string): number[] {
  const starts = [0];
  let depth = 0;
  /** The open string's quote: `"`, `'`, `"""` or `'''`; '' outside strings. */
  let quote = '';
  let atLineStart = true;
  let continued = false;
  let decorating = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (atLineStart) {
      atLineStart = false;
      if (!quote && !continued && i > 0) {
        const head = text.slice(i, i + HEAD_LENGTH);
        if (CHUNK_HEAD.test(head) && (depth === 0 || DEFINITION.test(head))) {
          depth = 0;
          if (!decorating) starts.push(i);
          decorating = char === '@';
        }
      }
      continued = false;
    }
    if (char === '\n') {
      atLineStart = true;
      // A one-quote string ends with its line (a syntax error if it was not closed).
      if (quote.length === 1) quote = '';
      continue;
    }
    if (quote) {
      if (char === '\\') i++;
      else if (text.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = '';
      }
      continue;
    }
    if (char === '#') {
      const end = text.indexOf('\n', i);
      i = (end === -1 ? text.length : end) - 1;
    } else if (char === '"' || char === "'") {
      quote = text.startsWith(char + char + char, i) ? char + char + char : char;
      i += quote.length - 1;
    } else if (char === '\\' && (text[i + 1] === '\n' || text[i + 1] === '\r')) {
      continued = true;
    } else if (char === '(' || char === '[' || char === '{') depth++;
    else if ((char === ')' || char === ']' || char === '}') && depth > 0) depth--;
  }
  return starts;
}

// The lowering walk read straight from the wasm heap: tree-sitter's tree cursor (its
// `tree_cursor.c`: first child, next sibling, parent, field id) redone in JS over the
// subtree records of tree-sitter 0.25 (`subtree.h`, `tree.h`, `parser.h` on a 32-bit,
// little-endian target), so a walk makes no call into wasm at all. The layout is private
// to tree-sitter: `verifyMemoryWalk` checks it against the exported cursor on a probe text
// before the lowering trusts it (direct-walk.ts).
import type { TreeWalk } from './direct-walk';

/** The typed-array views of the wasm heap that Emscripten keeps on its module object. */
export interface HeapViews {
  HEAPU8: Uint8Array;
  HEAPU16: Uint16Array;
  HEAPU32: Uint32Array;
}

/** Symbol id tree-sitter gives ERROR nodes (`ts_builtin_sym_error`). */
const ERROR_SYMBOL = 65535;

// SubtreeHeapData (subtree.h), byte offsets on wasm32.
const HEAP_PADDING_BYTES = 4;
const HEAP_SIZE_BYTES = 16;
const HEAP_CHILD_COUNT = 36;
const HEAP_SYMBOL = 40;
const HEAP_FLAGS = 44;
const HEAP_VISIBLE_CHILD_COUNT = 48;
const HEAP_PRODUCTION_ID = 66;
// SubtreeInlineData (subtree.h, little-endian): flag bits in byte 0, then these bytes.
const INLINE_SYMBOL = 1;
const INLINE_PADDING_BYTES = 6;
const INLINE_SIZE_BYTES = 7;
const FLAG_INLINE = 1;
const FLAG_VISIBLE_INLINE = 2;
const FLAG_EXTRA_INLINE = 8;
const FLAG_VISIBLE_HEAP = 1;
const FLAG_EXTRA_HEAP = 4;
/** Bytes per Subtree slot in a children array (a union of an 8-byte record and a pointer). */
const SLOT_BYTES = 8;
// TSTree (tree.h) and TSLanguage (parser.h, ABI 15), byte offsets on wasm32.
const TREE_LANGUAGE = 8;
const LANGUAGE_SYMBOL_COUNT = 4;
const LANGUAGE_ALIAS_COUNT = 8;
const LANGUAGE_PRODUCTION_ID_COUNT = 28;
const LANGUAGE_FIELD_COUNT = 32;
const LANGUAGE_MAX_ALIAS_SEQUENCE_LENGTH = 36;
const LANGUAGE_FIELD_MAP_SLICES = 64;
const LANGUAGE_FIELD_MAP_ENTRIES = 68;
const LANGUAGE_PUBLIC_SYMBOL_MAP = 76;
const LANGUAGE_ALIAS_SEQUENCES = 84;
/** A field map entry's child index is a uint8_t (parser.h). */
const MAX_CHILD_INDEX = 256;

/** What a walk needs of one language, read once from its TSLanguage record. */
interface LanguageMaps {
  /** Symbol → the public symbol web-tree-sitter reports as the type id. */
  publicSymbol: Uint16Array;
  /** `alias_sequences` as a u16 index into the heap, and the length of one sequence. */
  aliasBase: number;
  aliasStride: number;
  /** production id × 256 + structural child index → field id (0: none), non-inherited entries only. */
  fieldAt: Uint16Array;
}

const languageMaps = new Map<number, LanguageMaps>();

function mapsFor(heap: HeapViews, language: number): LanguageMaps {
  let maps = languageMaps.get(language);
  if (maps) return maps;
  const u32 = heap.HEAPU32;
  const u16 = heap.HEAPU16;
  const u8 = heap.HEAPU8;
  // NOTE: alias symbols are numbered after the grammar's symbols, and the map covers both.
  const symbolCount =
    u32[(language + LANGUAGE_SYMBOL_COUNT) >> 2] + u32[(language + LANGUAGE_ALIAS_COUNT) >> 2];
  const productions = u32[(language + LANGUAGE_PRODUCTION_ID_COUNT) >> 2];
  const publicMap = u32[(language + LANGUAGE_PUBLIC_SYMBOL_MAP) >> 2] >> 1;
  const publicSymbol = u16.slice(publicMap, publicMap + symbolCount);
  const fieldAt = new Uint16Array(productions * MAX_CHILD_INDEX);
  if (u32[(language + LANGUAGE_FIELD_COUNT) >> 2] > 0) {
    const slices = u32[(language + LANGUAGE_FIELD_MAP_SLICES) >> 2];
    const entries = u32[(language + LANGUAGE_FIELD_MAP_ENTRIES) >> 2];
    for (let production = 0; production < productions; production++) {
      const first = u16[(slices >> 1) + production * 2];
      const length = u16[(slices >> 1) + production * 2 + 1];
      // TSFieldMapEntry: field_id (u16), child_index (u8), inherited (bool); the first match wins.
      for (let k = length - 1; k >= 0; k--) {
        const entry = entries + (first + k) * 4;
        if (u8[entry + 3]) continue;
        fieldAt[production * MAX_CHILD_INDEX + u8[entry + 2]] = u16[entry >> 1];
      }
    }
  }
  maps = {
    publicSymbol,
    aliasBase: u32[(language + LANGUAGE_ALIAS_SEQUENCES) >> 2] >> 1,
    aliasStride: u16[(language + LANGUAGE_MAX_ALIAS_SEQUENCE_LENGTH) >> 1],
    fieldAt,
  };
  languageMaps.set(language, maps);
  return maps;
}

/**
 * A tree cursor over the wasm heap. Where tree-sitter keeps a stack of entries and builds
 * a child iterator again at each step, this walk keeps a stack of open iterators (frames):
 * one for each node whose children it is in, hidden ones included. The current node is the
 * child a frame last handed out. After `gotoNextSibling` or `gotoFirstChild` returns false
 * the walk is at the same node as before, except that after a false `gotoNextSibling`
 * only `gotoParent` may follow (the lowering walk does exactly that).
 */
export class MemoryWalk implements TreeWalk {
  private readonly u8: Uint8Array;
  private readonly u16: Uint16Array;
  private readonly u32: Uint32Array;
  private readonly maps: LanguageMaps;
  private readonly fieldAt: Uint16Array;
  // Frames, by depth: the node iterated (slot, start, end, structural index in its own
  // parent, its type id), where its children start, how many, the next child's index and
  // structural index, where the last child handed out ends (the node's start before the
  // first), the alias-sequence base (-1: none), the production id, whether the node is
  // visible and, for a hidden node, the field its visible descendants inherit.
  private readonly nodeSlot: number[] = [];
  private readonly nodeStart: number[] = [];
  private readonly nodeEnd: number[] = [];
  private readonly nodeStructural: number[] = [];
  private readonly nodeType: number[] = [];
  private readonly children: number[] = [];
  private readonly count: number[] = [];
  private readonly index: number[] = [];
  private readonly structural: number[] = [];
  private readonly position: number[] = [];
  private readonly aliasBase: number[] = [];
  private readonly production: number[] = [];
  private readonly visible: boolean[] = [];
  private readonly inherited: number[] = [];
  private depth = 0;
  // The current node.
  private currentSlot: number;
  private currentStart: number;
  private currentEnd: number;
  private currentStructural = 0;
  private currentType: number;
  private currentExtra = false;
  /** The depth of the frame the current node came from (-1 for the root). */
  private currentFrame = -1;

  constructor(heap: HeapViews, tree: number) {
    this.u8 = heap.HEAPU8;
    this.u16 = heap.HEAPU16;
    this.u32 = heap.HEAPU32;
    this.maps = mapsFor(heap, this.u32[(tree + TREE_LANGUAGE) >> 2]);
    this.fieldAt = this.maps.fieldAt;
    this.currentSlot = tree;
    this.currentStart = this.paddingBytes(tree);
    this.currentEnd = this.currentStart + this.sizeBytes(tree);
    this.currentType = this.publicType(this.symbol(tree));
  }

  typeId(): number {
    return this.currentType;
  }

  fieldId(): number {
    const frame = this.currentFrame;
    if (frame < 0 || this.currentExtra) return 0;
    // NOTE: a field map's child index is a byte; a later child (of an ERROR node, say) has no field of its own.
    const structural = this.currentStructural;
    const field =
      structural < MAX_CHILD_INDEX ? this.fieldAt[this.production[frame] * MAX_CHILD_INDEX + structural] : 0;
    return field || (this.visible[frame] ? 0 : this.inherited[frame]);
  }

  startIndex(): number {
    return this.currentStart >>> 1;
  }

  endIndex(): number {
    return this.currentEnd >>> 1;
  }

  gotoFirstChild(): boolean {
    if (this.childCount(this.currentSlot) === 0) return false;
    const opened = this.depth;
    this.open(true);
    if (this.advance()) return true;
    this.depth = opened;
    return false;
  }

  gotoNextSibling(): boolean {
    return this.depth > 0 && this.advance();
  }

  gotoParent(): boolean {
    while (this.depth > 0) {
      const frame = --this.depth;
      if (!this.visible[frame]) continue;
      this.currentSlot = this.nodeSlot[frame];
      this.currentStart = this.nodeStart[frame];
      this.currentEnd = this.nodeEnd[frame];
      this.currentStructural = this.nodeStructural[frame];
      this.currentType = this.nodeType[frame];
      this.currentExtra = this.isExtra(this.currentSlot);
      this.currentFrame = frame - 1;
      return true;
    }
    return false;
  }

  close(): void {
    this.depth = 0;
  }

  /** Opens a frame over the current node's children (which it must have). */
  private open(visible: boolean): void {
    const frame = this.depth++;
    const slot = this.currentSlot;
    const record = this.u32[slot >> 2];
    const count = this.u32[(record + HEAP_CHILD_COUNT) >> 2];
    const production = this.u16[(record + HEAP_PRODUCTION_ID) >> 1];
    const parent = this.currentFrame;
    this.nodeSlot[frame] = slot;
    this.nodeStart[frame] = this.currentStart;
    this.nodeEnd[frame] = this.currentEnd;
    this.nodeStructural[frame] = this.currentStructural;
    this.nodeType[frame] = this.currentType;
    this.children[frame] = record - count * SLOT_BYTES;
    this.count[frame] = count;
    this.index[frame] = 0;
    this.structural[frame] = 0;
    this.position[frame] = this.currentStart;
    this.aliasBase[frame] = production === 0 ? -1 : this.maps.aliasBase + production * this.maps.aliasStride;
    this.production[frame] = production;
    this.visible[frame] = visible;
    // A hidden node's visible descendants take its field, or the one it inherits in turn.
    this.inherited[frame] = visible || parent < 0 || this.currentExtra ? 0 : this.fieldId();
  }

  /**
   * Moves to the next visible node in document order within the innermost visible frame,
   * entering hidden children that have visible ones; false when that frame is done.
   */
  private advance(): boolean {
    const u8 = this.u8;
    const u32 = this.u32;
    for (;;) {
      const frame = this.depth - 1;
      const i = this.index[frame];
      if (i >= this.count[frame]) {
        if (this.visible[frame]) return false;
        this.depth--;
        continue;
      }
      this.index[frame] = i + 1;
      // Each child's record is read once: flags, padding, size, symbol (subtree.h's accessors).
      const child = this.children[frame] + i * SLOT_BYTES;
      const head = u8[child];
      let visible: boolean;
      let extra: boolean;
      let padding: number;
      let size: number;
      let symbol: number;
      let hasVisibleChildren = false;
      if (head & FLAG_INLINE) {
        visible = (head & FLAG_VISIBLE_INLINE) !== 0;
        extra = (head & FLAG_EXTRA_INLINE) !== 0;
        padding = u8[child + INLINE_PADDING_BYTES];
        size = u8[child + INLINE_SIZE_BYTES];
        symbol = u8[child + INLINE_SYMBOL];
      } else {
        const record = u32[child >> 2];
        const flags = u8[record + HEAP_FLAGS];
        visible = (flags & FLAG_VISIBLE_HEAP) !== 0;
        extra = (flags & FLAG_EXTRA_HEAP) !== 0;
        padding = u32[(record + HEAP_PADDING_BYTES) >> 2];
        size = u32[(record + HEAP_SIZE_BYTES) >> 2];
        symbol = this.u16[(record + HEAP_SYMBOL) >> 1];
        hasVisibleChildren =
          u32[(record + HEAP_CHILD_COUNT) >> 2] > 0 && u32[(record + HEAP_VISIBLE_CHILD_COUNT) >> 2] > 0;
      }
      // The first child starts where its parent does (they share the padding); each later
      // one after the previous child's end and its own padding.
      const start = i === 0 ? this.position[frame] : this.position[frame] + padding;
      this.position[frame] = start + size;
      const structural = this.structural[frame];
      let alias = 0;
      if (!extra) {
        const base = this.aliasBase[frame];
        if (base >= 0) alias = this.u16[base + structural];
        this.structural[frame] = structural + 1;
      }
      if (alias !== 0) visible = true;
      if (!visible && !hasVisibleChildren) continue;
      this.currentSlot = child;
      this.currentStart = start;
      this.currentEnd = start + size;
      this.currentStructural = structural;
      this.currentExtra = extra;
      this.currentFrame = frame;
      this.currentType = this.publicType(alias || symbol);
      if (visible) return true;
      this.open(false);
    }
  }

  private publicType(symbol: number): number {
    return symbol === ERROR_SYMBOL ? symbol : this.maps.publicSymbol[symbol];
  }

  // Subtree accessors (subtree.h's ts_subtree_*), on the address of a Subtree slot.
  private isInline(slot: number): boolean {
    return (this.u8[slot] & FLAG_INLINE) !== 0;
  }

  private isExtra(slot: number): boolean {
    const flags = this.u8[slot];
    if (flags & FLAG_INLINE) return (flags & FLAG_EXTRA_INLINE) !== 0;
    return (this.u8[this.u32[slot >> 2] + HEAP_FLAGS] & FLAG_EXTRA_HEAP) !== 0;
  }
  private symbol(slot: number): number {
    if (this.isInline(slot)) return this.u8[slot + INLINE_SYMBOL];
    return this.u16[(this.u32[slot >> 2] + HEAP_SYMBOL) >> 1];
  }
  private paddingBytes(slot: number): number {
    if (this.isInline(slot)) return this.u8[slot + INLINE_PADDING_BYTES];
    return this.u32[(this.u32[slot >> 2] + HEAP_PADDING_BYTES) >> 2];
  }
  private sizeBytes(slot: number): number {
    if (this.isInline(slot)) return this.u8[slot + INLINE_SIZE_BYTES];
    return this.u32[(this.u32[slot >> 2] + HEAP_SIZE_BYTES) >> 2];
  }
  private childCount(slot: number): number {
    if (this.isInline(slot)) return 0;
    return this.u32[(this.u32[slot >> 2] + HEAP_CHILD_COUNT) >> 2];
  }
}

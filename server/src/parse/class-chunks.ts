// Large classes in a text with syntax errors: a chunk (chunks.ts) that is one class of at
// least SPLIT_CLASS characters is parsed in groups of members, each group with the class's
// header lines before it (tree-sitter included ranges), and the groups' nodes go under one
// class node and its body. A keystroke in one method then re-parses that method's group
// alone, where the whole class (in one public file, 96 % of it) was parsed before. On the
// error-free files of the development corpus, every class split this way gives the nodes of
// the whole-file parse (docs/performance-log.md, "Large classes, member by member").
import type { Parser } from 'web-tree-sitter';
import type { ChunkRecord, PreviousChunks } from './chunked';
import { classCuts, type ClassCuts } from './chunks';
import { unchangedParts } from './edit-spans';
import type { TextSpan } from './lower-reuse';
import { lineRange } from './points';
import { indexSlotOf, LoweredNode, lowerTree, type SourceText } from './syntax';
import { transplant, unverifiedOf } from './transplant';
import { collectGroups, groupsUnverified, nodesInside, type ChunkGroup } from './chunk-groups';

/** A class chunk cut into member groups, for the next version to reuse the unchanged ones. */
export interface ClassSplit {
  /** Where the `class` line starts and the header lines end (see {@link ClassCuts}). */
  classStart: number;
  headerEnd: number;
  groups: MemberGroup[];
}

/** One group of a class's members, as a parse of the header lines and the group gives them. */
interface MemberGroup extends ChunkGroup {
  /** The nodes the group adds to the class's body, in order. */
  members: LoweredNode[];
  /** The module-level nodes after the class in the group's parse: the chunk's last nodes when the group is the last. */
  after: LoweredNode[];
  hasError: boolean;
  /** For a group just parsed: the previous version's statements it took back, with how far each moves. */
  moved?: ReadonlyMap<LoweredNode, number>;
  /** The first group only: the class node's children before its body, where the body starts, and a decorated class's decorators (and comments between them). */
  head?: { children: LoweredNode[]; bodyStart: number; decorators?: LoweredNode[] };
}

/** Counts for the benchmark and tests. */
export const classChunkCounts = { parsed: 0, reused: 0, declined: 0 };

/** Test-only fault: a group taken from the last version keeps its offsets (its nodes do not move with the edit). */
let staleGroups = false;
export function setClassChunkFault(on: boolean): void {
  staleGroups = on;
}

/**
 * The chunk `[start, end)` of `source`'s text lowered group by group when it is a large
 * class (see {@link classCuts}); a group whose text and the header's are unchanged since
 * `previous` (where `old` was this chunk) is taken from it. Undefined when the chunk is not
 * such a class, or when a group's parse is not a class with a body (a broken header): the
 * chunk is then parsed whole.
 */
export function lowerClassChunk(
  parser: Parser,
  source: SourceText,
  start: number,
  end: number,
  previous?: PreviousChunks,
  old?: ChunkRecord,
  minLength?: number,
): ChunkRecord | undefined {
  const cuts = classCuts(source.text, start, end, minLength);
  if (!cuts) return undefined;
  const bounds = [start, ...cuts.cuts, end];
  const reusable =
    previous && old?.split && old.start === start
      ? unchangedGroups(old.split, previous.span, source.text.length)
      : new Map<number, MemberGroup>();
  const collected = collectGroups({
    bounds,
    reusable,
    stale: staleGroups,
    shiftBy: shiftGroup,
    parse: (groupStart, groupEnd) => parseGroup(parser, source, cuts, groupStart, groupEnd),
    counts: classChunkCounts,
  });
  if (!collected) return undefined;
  const { groups, shifts, reused } = collected;
  // NOTE: a group before the last with nodes after its class and no error holds a simple
  // statement at column 0 (see classCuts): the lines after it are not the class's in the
  // whole parse, so the whole chunk is parsed instead.
  if (groups.some((group, k) => k + 1 < groups.length && group.after.length > 0 && !group.hasError)) {
    classChunkCounts.declined++;
    return undefined;
  }
  // NOTE: only now, with every group accepted: taking back statements moves the previous
  // version's nodes, which the whole-chunk parse of a declined split must find in place.
  const settled = groups.map((group, k) => (reused.has(k) ? group : takeBack(group, previous)));
  const { classStart, headerEnd } = cuts;
  return assembleClass(source, start, end, { classStart, headerEnd, groups: settled }, shifts);
}

/** A split kept whole by a chunk that moved by `shift`: its offsets moved too. */
export function shiftSplit(split: ClassSplit, shift: number): ClassSplit {
  return shift === 0
    ? split
    : {
        classStart: split.classStart + shift,
        headerEnd: split.headerEnd + shift,
        groups: split.groups.map((group) => shiftGroup(group, shift)),
      };
}

function shiftGroup(group: MemberGroup, shift: number): MemberGroup {
  if (shift === 0 && !group.moved) return group;
  const { moved: _moved, ...rest } = group;
  return {
    ...rest,
    start: group.start + shift,
    end: group.end + shift,
    ...(group.head ? { head: { ...group.head, bodyStart: group.head.bodyStart + shift } } : {}),
  };
}

/**
 * The previous split's groups whose text is unchanged, by their start in the new text,
 * when the header's text is unchanged too (every group is parsed with it).
 */
function unchangedGroups(split: ClassSplit, span: TextSpan, length: number): Map<number, MemberGroup> {
  return span.start < split.headerEnd ? new Map() : unchangedParts(split.groups, span, length);
}

/**
 * Parses the group `[start, end)` with the header lines (the `class` line to `headerEnd`)
 * before it (the first group holds them, after any decorators) and lowers it afresh (see
 * {@link takeBack}). Undefined when the parse is not a class with a body.
 */
function parseGroup(
  parser: Parser,
  source: SourceText,
  { classStart, headerEnd }: ClassCuts,
  start: number,
  end: number,
): MemberGroup | undefined {
  classChunkCounts.parsed++;
  const first = start <= classStart;
  const ranges = first
    ? [lineRange(source, start, end)]
    : [lineRange(source, classStart, headerEnd), lineRange(source, start, end)];
  const tree = parser.parse(source.text, null, { includedRanges: ranges });
  if (!tree) {
    parser.reset();
    throw new Error('tree-sitter returned no tree for a group of class members');
  }
  let root: LoweredNode;
  let hasError: boolean;
  try {
    hasError = tree.rootNode.hasError;
    root = lowerTree(tree, source.text, undefined, source).root as LoweredNode;
  } finally {
    tree.delete();
  }
  // NOTE: an error in a group can leave its class inside an ERROR node with the statements
  // after the error (a letter typed at column 0 ends the class there): that node is left
  // out, and what it holds after the class is taken as nodes after the class.
  const wrapped = root.children[0]?.type === 'ERROR' && root.children[0].startIndex === root.startIndex;
  const [top, ...outside] = wrapped
    ? [...root.children[0].children, ...root.children.slice(1)]
    : root.children;
  // NOTE: an error in the header lines can end the class inside them (`e):` at column 0 after
  // a broken base list): what follows it there is the first group's text, so a later group
  // keeps only the nodes that start in its own lines.
  const after = first ? outside : nodesInside(outside, start, Infinity);
  const decorated = first && top?.type === 'decorated_definition';
  const classNode = decorated ? top.children[top.children.length - 1] : top;
  const decorators = decorated ? top.children.slice(0, -1) : undefined;
  const body = classNode?.children.find((child) => child.field === 'body');
  const headChildren: LoweredNode[] = [];
  const members: LoweredNode[] = [];
  if (
    classNode?.type === 'class_definition' &&
    classNode.startIndex === classStart &&
    body?.type === 'block'
  ) {
    let beforeBody = true;
    for (const child of classNode.children) {
      if (child === body) {
        beforeBody = false;
        for (const member of body.children) if (member.startIndex >= start) members.push(member);
      } else if (first && beforeBody) headChildren.push(child);
      else if (child.startIndex >= start) members.push(child);
    }
  } else if (first || !hasError) return undefined;
  // NOTE: an error can keep a group's parse from making a class of the header at all (an
  // unclosed string from the group's start); the group's members are then the outermost
  // nodes that start inside it.
  else {
    members.push(...nodesInside(root.children, start, Infinity));
    after.length = 0;
  }
  return {
    start,
    end,
    members,
    after,
    hasError,
    ...(first ? { head: { children: headChildren, bodyStart: body!.startIndex, decorators } } : {}),
  };
}

/**
 * A group just parsed with the previous version's statements of the same shape outside the
 * edit put back (see transplant.ts), and, when it has errors, its nodes no later lowering
 * may reuse.
 */
function takeBack(group: MemberGroup, previous: PreviousChunks | undefined): MemberGroup {
  const nodes = [...group.members, ...group.after];
  const taken = previous ? transplant(nodes, previous, group.start, group.end) : undefined;
  const { head } = group;
  const unverified = group.hasError
    ? unverifiedOf(
        [...(head?.decorators ?? []), ...(head?.children ?? []), ...nodes],
        taken?.moved ?? new Map(),
        taken?.unverifiedTwins ?? new Set(),
      )
    : undefined;
  return {
    ...group,
    members: nodes.slice(0, group.members.length),
    after: nodes.slice(group.members.length),
    moved: taken?.moved ?? new Map(),
    ...(unverified ? { unverified } : {}),
  };
}

/**
 * The class node holding every group's members in its body (under a decorated definition
 * when it has decorators), and the chunk record for it: its nodes are that node and the
 * nodes after the class in the last group (an error in a group before it can leave nodes
 * after its class: they go into the body, in order).
 */
function assembleClass(
  source: SourceText,
  start: number,
  end: number,
  split: ClassSplit,
  shifts: readonly number[],
): ChunkRecord {
  const { groups, classStart } = split;
  const head = groups[0].head!;
  const last = groups[groups.length - 1];
  const classNode = node(source, 'class_definition', head.decorators ? 'definition' : null, classStart, end);
  const body = node(source, 'block', 'body', head.bodyStart, end);
  const top = head.decorators ? node(source, 'decorated_definition', null, start, end) : classNode;
  adopt(classNode, [...head.children, body]);
  if (top !== classNode) adopt(top, [...head.decorators!, classNode]);
  const moved = new Map<LoweredNode, number>();
  let hasError = false;
  groups.forEach((group, k) => {
    adopt(body, group === last ? group.members : [...group.members, ...group.after]);
    hasError ||= group.hasError;
    if (group.moved) for (const [node, shift] of group.moved) moved.set(node, shift);
    else for (const node of groupNodes(group)) moved.set(node, shifts[k]);
  });
  // The body ends with its last statement (where it moves to), and the class with its body.
  const lastChild = body.children[body.children.length - 1];
  body.endIndex = lastChild ? lastChild.endIndex + (moved.get(lastChild) ?? 0) : head.bodyStart;
  classNode.endIndex = top.endIndex = body.endIndex;
  const unverified = hasError ? groupsUnverified([...new Set([top, classNode, body])], groups) : undefined;
  return {
    start,
    end,
    nodes: [top, ...last.after],
    hasError,
    moved,
    split,
    ...(unverified ? { unverified } : {}),
  };
}

/** A new node with no children yet, numbered later. */
function node(
  source: SourceText,
  type: string,
  field: string | null,
  start: number,
  end: number,
): LoweredNode {
  const made = new LoweredNode(0, source, type, field, start, end, null, indexSlotOf(type));
  made.children = [];
  return made;
}

/** Appends `children` to `parent`'s children. */
function adopt(parent: LoweredNode, children: readonly LoweredNode[]): void {
  for (const child of children) {
    child.parent = parent;
    parent.children.push(child);
  }
}

/** Every node a group holds at its top: decorators and the class's first children (first group), members, nodes after. */
function groupNodes(group: MemberGroup): LoweredNode[] {
  const { head } = group;
  return [...(head?.decorators ?? []), ...(head?.children ?? []), ...group.members, ...group.after];
}

/**
 * The split of a class chunk of an error-free whole-file lowering (`nodes`: the class or
 * its decorated definition, then the nodes after it), when each of the class's children
 * lies inside one group: what parsing each group gives (docs/performance-log.md).
 */
export function splitOfWholeClass(
  text: string,
  start: number,
  end: number,
  nodes: readonly LoweredNode[],
): ClassSplit | undefined {
  const cuts = classCuts(text, start, end);
  const [top, ...after] = nodes;
  const decorated = top?.type === 'decorated_definition';
  const classNode = decorated ? top.children[top.children.length - 1] : top;
  const body = classNode?.children.find((child) => child.field === 'body');
  if (
    !cuts ||
    classNode?.type !== 'class_definition' ||
    classNode.startIndex !== cuts.classStart ||
    body?.type !== 'block'
  )
    return undefined;
  const headChildren = classNode.children.filter((child) => child !== body);
  if (headChildren.some((child) => child.startIndex > body.startIndex)) return undefined;
  const bounds = [start, ...cuts.cuts, end];
  const groups: MemberGroup[] = [];
  let next = 0;
  for (let k = 0; k + 1 < bounds.length; k++) {
    const members: LoweredNode[] = [];
    while (next < body.children.length && body.children[next].startIndex < bounds[k + 1]) {
      const member = body.children[next++];
      if (member.startIndex < bounds[k] || member.endIndex > bounds[k + 1]) return undefined;
      members.push(member);
    }
    const isLast = k + 2 === bounds.length;
    const decorators = decorated ? top.children.slice(0, -1) : undefined;
    groups.push({
      start: bounds[k],
      end: bounds[k + 1],
      members,
      after: isLast ? [...after] : [],
      hasError: false,
      ...(k === 0 ? { head: { children: headChildren, bodyStart: body.startIndex, decorators } } : {}),
    });
  }
  if (after.some((node) => node.startIndex < bounds[bounds.length - 2])) return undefined;
  return { classStart: cuts.classStart, headerEnd: cuts.headerEnd, groups };
}

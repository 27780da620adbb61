// Large definitions in a text with syntax errors: a chunk (chunks.ts) that is one class or
// one function of at least SPLIT_DEFINITION characters is parsed in groups of its body's
// statements (a class's members; a function's statements), each group with the definition's
// header lines before it (tree-sitter included ranges), and the groups' nodes go under one
// definition node and its body. A keystroke in one method, or in one part of a long training
// function, then re-parses that group alone, where the whole definition (in one public file,
// 96 % of it) was parsed before. A definition whose body is one large definition (torch's
// distributed tests keep their base class inside another) is cut inside that one, each group
// parsed under both headers. On the error-free files of the development corpus, every
// class and function split this way gives the nodes of the whole-file parse
// (docs/performance-log.md, "Large classes, member by member", "Large functions, statement
// group by statement group" and "A large class inside another").
import type { Parser } from 'web-tree-sitter';
import type { ChunkRecord, PreviousChunks } from './chunked';
import { definitionCuts, type DefinitionCuts } from './chunks';
import { unchangedParts } from './edit-spans';
import type { TextSpan } from './lower-reuse';
import { lineRange } from './points';
import { indexSlotOf, LoweredNode, lowerTree, type SourceText } from './syntax';
import { transplant, unverifiedOf } from './transplant';
import { collectGroups, groupsUnverified, nodesInside } from './chunk-groups';
import { includedRangesOf } from './comment-runs';
import {
  groupNodes,
  headNodes,
  innerParts,
  sameLevel,
  shiftGroup,
  type DefinitionSplit,
  type MemberGroup,
} from './definition-split';

/** Counts for the benchmark and tests. */
export const definitionChunkCounts = { parsed: 0, reused: 0, declined: 0 };

/** Test-only fault: a group taken from the last version keeps its offsets (its nodes do not move with the edit). */
let staleGroups = false;
export function setDefinitionChunkFault(on: boolean): void {
  staleGroups = on;
}

/**
 * The chunk `[start, end)` of `source`'s text lowered group by group when it is a large
 * class or function (see {@link definitionCuts}); a group whose text and the header's are unchanged since
 * `previous` (where `old` was this chunk) is taken from it. Undefined when the chunk is not
 * such a definition, or when a group's parse is not that definition with a body (a broken header): the
 * chunk is then parsed whole.
 */
export function lowerDefinitionChunk(
  parser: Parser,
  source: SourceText,
  start: number,
  end: number,
  previous?: PreviousChunks,
  old?: ChunkRecord,
  minLength?: number,
): ChunkRecord | undefined {
  const cuts = definitionCuts(source.text, start, end, minLength);
  if (!cuts) return undefined;
  const bounds = [start, ...cuts.cuts, end];
  // NOTE: a group is taken back only into a split cut at the same level: an edit after the
  // headers can give the outer body a cut of its own (or take it away), and a first group that
  // ends where the old one did then holds the inner definition's head, not its statements.
  const reusable =
    previous && old?.split && old.start === start && sameLevel(old.split, cuts)
      ? unchangedGroups(old.split, previous.span, source.text.length)
      : new Map<number, MemberGroup>();
  const collected = collectGroups({
    bounds,
    reusable,
    stale: staleGroups,
    shiftBy: shiftGroup,
    parse: (groupStart, groupEnd) => parseGroup(parser, source, cuts, groupStart, groupEnd),
    counts: definitionChunkCounts,
  });
  if (!collected) return undefined;
  const { groups, shifts, reused } = collected;
  // NOTE: a group before the last with nodes after its definition and no error holds a simple
  // statement at column 0 (see definitionCuts): the lines after it are not the definition's in the
  // whole parse, so the whole chunk is parsed instead.
  const stray = (group: MemberGroup) => group.after.length + (group.innerAfter?.length ?? 0) > 0;
  if (groups.some((group, k) => k + 1 < groups.length && stray(group) && !group.hasError)) {
    definitionChunkCounts.declined++;
    return undefined;
  }
  // NOTE: only now, with every group accepted: taking back statements moves the previous
  // version's nodes, which the whole-chunk parse of a declined split must find in place.
  const settled = groups.map((group, k) => (reused.has(k) ? group : takeBack(group, previous)));
  const { definitionStart, headerEnd, type, inner } = cuts;
  return assembleDefinition(
    source,
    start,
    end,
    { type, definitionStart, headerEnd, ...(inner ? { inner } : {}), groups: settled },
    shifts,
  );
}

/**
 * The previous split's groups whose text is unchanged, by their start in the new text,
 * when the header's text is unchanged too (every group is parsed with it).
 */
function unchangedGroups(split: DefinitionSplit, span: TextSpan, length: number): Map<number, MemberGroup> {
  return span.start < split.headerEnd ? new Map() : unchangedParts(split.groups, span, length);
}

/**
 * Parses the group `[start, end)` with the header lines (the `class` or `def` line to `headerEnd`)
 * before it (the first group holds them, after any decorators) and lowers it afresh (see
 * {@link takeBack}). Undefined when the parse is not the definition with a body.
 */
function parseGroup(
  parser: Parser,
  source: SourceText,
  cuts: DefinitionCuts,
  start: number,
  end: number,
): MemberGroup | undefined {
  const { definitionStart, headerEnd, type } = cuts;
  definitionChunkCounts.parsed++;
  const first = start <= definitionStart;
  const ranges = first
    ? [lineRange(source, start, end)]
    : [lineRange(source, definitionStart, headerEnd), lineRange(source, start, end)];
  const tree = parser.parse(source.text, null, { includedRanges: includedRangesOf(source.text, ranges) });
  if (!tree) {
    parser.reset();
    throw new Error("tree-sitter returned no tree for a group of a definition's statements");
  }
  let root: LoweredNode;
  let hasError: boolean;
  try {
    hasError = tree.rootNode.hasError;
    root = lowerTree(tree, source.text, undefined, source).root as LoweredNode;
  } finally {
    tree.delete();
  }
  // NOTE: an error in a group can leave its definition inside an ERROR node with the statements
  // after the error (a letter typed at column 0 ends the definition there): that node is left
  // out, and what it holds after the definition is taken as nodes after it.
  const wrapped = root.children[0]?.type === 'ERROR' && root.children[0].startIndex === root.startIndex;
  const [top, ...outside] = wrapped
    ? [...root.children[0].children, ...root.children.slice(1)]
    : root.children;
  // NOTE: an error in the header lines can end the definition inside them (`e):` at column 0 after
  // a broken base list): what follows it there is the first group's text, so a later group
  // keeps only the nodes that start in its own lines.
  const after = first ? outside : nodesInside(outside, start, Infinity);
  const decorated = first && top?.type === 'decorated_definition';
  const definition = decorated ? top.children[top.children.length - 1] : top;
  const decorators = decorated ? top.children.slice(0, -1) : undefined;
  const body = definition?.children.find((child) => child.field === 'body');
  const headChildren: LoweredNode[] = [];
  const members: LoweredNode[] = [];
  /** An inner definition's split: the outer definition's nodes after the inner one (see {@link MemberGroup.innerAfter}). */
  const innerAfter: LoweredNode[] = [];
  const found =
    definition?.type === type && definition.startIndex === definitionStart && body?.type === 'block';
  const inner = found && cuts.inner ? innerParts(cuts.inner, body) : undefined;
  if (found && (inner || !cuts.inner)) {
    let beforeBody = true;
    for (const child of definition.children) {
      if (child === body) {
        beforeBody = false;
        if (inner) {
          members.push(...inner.members.filter((member) => member.startIndex >= start));
          innerAfter.push(...body.children.slice(inner.index + 1).filter((node) => node.startIndex >= start));
        } else for (const member of body.children) if (member.startIndex >= start) members.push(member);
      } else if (first && beforeBody) headChildren.push(child);
      else if (child.startIndex >= start) (inner ? innerAfter : members).push(child);
    }
  } else if (first || !hasError) return undefined;
  // NOTE: an error can keep a group's parse from making a definition of the header at all (an
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
    ...(cuts.inner ? { innerAfter } : {}),
    hasError,
    ...(first
      ? {
          head: {
            children: headChildren,
            bodyStart: body!.startIndex,
            decorators,
            ...(inner ? { inner: inner.head } : {}),
          },
        }
      : {}),
  };
}

/**
 * A group just parsed with the previous version's statements of the same shape outside the
 * edit put back (see transplant.ts), and, when it has errors, its nodes no later lowering
 * may reuse.
 */
function takeBack(group: MemberGroup, previous: PreviousChunks | undefined): MemberGroup {
  const innerAfter = group.innerAfter ?? [];
  const nodes = [...group.members, ...innerAfter, ...group.after];
  const taken = previous ? transplant(nodes, previous, group.start, group.end) : undefined;
  const unverified = group.hasError
    ? unverifiedOf(
        [...headNodes(group), ...nodes],
        taken?.moved ?? new Map(),
        taken?.unverifiedTwins ?? new Set(),
      )
    : undefined;
  const afterInner = group.members.length + innerAfter.length;
  return {
    ...group,
    members: nodes.slice(0, group.members.length),
    ...(group.innerAfter ? { innerAfter: nodes.slice(group.members.length, afterInner) } : {}),
    after: nodes.slice(afterInner),
    moved: taken?.moved ?? new Map(),
    ...(unverified ? { unverified } : {}),
  };
}

/**
 * The definition node holding every group's statements in its body (under a decorated
 * definition when it has decorators), and the chunk record for it: its nodes are that node
 * and the nodes after the definition in the last group (an error in a group before it can
 * leave nodes after its definition: they go into the body, in order).
 */
function assembleDefinition(
  source: SourceText,
  start: number,
  end: number,
  split: DefinitionSplit,
  shifts: readonly number[],
): ChunkRecord {
  const { groups, definitionStart } = split;
  const head = groups[0].head!;
  const last = groups[groups.length - 1];
  const definition = node(source, split.type, head.decorators ? 'definition' : null, definitionStart, end);
  const body = node(source, 'block', 'body', head.bodyStart, end);
  const top = head.decorators ? node(source, 'decorated_definition', null, start, end) : definition;
  adopt(definition, [...head.children, body]);
  if (top !== definition) adopt(top, [...head.decorators!, definition]);
  const made = [top, definition, body];
  // An inner definition's split: the groups' statements go into the inner body (see DefinitionCuts.inner).
  let members = body;
  let innerTop: LoweredNode | undefined;
  if (split.inner && head.inner) {
    const { inner } = head;
    const innerDefinition = node(
      source,
      split.inner.type,
      inner.decorators ? 'definition' : null,
      split.inner.definitionStart,
      end,
    );
    members = node(source, 'block', 'body', inner.bodyStart, end);
    innerTop = inner.decorators
      ? node(source, 'decorated_definition', null, split.inner.topStart, end)
      : innerDefinition;
    adopt(innerDefinition, [...inner.children, members]);
    if (innerTop !== innerDefinition) adopt(innerTop, [...inner.decorators!, innerDefinition]);
    adopt(body, [...inner.before, innerTop]);
    made.push(innerTop, innerDefinition, members);
  }
  const moved = new Map<LoweredNode, number>();
  let hasError = false;
  groups.forEach((group, k) => {
    adopt(
      members,
      group === last ? group.members : [...group.members, ...(group.innerAfter ?? []), ...group.after],
    );
    hasError ||= group.hasError;
    if (group.moved) for (const [node, shift] of group.moved) moved.set(node, shift);
    else for (const node of groupNodes(group)) moved.set(node, shifts[k]);
  });
  // Each body ends with its last statement (where it moves to), and its definition with it.
  const endOf = (block: LoweredNode, bodyStart: number) => {
    const lastChild = block.children[block.children.length - 1];
    return lastChild ? lastChild.endIndex + (moved.get(lastChild) ?? 0) : bodyStart;
  };
  if (innerTop) {
    members.endIndex = endOf(members, head.inner!.bodyStart);
    members.parent!.endIndex = innerTop.endIndex = members.endIndex;
    adopt(body, last.innerAfter ?? []);
  }
  body.endIndex = endOf(body, head.bodyStart);
  definition.endIndex = top.endIndex = body.endIndex;
  const unverified = hasError ? groupsUnverified([...new Set(made)], groups) : undefined;
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

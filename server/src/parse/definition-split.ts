// What a large class or function chunk cut into groups is (definition-chunks.ts parses and puts
// it together): its groups of body statements with their nodes, how a split moves with an edit
// before it, the inner definition a split may cut (chunks.ts, DefinitionCuts.inner), and the
// split an error-free whole-file lowering gives, for the next version with an error to reuse.
import { definitionCuts, type DefinitionCuts } from './chunks';
import type { LoweredNode } from './syntax';
import type { ChunkGroup } from './chunk-groups';

/** A class or function chunk cut into groups of its body's statements, for the next version to reuse the unchanged ones. */
export interface DefinitionSplit {
  /** What the chunk defines. */
  type: DefinitionCuts['type'];
  /** Where the `class` or `def` line starts and the header lines end (see {@link DefinitionCuts}). */
  definitionStart: number;
  headerEnd: number;
  /** The one definition the body holds, whose body the groups cut (see {@link DefinitionCuts.inner}). */
  inner?: DefinitionCuts['inner'];
  groups: MemberGroup[];
}

/** One group of a definition's body statements, as a parse of the header lines and the group gives them. */
export interface MemberGroup extends ChunkGroup {
  /** The nodes the group adds to the definition's body, in order. */
  members: LoweredNode[];
  /** The module-level nodes after the definition in the group's parse: the chunk's last nodes when the group is the last. */
  after: LoweredNode[];
  hasError: boolean;
  /** For a group just parsed: the previous version's statements it took back, with how far each moves. */
  moved?: ReadonlyMap<LoweredNode, number>;
  /**
   * A split of an inner definition only: the outer definition's nodes after the inner one
   * (comments after its last statement; an error's nodes). In a group before the last, only
   * with an error: they then go into the inner body, in order, as a group's nodes after the
   * definition do.
   */
  innerAfter?: LoweredNode[];
  /** The first group only: the definition node's children before its body, where the body starts, and a decorated definition's decorators (and comments between them). */
  head?: DefinitionHead & {
    /** A split of an inner definition: its head. */
    inner?: InnerHead;
  };
}

/** An inner definition's head, with the outer body's nodes before it (comments). */
type InnerHead = DefinitionHead & { before: LoweredNode[] };

/** A definition's children before its body, where the body starts, and a decorated definition's decorators (and comments between them). */
interface DefinitionHead {
  children: LoweredNode[];
  bodyStart: number;
  decorators?: LoweredNode[];
}

/** Whether `split` was cut at the level `cuts` are: in the same inner definition's body, or in the definition's own. */
export function sameLevel(split: DefinitionSplit, cuts: DefinitionCuts): boolean {
  const [was, is] = [split.inner, cuts.inner];
  if (!was || !is) return was === is;
  return was.topStart === is.topStart && was.definitionStart === is.definitionStart && was.type === is.type;
}

/** A split kept whole by a chunk that moved by `shift`: its offsets moved too. */
export function shiftSplit(split: DefinitionSplit, shift: number): DefinitionSplit {
  return shift === 0
    ? split
    : {
        type: split.type,
        definitionStart: split.definitionStart + shift,
        headerEnd: split.headerEnd + shift,
        ...(split.inner
          ? {
              inner: {
                ...split.inner,
                topStart: split.inner.topStart + shift,
                definitionStart: split.inner.definitionStart + shift,
              },
            }
          : {}),
        groups: split.groups.map((group) => shiftGroup(group, shift)),
      };
}

/** A group of a split that moved by `shift` (a group taken from the last version). */
export function shiftGroup(group: MemberGroup, shift: number): MemberGroup {
  if (shift === 0 && !group.moved) return group;
  const { moved: _moved, ...rest } = group;
  return {
    ...rest,
    start: group.start + shift,
    end: group.end + shift,
    ...(group.head ? { head: shiftHead(group.head, shift) } : {}),
  };
}

/** A first group's head that moved by `shift`. */
function shiftHead(head: NonNullable<MemberGroup['head']>, shift: number): NonNullable<MemberGroup['head']> {
  const { inner } = head;
  return {
    ...head,
    bodyStart: head.bodyStart + shift,
    ...(inner ? { inner: { ...inner, bodyStart: inner.bodyStart + shift } } : {}),
  };
}

/**
 * The inner definition of `inner` (see {@link DefinitionCuts.inner}) in the outer
 * definition's `body`: its index there, its head (with the outer body's nodes before it), and
 * its members: its body's statements, then any children after its body (an error's). Undefined
 * when `body` does not hold it.
 */
export function innerParts(
  inner: NonNullable<DefinitionCuts['inner']>,
  body: LoweredNode,
): { index: number; head: InnerHead; members: LoweredNode[] } | undefined {
  const index = body.children.findIndex((child) => child.startIndex === inner.topStart);
  const found = definitionIn(body.children[index], inner.type, inner.definitionStart);
  if (!found) return undefined;
  const { definition, body: innerBody, decorators } = found;
  const bodyAt = definition.children.indexOf(innerBody);
  return {
    index,
    head: {
      before: body.children.slice(0, index),
      children: definition.children.slice(0, bodyAt),
      bodyStart: innerBody.startIndex,
      decorators,
    },
    members: [...innerBody.children, ...definition.children.slice(bodyAt + 1)],
  };
}

/**
 * The definition `top` is or decorates, with its body and its decorators (and comments
 * between them), when it is a `type` whose `class` or `def` starts at `definitionStart` and
 * has a body block.
 */
function definitionIn(
  top: LoweredNode | undefined,
  type: DefinitionCuts['type'],
  definitionStart: number,
): { definition: LoweredNode; body: LoweredNode; decorators?: LoweredNode[] } | undefined {
  const decorated = top?.type === 'decorated_definition';
  const definition = decorated ? top.children[top.children.length - 1] : top;
  const body = definition?.children.find((child) => child.field === 'body');
  if (definition?.type !== type || definition.startIndex !== definitionStart || body?.type !== 'block')
    return undefined;
  return { definition, body, ...(decorated ? { decorators: top.children.slice(0, -1) } : {}) };
}

/** Every node a group holds at its top: its head's (first group), members, nodes after. */
export function groupNodes(group: MemberGroup): LoweredNode[] {
  return [...headNodes(group), ...group.members, ...(group.innerAfter ?? []), ...group.after];
}

/** The first group's nodes before the members: decorators and the definition's first children, and an inner definition's (with the outer body's nodes before it). */
export function headNodes({ head }: MemberGroup): LoweredNode[] {
  if (!head) return [];
  const { inner } = head;
  const innerNodes = inner ? [...inner.before, ...(inner.decorators ?? []), ...inner.children] : [];
  return [...(head.decorators ?? []), ...head.children, ...innerNodes];
}

/**
 * The split of a class or function chunk of an error-free whole-file lowering (`nodes`: the
 * definition or its decorated definition, then the nodes after it), when each of the definition's children
 * lies inside one group: what parsing each group gives (docs/performance-log.md).
 */
export function splitOfWholeDefinition(
  text: string,
  start: number,
  end: number,
  nodes: readonly LoweredNode[],
): DefinitionSplit | undefined {
  const cuts = definitionCuts(text, start, end);
  const [top, ...after] = nodes;
  const found = cuts && definitionIn(top, cuts.type, cuts.definitionStart);
  if (!found) return undefined;
  const { definition, body, decorators } = found;
  const headChildren = definition.children.filter((child) => child !== body);
  if (headChildren.some((child) => child.startIndex > body.startIndex)) return undefined;
  // An inner definition's split: the groups hold the inner body's statements.
  const parts = cuts.inner ? innerParts(cuts.inner, body) : undefined;
  if (cuts.inner && !parts) return undefined;
  const statements = parts ? parts.members : body.children;
  const innerAfter = parts ? body.children.slice(parts.index + 1) : undefined;
  const bounds = [start, ...cuts.cuts, end];
  const groups: MemberGroup[] = [];
  let next = 0;
  for (let k = 0; k + 1 < bounds.length; k++) {
    const members: LoweredNode[] = [];
    while (next < statements.length && statements[next].startIndex < bounds[k + 1]) {
      const member = statements[next++];
      if (member.startIndex < bounds[k] || member.endIndex > bounds[k + 1]) return undefined;
      members.push(member);
    }
    const isLast = k + 2 === bounds.length;
    groups.push({
      start: bounds[k],
      end: bounds[k + 1],
      members,
      after: isLast ? [...after] : [],
      ...(innerAfter ? { innerAfter: isLast ? innerAfter : [] } : {}),
      hasError: false,
      ...(k === 0
        ? {
            head: {
              children: headChildren,
              bodyStart: body.startIndex,
              decorators,
              ...(parts ? { inner: parts.head } : {}),
            },
          }
        : {}),
    });
  }
  const lastStart = bounds[bounds.length - 2];
  if ([...after, ...(innerAfter ?? [])].some((node) => node.startIndex < lastStart)) return undefined;
  const { type, definitionStart, headerEnd, inner } = cuts;
  return { type, definitionStart, headerEnd, ...(inner ? { inner } : {}), groups };
}

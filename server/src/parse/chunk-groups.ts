// The groups a large chunk is parsed in (a definition's statements: definition-chunks.ts; a literal's
// entries: literal-chunks.ts): each group is taken from the last version when its text is
// unchanged (its nodes moved by the edit), or parsed alone; and the unverified nodes of a
// chunk put together from groups with errors, and the nodes of a group's parse that lie in it.
import type { LoweredNode } from './syntax';
import type { UnverifiedNodes } from './transplant';

/** What every kind of group records: its bounds, and for a group with errors its unverified nodes. */
export interface ChunkGroup {
  start: number;
  end: number;
  unverified?: UnverifiedNodes;
}

/** Counts of one kind of group, for the benchmark and tests. */
export interface GroupCounts {
  parsed: number;
  reused: number;
  declined: number;
}

/** The groups of a chunk, in order, with how far each group's nodes move, and which were taken from the last version. */
export interface CollectedGroups<G> {
  groups: G[];
  shifts: number[];
  /** The indices of the groups taken from the last version. */
  reused: Set<number>;
}

/**
 * The groups `[bounds[k], bounds[k + 1])`: the last version's group that starts there (in
 * `reusable`, by its start in the new text) when it has the same length, moved by `shiftBy`
 * (by 0 when `stale`, a test-only fault), or else `parse(start, end, k)`. Undefined as soon
 * as a parse declines (the chunk is then parsed whole).
 */
export function collectGroups<G extends ChunkGroup>(input: {
  bounds: readonly number[];
  reusable: ReadonlyMap<number, G>;
  stale: boolean;
  shiftBy: (group: G, shift: number) => G;
  parse: (start: number, end: number, k: number) => G | undefined;
  counts: GroupCounts;
}): CollectedGroups<G> | undefined {
  const { bounds, reusable, counts } = input;
  const collected: CollectedGroups<G> = { groups: [], shifts: [], reused: new Set() };
  for (let k = 0; k + 1 < bounds.length; k++) {
    const start = bounds[k];
    const end = bounds[k + 1];
    const kept = reusable.get(start);
    if (kept && kept.end - kept.start === end - start) {
      const shift = input.stale ? 0 : start - kept.start;
      collected.reused.add(k);
      collected.groups.push(input.shiftBy(kept, shift));
      collected.shifts.push(shift);
      counts.reused++;
      continue;
    }
    const group = input.parse(start, end, k);
    if (!group) {
      counts.declined++;
      return undefined;
    }
    collected.groups.push(group);
    collected.shifts.push(0);
  }
  return collected;
}

/** The unverified nodes of a chunk with errors put together from groups: the nodes made for it, and those of the groups (see chunked.ts). */
export function groupsUnverified(made: LoweredNode[], groups: readonly ChunkGroup[]): UnverifiedNodes {
  const fresh = made;
  const subtrees: LoweredNode[] = [];
  for (const group of groups) {
    if (!group.unverified) continue;
    fresh.push(...group.unverified.fresh);
    subtrees.push(...group.unverified.subtrees);
  }
  return { fresh, subtrees };
}

/** The outermost nodes of `nodes` and their subtrees that lie in `[start, end)`. */
export function nodesInside(nodes: readonly LoweredNode[], start: number, end: number): LoweredNode[] {
  const found: LoweredNode[] = [];
  for (const node of nodes) {
    if (node.endIndex <= start || node.startIndex >= end) continue;
    if (node.startIndex >= start && node.endIndex <= end) found.push(node);
    else found.push(...nodesInside(node.children, start, end));
  }
  return found;
}

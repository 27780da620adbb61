// The environment of a branch (an `if` arm, a comprehension's scope) during kind inference:
// the names the branch binds, layered over the environment it started from, instead of a
// full copy of it. Reads fall through to the base; writes stay in the branch. A function with
// a hundred locals and a hundred `if`s copied ten thousand entries before.
import type { Kind } from './kinds';

type Env = Map<string, Kind>;

/**
 * A `Map` whose every read (get, has, size, iteration) sees the base's entries under its own.
 * The base must not change while the branch is in use (the walk writes only to the
 * innermost branch).
 */
export class BranchEnv extends Map<string, Kind> {
  constructor(private readonly base: Env) {
    super();
  }

  /** The names bound in this branch itself. */
  ownNames(): IterableIterator<string> {
    return super.keys();
  }

  override get(name: string): Kind | undefined {
    // NOTE: a Kind is never undefined, so one lookup tells whether this branch binds `name`.
    return super.get(name) ?? this.base.get(name);
  }

  override has(name: string): boolean {
    return super.has(name) || this.base.has(name);
  }

  override get size(): number {
    let size = super.size;
    for (const name of this.base.keys()) if (!super.has(name)) size++;
    return size;
  }

  override *entries(): MapIterator<[string, Kind]> {
    for (const entry of this.base.entries()) if (!super.has(entry[0])) yield entry;
    yield* super.entries();
  }

  override *keys(): MapIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  override *values(): MapIterator<Kind> {
    for (const [, kind] of this.entries()) yield kind;
  }

  override [Symbol.iterator](): MapIterator<[string, Kind]> {
    return this.entries();
  }

  override forEach(callback: (kind: Kind, name: string, map: Map<string, Kind>) => void): void {
    for (const [name, kind] of this.entries()) callback(kind, name, this);
  }
}

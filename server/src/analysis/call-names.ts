// Calls grouped by the last name of what they call, built with one pass per document version:
// the rules and the role model look for a few names (`synchronize`, `DataLoader`, the file's
// own functions) among every call, and a lookup beats reading each call once per question.
import type { SyntaxNode } from '../parse/syntax';
import type { ImportTable } from './imports';
import { fieldOf, mergeInDocumentOrder, unwrap } from './syntax-helpers';

/**
 * The calls of one file under each name they may call. A call's callee, parentheses
 * stripped, gives its names: the attribute of `x.name(...)`, the identifier of `name(...)`,
 * and for an identifier bound by an import the last part of what it was imported as
 * (`ckpt(...)` after `from torch.utils.checkpoint import checkpoint as ckpt` is under
 * `ckpt` and `checkpoint`). So every call whose callee resolves to a qualified name ending in
 * `.name`, every method call `x.name(...)`, and every plain call `name(...)` is under `name`.
 */
export class CallNameIndex {
  private groupsValue: Map<string, SyntaxNode[]> | undefined;
  private plainCallsValue: SyntaxNode[] = [];

  constructor(
    private readonly calls: readonly SyntaxNode[],
    /** The file's imports (absent: identifiers stand for themselves alone). */
    private readonly imports?: ImportTable,
  ) {}

  /** The calls under `name`, in document order. */
  named(name: string): readonly SyntaxNode[] {
    return this.groups().get(name) ?? [];
  }

  /** The calls under any of `names`, in document order, each once. */
  namedAny(names: Iterable<string>): SyntaxNode[] {
    const lists: (readonly SyntaxNode[])[] = [];
    for (const name of new Set(names)) {
      const calls = this.groups().get(name);
      if (calls) lists.push(calls);
    }
    if (lists.length === 1) return [...lists[0]];
    // A call is under two names when an import renamed it: both may be asked for.
    const merged = mergeInDocumentOrder(lists);
    return merged.filter((call, i) => call !== merged[i - 1]);
  }

  /** Every call whose callee, parentheses stripped, is a plain name (`f(...)`), in document order. */
  plainCalls(): readonly SyntaxNode[] {
    this.groups();
    return this.plainCallsValue;
  }

  /** The calls under every name `accepts`, in document order, each once. */
  namedWhere(accepts: (name: string) => boolean): SyntaxNode[] {
    return this.namedAny([...this.groups().keys()].filter(accepts));
  }

  private groups(): Map<string, SyntaxNode[]> {
    if (this.groupsValue) return this.groupsValue;
    const groups = new Map<string, SyntaxNode[]>();
    const file = (name: string, call: SyntaxNode) => {
      const group = groups.get(name);
      if (group) group.push(call);
      else groups.set(name, [call]);
    };
    for (const call of this.calls) {
      const callee = fieldOf(call, 'function');
      if (!callee) continue;
      const target = unwrap(callee);
      if (target.type === 'attribute') {
        const attribute = fieldOf(target, 'attribute');
        if (attribute) file(attribute.text, call);
      } else if (target.type === 'identifier') {
        this.plainCallsValue.push(call);
        const name = target.text;
        file(name, call);
        const imported = this.imports?.lookup(name);
        const last = imported?.slice(imported.lastIndexOf('.') + 1);
        if (last && last !== name) file(last, call);
      }
    }
    this.groupsValue = groups;
    return groups;
  }
}

// The classes of one file by name, with their own methods and their bases in the file: what
// `super().name(...)` may run (training-step.ts follows it like any other call of the file).
import type { SyntaxNode } from '../parse/syntax';
import { fieldOf, firstPositionalArg, isPositional, unwrap } from './syntax-helpers';
import { enclosingClass } from './value-vocabulary';

/**
 * The file's classes by name, with their own methods: what `super().name(...)` runs is the
 * method `name` of the class's bases, the first along each base's own bases that defines it
 * (Python's method resolution order for single inheritance; a base that is not a class of the
 * file, such as `nn.Module`, contributes nothing).
 */
export class ClassIndex {
  private readonly byName = new Map<string, SyntaxNode[]>();
  private readonly methods = new Map<SyntaxNode, Map<string, SyntaxNode[]>>();

  constructor(classes: readonly SyntaxNode[]) {
    for (const cls of classes) {
      const name = fieldOf(cls, 'name')?.text;
      if (!name) continue;
      const known = this.byName.get(name);
      if (known) known.push(cls);
      else this.byName.set(name, [cls]);
      const own = new Map<string, SyntaxNode[]>();
      for (const statement of fieldOf(cls, 'body')?.children ?? []) {
        const fn = statement.type === 'decorated_definition' ? fieldOf(statement, 'definition') : statement;
        const fnName = fn?.type === 'function_definition' ? fieldOf(fn, 'name')?.text : undefined;
        if (!fn || !fnName) continue;
        const same = own.get(fnName);
        if (same) same.push(fn);
        else own.set(fnName, [fn]);
      }
      this.methods.set(cls, own);
    }
  }

  /**
   * The methods `super(...).name` may run: from the class named by `super`'s first argument
   * (`super(Block, self)`) or else the class around the call, the method `name` of each base
   * of the file, or of that base's own bases where it defines none.
   */
  superMethods(superCall: SyntaxNode, name: string): readonly SyntaxNode[] {
    const explicit = firstPositionalArg(superCall);
    const around = enclosingClass(superCall);
    const start =
      explicit && unwrap(explicit).type === 'identifier'
        ? (this.byName.get(unwrap(explicit).text) ?? [])
        : around
          ? [around]
          : [];
    const found: SyntaxNode[] = [];
    const visited = new Set<SyntaxNode>(start);
    const pending = start.flatMap((cls) => this.bases(cls));
    while (pending.length) {
      const base = pending.shift()!;
      if (visited.has(base)) continue;
      visited.add(base);
      const own = this.methods.get(base)?.get(name);
      if (own) found.push(...own);
      else pending.push(...this.bases(base));
    }
    return found;
  }

  /**
   * The classes of the file that `cls` names as its bases: `class B(A, nn.Module)` gives A's
   * definitions. A dotted base (`layers.Block`) is another module's class, whatever its name.
   */
  private bases(cls: SyntaxNode): SyntaxNode[] {
    const list = fieldOf(cls, 'superclasses');
    if (!list) return [];
    return list.children.filter(isPositional).flatMap((base) => {
      const target = unwrap(base);
      return (target.type === 'identifier' && this.byName.get(target.text)) || [];
    });
  }
}

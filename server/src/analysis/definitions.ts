// What the kind inference knows before it walks any code: the file's functions and
// nn.Module classes, and each function's parameters with the kinds their signature shows
// (`self` of a module, annotations, the tensor inputs of `forward` and training steps).
import type { SyntaxNode } from '../parse/syntax';
import type { NodeIndex } from './file-model';
import type { ImportTable } from './imports';
import type { Kind } from './kinds';
import { fieldOf } from './syntax-helpers';
import { STEP_ARGUMENTS, enclosingClass } from './value-vocabulary';

const MODULE_BASE =
  /^torch\.nn\.(Module|modules\.module\.Module)$|^(pl|lightning|pytorch_lightning)\.|LightningModule$|PreTrainedModel$/;
const TENSOR_ARGUMENT_FUNCTIONS =
  /^(forward|training_step|validation_step|test_step|predict_step|compute_loss)$/;

/** The file's functions and module classes, and (memoised) each function's parameters. */
export class Definitions {
  /** Every function definition, in document order. */
  readonly functionNodes: readonly SyntaxNode[];
  /** Function name → its first definition. */
  readonly functions = new Map<string, SyntaxNode>();
  /** Names of the classes that are nn.Module subclasses (directly or through a class of this file). */
  readonly moduleClasses = new Set<string>();
  private readonly initial = new Map<SyntaxNode, ReadonlyMap<string, Kind>>();
  private readonly names = new Map<SyntaxNode, readonly string[]>();
  private methodsByClass: Map<SyntaxNode, Map<string, SyntaxNode>> | undefined;

  constructor(nodes: NodeIndex, imports: ImportTable) {
    this.functionNodes = nodes.function_definition;
    for (const node of nodes.function_definition) {
      const name = fieldOf(node, 'name')?.text;
      if (name && !this.functions.has(name)) this.functions.set(name, node);
    }
    const classBases = new Map<string, string[]>();
    for (const node of nodes.class_definition) {
      const name = fieldOf(node, 'name')?.text ?? '';
      const bases = fieldOf(node, 'superclasses');
      classBases.set(name, bases ? bases.children.map((b) => imports.resolve(b) ?? b.text) : []);
    }
    let changed = true;
    while (changed) {
      changed = false;
      for (const [name, bases] of classBases) {
        if (this.moduleClasses.has(name)) continue;
        if (bases.some((b) => MODULE_BASE.test(b) || this.moduleClasses.has(b))) {
          this.moduleClasses.add(name);
          changed = true;
        }
      }
    }
  }

  /** The method `name` of class `cls` (its first definition there), if it has one. */
  methodOf(cls: SyntaxNode, name: string): SyntaxNode | undefined {
    if (!this.methodsByClass) {
      this.methodsByClass = new Map();
      for (const fn of this.functionNodes) {
        const owner = enclosingClass(fn);
        const fnName = fieldOf(fn, 'name')?.text;
        if (!owner || !fnName) continue;
        let methods = this.methodsByClass.get(owner);
        if (!methods) this.methodsByClass.set(owner, (methods = new Map()));
        if (!methods.has(fnName)) methods.set(fnName, fn);
      }
    }
    return this.methodsByClass.get(cls)?.get(name);
  }

  /** The names of `fn`'s parameters, in order. */
  parameterNames(fn: SyntaxNode): readonly string[] {
    let names = this.names.get(fn);
    if (!names) {
      names = parameterList(fn);
      this.names.set(fn, names);
    }
    return names;
  }

  /** Parameter name → the kind `fn`'s signature shows (`unknown` where it shows none). */
  initialParameters(fn: SyntaxNode): ReadonlyMap<string, Kind> {
    let env = this.initial.get(fn);
    if (!env) {
      env = this.signatureKinds(fn);
      this.initial.set(fn, env);
    }
    return env;
  }

  private signatureKinds(fn: SyntaxNode): Map<string, Kind> {
    const env = new Map<string, Kind>();
    const cls = enclosingClass(fn);
    const inModule = !!cls && this.moduleClasses.has(fieldOf(cls, 'name')?.text ?? '');
    const tensorArguments = inModule && TENSOR_ARGUMENT_FUNCTIONS.test(fieldOf(fn, 'name')?.text ?? '');
    for (const { param, id } of parameters(fn)) {
      const annotation = fieldOf(param, 'type')?.text ?? '';
      const defaultValue = fieldOf(param, 'value');
      let kind: Kind = 'unknown';
      if (id.text === 'self' && inModule) kind = 'module';
      else if (/\bTensor\b/.test(annotation)) kind = 'tensor';
      else if (/^((torch\.)?nn\.)?Module$/.test(annotation)) kind = 'module';
      else if (/^(int|float|bool)$/.test(annotation)) kind = 'number';
      else if (tensorArguments && id.text !== 'self') {
        if (STEP_ARGUMENTS.test(id.text)) kind = 'number';
        else if (!defaultValue || defaultValue.type === 'none') kind = 'tensor';
      }
      env.set(id.text, kind);
    }
    return env;
  }
}

/** The names `fn`'s parameters bind, in order (`self`, splats and defaults included). */
export function parameterList(fn: SyntaxNode): string[] {
  return parameters(fn).map(({ id }) => id.text);
}

/** Each parameter of `fn` with the identifier it binds (splats and defaults included). */
function parameters(fn: SyntaxNode): { param: SyntaxNode; id: SyntaxNode }[] {
  const found: { param: SyntaxNode; id: SyntaxNode }[] = [];
  for (const param of fieldOf(fn, 'parameters')?.children ?? []) {
    const id = param.type === 'identifier' ? param : param.children.find((c) => c.type === 'identifier');
    if (id) found.push({ param, id });
  }
  return found;
}

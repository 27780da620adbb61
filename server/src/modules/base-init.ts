// `super().__init__(...)` (or no `__init__` at all) into a torch.nn base class: a user class
// deriving from nn.Sequential, nn.ModuleDict, nn.Conv2d, ... gets the children, parameters
// and buffers that base's constructor creates. A base we cannot build is an unknown part,
// never silently nothing.
import type { SyntaxNode } from '../parse/syntax';
import type { CallArgs } from './calls';
import type { ClassInfo } from './classes';
import { createContainer, isContainer } from './containers';
import type { Interpreter } from './interpreter';
import { createLayer, isKnownLayer } from './layers';
import type { ModuleInstance } from './module-instance';
import { NONE, type Value } from './values';

const TORCH_NN = /^torch\.nn\.(?:modules\.\w+\.)?(\w+)$/;

/** Library bases whose constructors create no parameters. */
const EMPTY_BASES =
  /(^torch\.nn(\.modules\.module)?\.Module$|PreTrainedModel$|LightningModule$|^abc\.ABC$|^typing\.)/;

/** Whether a library base name makes a class an nn.Module (torch.nn.Module, a container or a catalog layer). */
export function isModuleBase(name: string): boolean {
  if (/(PreTrainedModel|LightningModule)$/.test(name)) return true;
  const match = TORCH_NN.exec(name);
  return !!match && (match[1] === 'Module' || isContainer(match[1]) || isKnownLayer(match[1]));
}

/** The first library base along `cls`'s user MRO that is not empty (nn.Module); undefined when none. */
function libraryBase(interp: Interpreter, cls: ClassInfo): string | undefined {
  return interp.libraryBases(cls).find((name) => !EMPTY_BASES.test(name));
}

/** Runs the library base's `__init__` on `self` with `args`. */
export function initLibraryBase(
  interp: Interpreter,
  input: { cls: ClassInfo; self: Value; args: CallArgs; node: SyntaxNode },
): Value {
  const { cls, self, args, node } = input;
  if (self.kind !== 'module') return NONE;
  const base = libraryBase(interp, cls);
  if (!base) return NONE;
  const module = self.module;
  const match = TORCH_NN.exec(base);
  const name = match?.[1];
  let built: ModuleInstance | undefined;
  if (name && isContainer(name)) built = createContainer({ name, args, node });
  else if (name)
    built = createLayer({ name, positional: args.positional, keywords: args.keywords, text: node.text });
  if (!built) {
    module.unknowns.push({
      text: `${cls.name}(${base})`,
      reason: `base class \`${base}\` not evaluated`,
      line: cls.node.start.line,
    });
    return NONE;
  }
  if (args.incomplete)
    module.unknowns.push({ text: node.text, reason: (args.incomplete as { reason: string }).reason });
  module.containerKind = built.containerKind;
  if (built.layerConfig) module.layerConfig = built.layerConfig;
  for (const [key, child] of built.children) module.children.set(key, child);
  for (const [key, param] of built.params) module.params.set(key, param);
  for (const [key, buffer] of built.buffers) module.buffers.set(key, buffer);
  module.unknowns.push(...built.unknowns);
  return NONE;
}

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
import { runFunction } from './instantiate';
import { NONE, truthy, type Value } from './values';

const TORCH_NN = /^torch\.nn\.(?:modules\.\w+\.)?(\w+)$/;

/** Library bases whose constructors create no parameters. */
const EMPTY_BASES =
  /(^torch\.nn(\.modules\.module)?\.Module$|PreTrainedModel$|LightningModule$|^abc\.ABC$|^typing\.)/;

/** The special token ids transformers' PretrainedConfig sets from its keywords, None when not given. */
const TOKEN_IDS = ['pad_token_id', 'bos_token_id', 'eos_token_id', 'sep_token_id', 'decoder_start_token_id'];

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
  // transformers' PretrainedConfig.__init__(**kwargs) stores what it is given as attributes.
  if (self.kind === 'object' && interp.libraryBases(cls).some((b) => /PretrainedConfig$/.test(b))) {
    for (const [key, value] of args.keywords) self.fields.set(key, value);
    // Its special token ids default to None (configuration_utils.py: `kwargs.pop("pad_token_id", None)`, ...).
    for (const key of TOKEN_IDS) if (!args.keywords.has(key)) self.fields.set(key, NONE);
    return NONE;
  }
  if (self.kind !== 'module') return NONE;
  // transformers' PreTrainedModel.__init__(config) keeps the config as `self.config`.
  const config = args.positional[0] ?? args.keywords.get('config');
  if (config && interp.libraryBases(cls).some((b) => /PreTrainedModel$/.test(b)))
    self.module.attrs.set('config', config);
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

/**
 * Methods a library base gives a user module: transformers' `post_init()` / `tie_weights()`
 * tie the output embedding to the input embedding when `config.tie_word_embeddings` (default
 * True, `PretrainedConfig` docs) and the class defines `get_output_embeddings`; Lightning's
 * `save_hyperparameters()` creates nothing. Undefined for other methods.
 */
export function libraryModuleMethod(
  interp: Interpreter,
  input: { self: Value; name: string; node: SyntaxNode },
): Value | undefined {
  const { self, name, node } = input;
  const cls = self.kind === 'module' ? self.module.cls : undefined;
  // A method the user class defines itself runs instead (calls.ts).
  if (self.kind !== 'module' || !cls || interp.classAttribute(cls, name)) return undefined;
  const bases = interp.libraryBases(cls);
  if (name === 'save_hyperparameters' && bases.some((b) => /LightningModule$/.test(b))) return NONE;
  if (!['post_init', 'init_weights', 'tie_weights'].includes(name)) return undefined;
  if (!bases.some((b) => /PreTrainedModel$/.test(b))) return undefined;
  const module = self.module;
  const config = module.attrs.get('config');
  const flag = config?.kind === 'object' ? config.fields.get('tie_word_embeddings') : undefined;
  const tie = config?.kind === 'object' ? (flag === undefined ? true : truthy(flag)) : undefined;
  const fail = (reason: string) => {
    module.unknowns.push({ text: node.text, reason, line: node.start.line });
    return NONE;
  };
  if (tie === undefined) return fail('`tie_word_embeddings` of the config unknown');
  const getter = (method: string) => {
    const fn = interp.classAttribute(cls, method, self);
    return fn?.kind === 'function'
      ? runFunction(interp, { fn, args: { positional: [], keywords: new Map() }, node }).value
      : undefined;
  };
  if (!tie || !interp.classAttribute(cls, 'get_output_embeddings')) return NONE;
  const output = getter('get_output_embeddings');
  const inputEmbeddings = getter('get_input_embeddings');
  if (output?.kind === 'none') return NONE;
  const shared = inputEmbeddings?.kind === 'module' ? inputEmbeddings.module.params.get('weight') : undefined;
  if (output?.kind !== 'module' || !shared) return fail('tied embeddings not evaluated');
  output.module.params.set('weight', shared);
  return NONE;
}

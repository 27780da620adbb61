// Python's introspection builtins on evaluated values: `hasattr`, `getattr`, `setattr`,
// `callable` and `isinstance`. Torch names are decided with the API table (torch-api.ts);
// anything else that cannot be decided stays unknown, never guessed.
import type { SyntaxNode } from '../parse/syntax';
import type { CallArgs } from './calls';
import type { ClassInfo } from './classes';
import { Env, type Interpreter } from './interpreter';
import { isKnownLayer } from './layers';
import type { ModuleInstance } from './module-instance';
import { assignAttribute } from './statements';
import { isTorchName, torchHas } from './torch-api';
import { NONE, bool, iterate, renderValue, unknown, type Value } from './values';

/** Handles the introspection builtin `name`; undefined when `name` is not one of them. */
export function callIntrospection(
  interp: Interpreter,
  input: { name: string; args: CallArgs; node: SyntaxNode },
): Value | undefined {
  const { name, args, node } = input;
  const [first, second, third] = args.positional;
  switch (name) {
    case 'hasattr': {
      if (!first || second?.kind !== 'str') return unknown(node, '`hasattr` not evaluated');
      const has = hasAttribute(interp, { value: first, attribute: second.value });
      return has === undefined ? unknown(node, undecided(first, second.value, 'hasattr')) : bool(has);
    }
    case 'getattr': {
      if (!first || second?.kind !== 'str')
        return unknown(node, second?.kind === 'unknown' ? second.reason : '`getattr` not evaluated');
      const has = hasAttribute(interp, { value: first, attribute: second.value });
      if (has === false) return third ?? unknown(node, `\`${second.value}\` not found`);
      if (has === undefined && third) return unknown(node, undecided(first, second.value, 'getattr'));
      return interp.getAttribute(first, second.value, node.text);
    }
    case 'setattr': {
      if (!first || second?.kind !== 'str' || !third)
        return unknownSetattr(node, first, second?.kind === 'unknown' ? second.reason : undefined);
      assignAttribute({ object: first, name: second.value, value: third, valueNode: node });
      return NONE;
    }
    case 'callable': {
      if (!first) return unknown(node, '`callable` not evaluated');
      const result = isCallable(interp, first);
      return result === undefined ? unknown(node, '`callable` not evaluated') : bool(result);
    }
    case 'isinstance': {
      if (!first || !second) return unknown(node, '`isinstance` not evaluated');
      const result = isInstance(interp, { value: first, type: second });
      return result === undefined ? unknown(node, `\`${node.text}\` not decided`) : bool(result);
    }
    default:
      return undefined;
  }
}

function undecided(value: Value, attribute: string, fn: string): string {
  if (value.kind === 'unknown') return value.reason;
  return value.kind === 'qualified'
    ? `\`${fn}(${value.name}, "${attribute}")\` not decided (not in the torch API table)`
    : `\`${fn}(<${renderValue(value)}>, "${attribute}")\` not decided`;
}

/** `setattr` we cannot follow: an unknown on the module it targets, so nothing is lost silently. */
function unknownSetattr(node: SyntaxNode, target: Value | undefined, reason?: string): Value {
  const text = node.text.length > 80 ? `${node.text.slice(0, 79)}…` : node.text;
  if (target?.kind === 'module')
    target.module.unknowns.push({
      text,
      reason: reason ?? 'attribute name not evaluated',
      line: node.start.line,
    });
  if (target?.kind === 'object') target.open = text;
  return unknown(node, reason ?? '`setattr` not evaluated');
}

function hasAttribute(interp: Interpreter, input: { value: Value; attribute: string }): boolean | undefined {
  const { value, attribute } = input;
  switch (value.kind) {
    case 'qualified':
      if (!isTorchName(value.name)) return undefined;
      if (value.name === 'torch.nn' && isKnownLayer(attribute))
        return torchHas({ owner: value.name, attribute, version: interp.torchVersion }) ?? true;
      return torchHas({ owner: value.name, attribute, version: interp.torchVersion });
    case 'object': {
      if (value.fields.has(attribute)) return true;
      if (!value.cls) return false;
      if (interp.classAttribute(value.cls, attribute) !== undefined) return true;
      // An instance of a class written in the workspace has exactly the attributes its code set,
      // unless a library base, a setattr we could not follow, or __dict__/__getattr__ can add others.
      const closed =
        !value.open &&
        interp
          .mro(value.cls)
          .every(
            (c) =>
              !/__dict__|__getattr__|__setattr__/.test(c.node.text) &&
              c.bases.every(
                (b) => b.text === 'object' || interp.evalExpr(b, new Env(c.scope)).kind === 'class',
              ),
          );
      return closed ? false : undefined;
    }
    case 'dict':
      return ['get', 'keys', 'values', 'items'].includes(attribute) || undefined;
    case 'module': {
      const module = value.module;
      if (module.children.has(attribute) || module.params.has(attribute) || module.buffers.has(attribute))
        return true;
      if (module.attrs.has(attribute) || module.layerConfig?.[attribute] !== undefined) return true;
      if (module.cls && interp.classAttribute(module.cls, attribute)) return true;
      // A user module built without unknowns has exactly the attributes we saw, plus nn.Module's own.
      if (module.kind === 'user' && !module.unknowns.length && !NN_MODULE_MEMBERS.test(attribute))
        return false;
      return undefined;
    }
    case 'class':
      return interp.classAttribute(value.cls, attribute) !== undefined || undefined;
    case 'num':
    case 'str':
    case 'bool':
    case 'none':
    case 'seq':
      return undefined;
    default:
      return undefined;
  }
}

/** Attributes every nn.Module has (torch/nn/modules/module.py), public and private. */
const NN_MODULE_MEMBERS =
  /^(training|forward|dump_patches|call_super_init|T_destination|_version|_parameters|_buffers|_modules|_non_persistent_buffers_set|_\w*hooks?\w*|_apply|_call_impl|_get_name|_named_members|_load_from_state_dict|_save_to_state_dict|_slow_forward|_replicate_for_data_parallel|[a-z]\w*)$/;

function isCallable(interp: Interpreter, value: Value): boolean | undefined {
  switch (value.kind) {
    case 'function':
    case 'class':
    case 'module':
      return true;
    case 'num':
    case 'str':
    case 'bool':
    case 'none':
    case 'seq':
    case 'dict':
    case 'param':
    case 'tensor':
      return false;
    case 'object':
      return value.cls ? interp.classAttribute(value.cls, '__call__') !== undefined : undefined;
    case 'qualified':
      return isTorchName(value.name) || value.name.startsWith('builtins.') ? true : undefined;
    default:
      return undefined;
  }
}

/** torch.nn layers that subclass another public layer (torch/nn/modules/*.py class statements). */
const LAYER_BASES: Record<string, string[]> = {
  ReLU6: ['Hardtanh'],
  ZeroPad2d: ['ConstantPad2d'],
  UpsamplingNearest2d: ['Upsample'],
  UpsamplingBilinear2d: ['Upsample'],
  LazyLinear: ['Linear'],
};

/** Private torch.nn bases and the public layers under them. */
const PRIVATE_BASES: Record<string, RegExp> = {
  _ConvNd: /^(Conv|ConvTranspose)[123]d$/,
  _ConvTransposeNd: /^ConvTranspose[123]d$/,
  _NormBase: /^(BatchNorm[123]d|SyncBatchNorm|InstanceNorm[123]d)$/,
  _BatchNorm: /^(BatchNorm[123]d|SyncBatchNorm)$/,
  _InstanceNorm: /^InstanceNorm[123]d$/,
  _DropoutNd: /^(Dropout[123]?d?|AlphaDropout|FeatureAlphaDropout)$/,
  _MaxPoolNd: /^MaxPool[123]d$/,
  _AvgPoolNd: /^AvgPool[123]d$/,
  RNNBase: /^(RNN|LSTM|GRU)$/,
};

const BUILTIN_TYPES: Record<string, Value['kind'][]> = {
  int: ['num', 'bool'],
  float: ['num'],
  bool: ['bool'],
  str: ['str'],
  list: ['seq'],
  tuple: ['seq'],
  dict: ['dict'],
};

function isInstance(interp: Interpreter, input: { value: Value; type: Value }): boolean | undefined {
  const { value, type } = input;
  if (value.kind === 'unknown' || type.kind === 'unknown') return undefined;
  if (type.kind === 'seq') {
    let result: boolean | undefined = false;
    for (const item of iterate(type) ?? []) {
      const one = isInstance(interp, { value, type: item });
      if (one) return true;
      if (one === undefined) result = undefined;
    }
    return result;
  }
  if (type.kind === 'qualified' && type.name.startsWith('builtins.')) {
    const kinds = BUILTIN_TYPES[type.name.slice(9)];
    if (!kinds) return undefined;
    if (value.kind === 'num' && type.name === 'builtins.int') return Number.isInteger(value.value);
    if (value.kind === 'num' && type.name === 'builtins.float')
      return !Number.isInteger(value.value) || undefined;
    if (value.kind === 'seq' && (type.name === 'builtins.list' || type.name === 'builtins.tuple'))
      return value.tuple === (type.name === 'builtins.tuple');
    return kinds.includes(value.kind)
      ? true
      : value.kind === 'qualified' || value.kind === 'object'
        ? undefined
        : false;
  }
  if (type.kind === 'class') {
    const cls = value.kind === 'module' ? value.module.cls : value.kind === 'object' ? value.cls : undefined;
    if (cls) return interp.mro(cls).includes(type.cls);
    return value.kind === 'module' || value.kind === 'num' || value.kind === 'str' ? false : undefined;
  }
  if (type.kind === 'qualified' && value.kind === 'module') return moduleIsA(interp, value.module, type.name);
  if (type.kind === 'qualified' && value.kind !== 'object' && value.kind !== 'qualified')
    return isTorchName(type.name) && /^torch\.nn\.(modules\.\w+\.)?\w+$/.test(type.name) ? false : undefined;
  return undefined;
}

function moduleIsA(interp: Interpreter, module: ModuleInstance, typeName: string): boolean | undefined {
  const match = /^torch\.nn\.(?:modules\.\w+\.)?(\w+)$/.exec(typeName);
  if (!match) return undefined;
  const wanted = match[1];
  if (wanted === 'Module') return true;
  if (module.kind === 'user') return userModuleIsA(interp, module.cls, wanted);
  const own = module.typeName;
  if (own === wanted || LAYER_BASES[own]?.includes(wanted)) return true;
  const privateBase = PRIVATE_BASES[wanted];
  if (privateBase) return privateBase.test(own);
  if (wanted.startsWith('_')) return undefined;
  return module.kind === 'library' ? undefined : false;
}

function userModuleIsA(interp: Interpreter, cls: ClassInfo | undefined, wanted: string): boolean | undefined {
  if (!cls) return undefined;
  const bases = interp.libraryBases(cls);
  if (bases.some((b) => b.endsWith(`.${wanted}`))) return true;
  return bases.every((b) => /^torch\.nn(\.modules\.module)?\.Module$/.test(b)) ? false : undefined;
}

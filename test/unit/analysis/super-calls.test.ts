// `super().name(...)` in the training-step model: it reaches the method `name` of the
// class's bases in the file (the first along each base's own bases that defines it), never
// a same-named method of an unrelated class, and nothing when the base is a library class.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { buildFileModel } from '../../../server/src/analysis/file-model';
import { TrainingStepModel } from '../../../server/src/analysis/training-step';
import { fieldOf } from '../../../server/src/analysis/syntax-helpers';
import type { SyntaxNode } from '../../../server/src/parse/syntax';
import { wasmDir } from '../../helpers/paths';

const SOURCE = `import torch
from torch import nn


class Base(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x

    def reset(self):
        pass


class Child(Base):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return super().forward(x) + 1


class Grandchild(Child):
    def reset(self):
        super().reset()

    def forward(self, x):
        return super(Child, self).forward(x)


class Other(nn.Module):
    def __init__(self):
        super().__init__()

    def reset(self):
        pass


class Mixin:
    def reset(self):
        pass


class Both(Other, Mixin):
    def __init__(self):
        super().__init__()

    def reset(self):
        super().reset()


class Module:
    def reset(self):
        pass


class Dotted(nn.Module):
    def reset(self):
        super().reset()


class Loop(Loop2):
    def reset(self):
        super().reset()


class Loop2(Loop):
    pass
`;

/** Each `super()` call of SOURCE, as `Class.method: line`, with the methods it may run as `Class.method`. */
async function superCallees(): Promise<Map<string, string[]>> {
  const parser = await initParser({ wasmDir });
  const model = buildFileModel({ parsed: parseSource(parser, SOURCE), filePath: null });
  const steps = new TrainingStepModel({
    callNames: model.callNames,
    functions: model.nodes.function_definition,
    classes: model.nodes.class_definition,
    blockNodes: () => [],
    optimizerNames: new Set(),
  });
  const where = (fn: SyntaxNode) => {
    let cls: SyntaxNode | null = fn.parent;
    while (cls && cls.type !== 'class_definition') cls = cls.parent;
    return `${cls ? fieldOf(cls, 'name')?.text : ''}.${fieldOf(fn, 'name')?.text}`;
  };
  const found = new Map<string, string[]>();
  for (const call of model.nodes.call) {
    if (!/^super\(.*\)\.\w+$/.test(fieldOf(call, 'function')?.text ?? '')) continue;
    let fn: SyntaxNode | null = call.parent;
    while (fn && fn.type !== 'function_definition') fn = fn.parent;
    found.set(`${where(fn!)}: ${call.start.line + 1}`, steps.calledFunctions(call).map(where));
  }
  return found;
}

test('super() reaches the bases of its class, not same-named methods of other classes', async () => {
  assert.deepEqual(Object.fromEntries(await superCallees()), {
    // nn.Module's __init__ is not in the file: no other class's __init__ stands in for it.
    'Base.__init__: 7': [],
    'Child.__init__: 18': ['Base.__init__'],
    'Child.forward: 21': ['Base.forward'],
    // Child defines no reset: the search goes on to Child's own base.
    'Grandchild.reset: 26': ['Base.reset'],
    // super(Child, self) starts after Child, whatever class the call is in.
    'Grandchild.forward: 29': ['Base.forward'],
    'Other.__init__: 34': [],
    // Each base in order: Other's reset and Mixin's.
    'Both.__init__: 47': ['Other.__init__'],
    'Both.reset: 50': ['Other.reset', 'Mixin.reset'],
    // nn.Module is torch's, not the file's class named Module.
    'Dotted.reset: 60': [],
    // Bases that name each other end the search instead of looping.
    'Loop.reset: 65': [],
  });
});

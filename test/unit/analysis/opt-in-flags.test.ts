// The off-by-default flags a file defines (read from its by-type index): argparse options,
// keyword parameters defaulting to False, and `bool = False` fields, never what a function
// body assigns or nests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser, parseSource } from '../../../server/src/parse/parser';
import { buildFileModel } from '../../../server/src/analysis/file-model';
import { collectOptInFlags } from '../../../server/src/analysis/role-guards';
import { wasmDir } from '../../helpers/paths';

const SOURCE = `import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--profile", action="store_true")
parser.add_argument("--epochs", type=int, default=3)

class Config:
    debug: bool = False
    steps: int = 10

    def build(self, use_amp=False, verbose=True):
        local_flag: bool = False
        def inner(nested_flag=False):
            return nested_flag
        return inner

def train(model, compile_model=False):
    checked: bool = False
    return lambda fast=False: fast
`;

test('opt-in flags and defined options come from outside function bodies, the parameters of a function included', async () => {
  const parser = await initParser({ wasmDir });
  const { nodes } = buildFileModel({ parsed: parseSource(parser, SOURCE), filePath: null });
  const defined = new Set<string>();
  const flags = collectOptInFlags(nodes, nodes.call, defined);
  assert.deepEqual([...flags].sort(), ['compile_model', 'debug', 'profile', 'use_amp']);
  assert.deepEqual([...defined].sort(), ['debug', 'epochs', 'profile', 'steps']);
});

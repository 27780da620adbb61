// Checks that the committed grammar loads in the bundled runtime and parses Python.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser, parseSource } from '../../server/src/parse/parser';
import { wasmDir } from './paths';

test('the Python grammar parses a function definition', async () => {
  const parser = await initParser({ wasmDir });
  const { root, hasError } = parseSource(parser, 'def f(x):\n    return x.item()\n');
  assert.equal(hasError, false);
  assert.equal(root.children[0].type, 'function_definition');
});

// Carrying function analyses from one version of a document to the next (kind-carry.ts):
// an edit inside one function replays the others, the kinds equal a fresh analysis, and an
// edit to what a function read elsewhere in the file (which definition a name calls, what
// module-level code shows of a name, what an imported name is bound to) stops the carry of
// that function only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Parser } from 'web-tree-sitter';
import { initParser } from '../../../server/src/parse/parser';
import { analyzeText } from '../../../server/src/analyzer';
import { Session, editTrackingDocuments } from '../../../server/src/session';
import { KindCarry, kindCarryCounts } from '../../../server/src/analysis/kind-carry';
import { signature } from '../../helpers/edit-equivalence';
import { wasmDir } from '../../helpers/paths';

const SOURCE = `import torch


def make():
    return torch.zeros(3)


def use():
    x = make()
    return x.sum().item()


def other(loss):
    total = 0
    total += loss
    return total
`;

/** A session with `text` open and analysed as `uri`, as the server keeps it. */
function openDocument(parser: Parser, uri: string, text: string) {
  const session = new Session(parser, () => []);
  session.setEditorSettings({});
  const documents = editTrackingDocuments(() => session);
  const document = documents.create(uri, 'python', 1, text);
  session.analyse(document);
  return { session, documents, document };
}

/** Opens `source`, replaces `from` by `to` in one edit, and returns the incremental and fresh signatures and the carry counts. */
function editOnce(parser: Parser, from: string, to: string, source = SOURCE) {
  const uri = 'untitled:carry';
  const opened = openDocument(parser, uri, source);
  const { session, documents } = opened;
  let document = opened.document;
  const start = source.indexOf(from);
  const range = { start: document.positionAt(start), end: document.positionAt(start + from.length) };
  const before = { ...kindCarryCounts };
  document = documents.update(document, [{ range, text: to }], 2);
  const incremental = signature(session.analyse(document));
  const fresh = signature(
    analyzeText({ parser, text: document.getText(), filePath: null, settings: session.settingsFor(uri) }),
  );
  session.trees.dispose();
  return {
    incremental,
    fresh,
    carried: kindCarryCounts.carried - before.carried,
    walked: kindCarryCounts.walked - before.walked,
  };
}

/** Runs `check` with a test-only carry fault on, and turns it off again. */
function withFault(fault: typeof KindCarry.fault, check: () => void): void {
  KindCarry.fault = fault;
  try {
    check();
  } finally {
    KindCarry.fault = 'none';
  }
}

test('an edit inside one function carries the analyses of the others', async () => {
  const parser = await initParser({ wasmDir });
  const run = editOnce(parser, 'total = 0', 'total = 1');
  assert.equal(run.incremental, run.fresh);
  // Round one carries `make` and `use` and walks `other`, the edited function; round two
  // replays all three from round one's traces, which counts as neither.
  assert.equal(run.carried, 2);
  assert.equal(run.walked, 1);
});

test('renaming a called function re-walks it and its callers, and carries the others', async () => {
  const parser = await initParser({ wasmDir });
  const run = editOnce(parser, 'def make', 'def made');
  assert.equal(run.incremental, run.fresh);
  // `made` is a new definition and `use` looked up `make`, which is gone: both are walked;
  // `other` reads no definition and is carried.
  assert.equal(run.walked, 2);
  assert.equal(run.carried, 1);
});

test('carrying across a new definition would be wrong (the definition reads are needed)', async () => {
  const parser = await initParser({ wasmDir });
  // `use` calls `make`, which is named `made` until the edit: then `x` becomes a tensor.
  const source = SOURCE.replace('def make', 'def made');
  const honest = editOnce(parser, 'def made', 'def make', source);
  assert.equal(honest.incremental, honest.fresh);
  assert.equal(honest.carried, 1);
  withFault('ignore-definitions', () => {
    const run = editOnce(parser, 'def made', 'def make', source);
    assert.equal(run.carried, 2);
    assert.notEqual(run.incremental, run.fresh);
  });
});

test('carrying positionally across renamed definitions would be wrong (the context check is needed)', async () => {
  const parser = await initParser({ wasmDir });
  withFault('ignore-context', () => {
    const run = editOnce(parser, 'def make', 'def made');
    assert.ok(run.carried > 0);
    assert.notEqual(run.incremental, run.fresh);
  });
});

test('an edit to an import re-walks the functions that read the name, and carries the others', async () => {
  const parser = await initParser({ wasmDir });
  // `make` resolves `torch.zeros` through the import, which `torch as th` unbinds; `use` reads
  // the kind `make` returns; `other` reads no import and is carried. Before the reads of
  // imported names were traced, any import edit re-walked every function.
  const run = editOnce(parser, 'import torch', 'import torch as th');
  assert.equal(run.incremental, run.fresh);
  assert.equal(run.carried, 1);
  assert.equal(run.walked, 2);
  withFault('ignore-imports', () => {
    // Carried, `make` still returns a tensor that nothing makes any more.
    const broken = editOnce(parser, 'import torch', 'import torch as th');
    assert.equal(broken.carried, 3);
    assert.notEqual(broken.incremental, broken.fresh);
  });
});

/** Opens SOURCE with module-level code that shows `loss` is a tensor, then edits that use away. */
function replaceModuleEvidence(parser: Parser) {
  // Module-level `loss.backward()` shows that `loss` is a tensor; `other` reads that for its
  // parameter `loss`, `make` and `use` do not.
  const withEvidence = `${SOURCE}\nloss = torch.ones(1)\nloss.backward()\n`;
  return editOnce(parser, 'loss.backward()', 'print(loss)', withEvidence);
}

test('what module-level code shows of a name is read through the trace', async () => {
  const parser = await initParser({ wasmDir });
  const run = replaceModuleEvidence(parser);
  assert.equal(run.incremental, run.fresh);
  assert.equal(run.carried, 2);
  assert.equal(run.walked, 1);
  withFault('ignore-definitions', () => {
    // Carried, `other` keeps `loss` a tensor, which nothing shows any more.
    const broken = replaceModuleEvidence(parser);
    assert.equal(broken.carried, 3);
    assert.notEqual(broken.incremental, broken.fresh);
  });
});

const WITH_CLASS = `import torch


class Net(torch.nn.Module):
    def forward(self, x):
        y = torch.relu(
            x
        )
        return y.view(-1)

    def loss(self, y):
        return y.sum()


def make():
    return torch.zeros(3)


def use():
    x = make()
    return x.sum().item()
`;

test('typing on through a syntax error carries from the error version, whose context differs', async () => {
  const parser = await initParser({ wasmDir });
  const uri = 'untitled:carry-error';
  const opened = openDocument(parser, uri, WITH_CLASS);
  const { session, documents } = opened;
  let document = opened.document;
  // Commenting out the closing parenthesis leaves `relu(` open: the class is cut short.
  let offset = WITH_CLASS.indexOf('        )');
  const carried: number[] = [];
  for (const typed of ['#', 'a', 'b']) {
    const before = kindCarryCounts.carried;
    const at = document.positionAt(offset++);
    document = documents.update(
      document,
      [{ range: { start: at, end: at }, text: typed }],
      document.version + 1,
    );
    const incremental = session.analyse(document);
    assert.equal(incremental.model?.hasSyntaxError, true);
    const fresh = analyzeText({
      parser,
      text: document.getText(),
      filePath: null,
      settings: session.settingsFor(uri),
    });
    assert.equal(signature(incremental), signature(fresh));
    carried.push(kindCarryCounts.carried - before);
  }
  session.trees.dispose();
  // The keystrokes after the first error, inside the comment, carry from the version before
  // them. (The first error version carries only what its chunk does not hold: here nothing,
  // the file's small definitions running together in one chunk.)
  assert.ok(carried[1] > 0 && carried[2] > 0, `carried ${carried.join(', ')}`);
});

// Test helper: drives a Session through seeded random edits exactly as the server does
// (the server's TextDocuments configuration, one content change event at a time) and
// compares, after every edit, the incremental analysis with a fresh analysis of the text.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Parser } from 'web-tree-sitter';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { Session, editTrackingDocuments } from '../../server/src/session';
import { analyzeText, type FileAnalysis } from '../../server/src/analyzer';
import type { SyntaxNode } from '../../server/src/parse/syntax';
import { RandomEditor, TypingEditor } from '../perf/edits';
import { Dice, generateTrainingFile, withCommentBlocks } from '../perf/generate';
import { generateTrainerFile } from '../perf/generate-trainer';
import { generateLongFunctionFile } from '../perf/generate-script';
import { generateModelZooFile } from '../perf/generate-zoo';
import { debianDistPackages, repoRoot } from './paths';
import { misshapenNode } from './tree-order';

/** A script whose loaders are known by name only (weak tensor facts). */
export const LOADER_HELPERS = 'test/fixtures/edits/loader_helpers.py';

/** Training scripts and models written like real ones: generated files, the examples, model fixtures. */
export function realLikeFiles(): { name: string; text: string }[] {
  const checkedIn = [
    'examples/demo/train_ddp.py',
    'examples/demo/model.py',
    'examples/clean/train_fsdp.py',
    'test/fixtures/models/gpt2_model.py',
    'test/fixtures/rules/sl1/nanogpt_style.py',
    'test/fixtures/rules/sl3/sl304_sl305_train_loop.py',
  ];
  return [
    ...checkedIn.map((path) => ({ name: path, text: readFileSync(join(repoRoot, path), 'utf8') })),
    ...[41, 42, 43].map((seed) => ({
      name: `generated seed ${seed}`,
      text: generateTrainingFile({ lines: 160, seed }),
    })),
    // Loaders known by name only: the tensor-evidence calls a carried function makes again.
    { name: LOADER_HELPERS, text: readFileSync(join(repoRoot, LOADER_HELPERS), 'utf8') },
  ];
}

/**
 * Real code nobody here wrote, from Debian's python3-torch and python3-torchvision: files on
 * which the rules report findings (a DDP test harness, FSDP test helpers, an optimizer,
 * activation checkpointing, detection models). Names are paths under dist-packages; a file
 * that is not installed is left out, so the caller checks how many there are.
 */
export const DEBIAN_TORCH_FILES = [
  'torch/testing/_internal/distributed/ddp_under_dist_autograd_test.py',
  'torch/testing/_internal/common_fsdp.py',
  'torch/optim/lbfgs.py',
  'torch/utils/checkpoint.py',
  'torchvision/models/detection/fcos.py',
  'torchvision/models/detection/ssd.py',
];

/** The files of {@link DEBIAN_TORCH_FILES} that are installed, named by their path, with their text. */
export function debianTorchFiles(): { name: string; text: string }[] {
  return DEBIAN_TORCH_FILES.map((name) => join(debianDistPackages, name))
    .filter((path) => existsSync(path))
    .map((path) => ({ name: path, text: readFileSync(path, 'utf8') }));
}

/** Files that are mostly one large class (parsed member by member when they have errors: definition-chunks.ts). */
export function largeClassFiles(): { name: string; text: string }[] {
  return [44, 45].map((seed) => ({
    name: `generated trainer seed ${seed}`,
    text: generateTrainerFile({ methods: 30, seed }),
  }));
}

/**
 * Files whose large class opens another class or function, as torch's distributed tests keep
 * their base class (parsed member by member under both headers when they have errors:
 * definition-chunks.ts): inside a class, after a comment, still decorated, with a statement
 * after it; and alone inside a function, undecorated.
 */
export function nestedClassFiles(): { name: string; text: string }[] {
  const [first, second] = largeClassFiles();
  return [
    {
      name: `${first.name} inside a class`,
      text: nestFirstClass(first.text, ['class Suite:', '    # The base class.'], ['    registry = {}']),
    },
    {
      name: `${second.name} inside a function`,
      text: nestFirstClass(second.text.replace(/^@.*\n(?=class )/m, ''), ['def build_trainer(config):'], []),
    },
  ];
}

/** `text` with its first class at column 0 (and its decorators) indented between `header` and `footer`. */
function nestFirstClass(text: string, header: string[], footer: string[]): string {
  const lines = text.split('\n');
  const classLine = lines.findIndex((line) => line.startsWith('class '));
  let start = classLine;
  while (lines[start - 1]?.startsWith('@')) start--;
  let end = classLine + 1;
  while (end < lines.length && !/^[^\s#]/.test(lines[end])) end++;
  const nested = lines.slice(start, end).map((line) => (line ? `    ${line}` : line));
  return [...lines.slice(0, start), ...header, ...nested, ...footer, ...lines.slice(end)].join('\n');
}

/** Training scripts of a few long functions (parsed statement group by statement group when they have errors: definition-chunks.ts). */
export function largeFunctionFiles(): { name: string; text: string }[] {
  return [51, 52].map((seed) => ({
    name: `generated long-function script seed ${seed}`,
    text: generateLongFunctionFile({ pieces: 70, seed }),
  }));
}

/** Model zoos whose table of configurations is a large literal (parsed entry group by entry group when they have errors: literal-chunks.ts). */
export function largeLiteralFiles(): { name: string; text: string }[] {
  return [3, 4].map((seed) => ({
    name: `generated model zoo seed ${seed}`,
    text: generateModelZooFile({ classes: 4, variants: 120, seed }),
  }));
}

/**
 * Real-like files as Windows editors and tab users keep them: with `\r\n` line breaks, and
 * indented with tabs (one tab for each four leading spaces).
 */
export function lineBreakAndTabFiles(): { name: string; text: string }[] {
  const [script, model] = realLikeFiles();
  const [trainer] = largeClassFiles();
  const tabs = (text: string) => text.replace(/^(?: {4})+/gm, (spaces) => '\t'.repeat(spaces.length / 4));
  return [
    { name: `${script.name} with \\r\\n`, text: script.text.replace(/\n/g, '\r\n') },
    { name: `${model.name} with tabs`, text: tabs(model.text) },
    { name: `${trainer.name} with \\r\\n and tabs`, text: tabs(trainer.text).replace(/\n/g, '\r\n') },
  ];
}

/**
 * Real-like files with long comment blocks (parsed with the blocks' inner lines left out:
 * comment-runs.ts): blocks of 16 to 40 lines at the next line's indentation, one level less,
 * or column 0, some with blank lines or a suppression comment inside, in code, classes,
 * functions, docstrings and a large literal.
 */
export function commentBlockFiles(): { name: string; text: string }[] {
  const [script] = realLikeFiles();
  const [trainer] = largeClassFiles();
  const [zoo] = largeLiteralFiles();
  return [script, trainer, zoo].map((file) => ({
    name: `${file.name} with comment blocks`,
    text: withCommentBlocks(file.text, { seed: 61, first: 12, every: 30, min: 16, max: 40 }),
  }));
}

/**
 * Everything compared: the lowered tree and its by-type index, each node's kind (and the
 * name its tensor fact rests on, if only a name), the syntax-error flag, findings and failures.
 */
export function signature(analysis: FileAnalysis): string {
  const model = analysis.model;
  const nodes: string[] = [];
  const indexed = model
    ? Object.entries(model.nodes).map(([type, list]) => `${type}:${list.map((n) => n.id).join(',')}`)
    : [];
  if (model) {
    const stack: SyntaxNode[] = [model.root];
    while (stack.length) {
      const node = stack.pop()!;
      const weak = model.weakTensorSource(node) ?? '';
      nodes.push(
        `${node.id}:${node.type}:${node.field}:${node.startIndex}-${node.endIndex}:${node.operator ?? ''}:${model.kindOf(node)}:${weak}`,
      );
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
  return JSON.stringify({
    error: model?.hasSyntaxError,
    nodes,
    indexed,
    findings: analysis.findings,
    failures: analysis.failures.map((f) => f.code),
    note: analysis.note,
  });
}

/** Where an incremental analysis first differed from a fresh one. */
export interface Divergence {
  file: string;
  edit: number;
  /** The two signatures around their first difference. */
  detail: string;
  text: string;
}

/** The outcome of {@link runEditEquivalence}. */
export interface EquivalenceRun {
  edits: number;
  /** Versions re-parsed from the previous tree (see DocumentTrees). */
  incrementalParses: number;
  /** Versions lowered from a window re-parse (see window-parse.ts). */
  windowParses: number;
  /** Re-parses given up for time, whose versions the chunks decided (see DocumentTrees). */
  timedOutReparses: number;
  divergence?: Divergence;
}

/**
 * Applies `edits` seeded edits in episodes of `episodeLength` (each starting from a fresh
 * open of a real-like file, in turn; typing-like and random episodes alternate), analysing after each edit both through the
 * session (incremental) and from scratch; stops at the first difference.
 */
export function runEditEquivalence(input: {
  parser: Parser;
  edits: number;
  seed: number;
  episodeLength?: number;
  /** Only the real-like files with these names (all by default). */
  only?: readonly string[];
  /** Other files instead of the real-like ones. */
  files?: { name: string; text: string }[];
}): EquivalenceRun {
  const { parser, edits, seed } = input;
  const episodeLength = input.episodeLength ?? 200;
  const files = (input.files ?? realLikeFiles()).filter(
    (file) => !input.only || input.only.includes(file.name),
  );
  const session = new Session(parser, () => []);
  session.setEditorSettings({});
  const documents = editTrackingDocuments(() => session);
  const dice = new Dice(seed);
  let done = 0;
  try {
    for (let episode = 0; done < edits; episode++) {
      const file = files[episode % files.length];
      const uri = `untitled:equivalence-${episode}`;
      let document: TextDocument = documents.create(uri, 'python', 1, file.text);
      session.analyse(document);
      // Typing-like episodes keep most versions parseable (the re-parse path); random ones are hostile.
      const editorSeed = seed * 1_000 + episode;
      const editor =
        episode % 2 === 0 ? new TypingEditor(editorSeed, file.text) : new RandomEditor(editorSeed, file.text);
      for (let i = 0; i < episodeLength && done < edits; i++, done++) {
        // One to three changes per didChange, as an editor sends for multi-cursor typing.
        const changes = Array.from({ length: dice.chance(0.8) ? 1 : dice.int(2, 3) }, () => editor.next());
        document = documents.update(document, changes, document.version + 1);
        if (document.getText() !== editor.text) throw new Error('the edit helper and TextDocument disagree');
        const incremental = session.analyse(document);
        const fresh = analyzeText({
          parser,
          text: editor.text,
          filePath: null,
          settings: session.settingsFor(uri),
        });
        const diverged = (detail: string): EquivalenceRun => ({
          edits: done + 1,
          incrementalParses: session.trees.stats.incrementalParses,
          windowParses: session.trees.stats.windowParses,
          timedOutReparses: session.trees.stats.timedOutReparses,
          divergence: { file: file.name, edit: i, detail, text: editor.text },
        });
        // Equal trees can both be wrong the same way: the chunks and groups must make a tree.
        const misplaced = incremental.model && misshapenNode(incremental.model.root);
        if (misplaced) return diverged(`misplaced node: ${misplaced}`);
        const [a, b] = [signature(incremental), signature(fresh)];
        if (a !== b) {
          let at = 0;
          while (a[at] === b[at]) at++;
          const around = (s: string) => s.slice(Math.max(0, at - 300), at + 300);
          return diverged(`incremental …${around(a)}…\nfresh …${around(b)}…`);
        }
      }
      session.forget(uri);
    }
    const { incrementalParses, windowParses, timedOutReparses } = session.trees.stats;
    return { edits: done, incrementalParses, windowParses, timedOutReparses };
  } finally {
    session.trees.dispose();
  }
}

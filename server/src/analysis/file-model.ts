// The FileModel: everything the rules ask about one parsed document version — import
// aliases, the kind of each expression, the role of each statement (hot step, logging,
// eval, setup), suppression comments, and indexes of the node types rules look at.
import { INDEXED_TYPES, type IndexedType, type SyntaxNode, type SourceText } from '../parse/syntax';
import type { ParsedSource } from '../parse/parser';
import { collectImports, type ImportTable } from './imports';
import type { Kind } from './kinds';
import { LoopRoles, collectOptimizerNames, type Role } from './loop-roles';
import { inferValueKinds, type EntryCall } from './value-facts';
import { Suppressions } from './suppressions';
import type { KindCarry } from './kind-carry';
import type { GuardNote } from './role-guards';
import { CallNameIndex } from './call-names';

/** Node type → every node of that type, in document order (see INDEXED_TYPES). */
export type NodeIndex = Record<IndexedType, readonly SyntaxNode[]>;

/** What the analysis knows about one document version. */
export interface FileModel {
  /** Absolute path of the file, or null for an unsaved document. */
  readonly filePath: string | null;
  readonly source: SourceText;
  readonly root: SyntaxNode;
  readonly hasSyntaxError: boolean;
  readonly imports: ImportTable;
  /** Whether the file imports torch (or a framework built on it); rules stay silent otherwise. */
  readonly usesTorch: boolean;
  readonly nodes: NodeIndex;
  /** The calls of the file by the last name of what they call (built on first use). */
  readonly callNames: CallNameIndex;
  readonly suppressions: Suppressions;
  readonly roles: LoopRoles;
  /** The kind of an expression, or `unknown`. */
  kindOf(node: SyntaxNode): Kind;
  /**
   * When `node` is taken for a tensor only because of a name (a loop over `train_loader`,
   * which nothing shows is a loader and whose elements the code never uses as tensors): that
   * name. Undefined when the tensor fact rests on PyTorch semantics, or there is none.
   */
  weakTensorSource(node: SyntaxNode): string | undefined;
  /** The role of the statement containing `node`. */
  roleOf(node: SyntaxNode): Role;
  /** The guard behind that role, if any (rank 0 only, an opt-in flag, once per interval, at most once). */
  guardOf(node: SyntaxNode): GuardNote | undefined;
}

const TORCH_FRAMEWORKS = [
  'torch',
  'lightning',
  'pytorch_lightning',
  'accelerate',
  'deepspeed',
  'transformers',
  'torchvision',
  'timm',
  'fairscale',
  'torchtitan',
];

/**
 * Whether `text` names a PyTorch framework at all. A file that does not cannot import one,
 * so its model has `usesTorch` false and no rule reports anything in it.
 */
export function mayUseTorch(text: string): boolean {
  return TORCH_FRAMEWORKS.some((name) => text.includes(name));
}

/**
 * An `import` or `from` statement that names a framework, on one logical line: it starts the
 * line or follows `;` or `:` (`try: import torch`).
 */
const FRAMEWORK_IMPORT = new RegExp(
  `(?:^|[;:])[^\\S\\n]*(?:import|from)\\b[^\\n]*\\b(?:${TORCH_FRAMEWORKS.join('|')})\\b`,
  'm',
);

/**
 * Whether `text` may import a PyTorch framework: false only when no import statement can
 * name one, so its model would have `usesTorch` false (the CLI then skips the parse).
 */
export function mayImportTorch(text: string): boolean {
  if (!mayUseTorch(text)) return false;
  // A backslash continues a logical line: `import os, \` then `torch` on the next one.
  const logical = /\\\r?\n/.test(text) ? text.replace(/\\\r?\n/g, ' ') : text;
  return FRAMEWORK_IMPORT.test(logical);
}

/** Builds the FileModel of a parsed document. */
export function buildFileModel(input: {
  parsed: ParsedSource;
  filePath: string | null;
  /** Functions another file's hot step calls (with its argument kinds): analysed as hot. */
  entries?: readonly EntryCall[];
  /** The document's kind-inference memo from its previous version (read and replaced). */
  carry?: KindCarry;
}): FileModel {
  const { root, hasError, byType, nodeCount } = input.parsed;
  const imports = collectImports(input.parsed);
  const nodes = Object.fromEntries(INDEXED_TYPES.map((type) => [type, byType.get(type) ?? []])) as NodeIndex;
  const comments = nodes.comment;
  // A function another file's step calls handles that file's tensors, imports or not.
  const usesTorch = TORCH_FRAMEWORKS.some((name) => imports.importsFrom(name)) || !!input.entries?.length;
  const callNames = new CallNameIndex(nodes.call, imports);
  const facts = usesTorch
    ? inferValueKinds({
        root,
        nodeCount,
        imports,
        nodes,
        entries: input.entries,
        carry: input.carry,
        hasSyntaxError: hasError,
        callNames,
      })
    : undefined;
  // Roles are built on first use: no rule asks for them in a file that uses no framework.
  let roles: LoopRoles | undefined;
  const rolesOf = (): LoopRoles =>
    (roles ??= new LoopRoles(
      nodes,
      collectOptimizerNames(nodes.assignment, imports),
      {
        kindOf: (node) => (node.source === root.source && facts?.kinds[node.id]) || 'unknown',
        moduleClasses: facts?.moduleClasses ?? new Set(),
        root,
        callNames,
      },
      (input.entries ?? []).map((entry) => entry.fn),
    ));
  return {
    filePath: input.filePath,
    source: root.source,
    root,
    hasSyntaxError: hasError,
    imports,
    usesTorch,
    nodes,
    callNames,
    suppressions: new Suppressions(comments),
    get roles() {
      return rolesOf();
    },
    // Ids index this tree only: a node of another tree has no kind here.
    kindOf: (node) => (node.source === root.source && facts?.kinds[node.id]) || 'unknown',
    weakTensorSource: (node) => (node.source === root.source ? facts?.weakTensorSource(node) : undefined),
    roleOf: (node) => rolesOf().roleOf(node),
    guardOf: (node) => rolesOf().noteOf(node),
  };
}

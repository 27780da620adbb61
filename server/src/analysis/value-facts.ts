// The entry point of the kind inference (kind-inference.ts): runs it over one file, with the
// calls another file makes into it and the document's memo from its last version, and hands
// the FileModel what it found.
import type { SyntaxNode } from '../parse/syntax';
import type { NodeIndex } from './file-model';
import type { ImportTable } from './imports';
import type { Kind } from './kinds';
import { CallNameIndex } from './call-names';
import { KindInference } from './kind-inference';
import { kindCarryCounts, type KindCarry } from './kind-carry';

/** Kinds of expressions and names, produced by {@link inferValueKinds}. */
export interface ValueFacts {
  /** Kind of each evaluated expression node, by node id (undefined where none was evaluated). */
  kinds: readonly (Kind | undefined)[];
  /** Names of user classes that are nn.Module subclasses. */
  moduleClasses: Set<string>;
  /**
   * For a tensor whose tensor fact rests on a name alone (the elements of a loop over
   * `train_loader` that nothing shows is a loader, and no code uses as tensors): that name.
   */
  weakTensorSource(node: SyntaxNode): string | undefined;
}

/** A function of this file called from another file, with the kinds its arguments have there. */
export interface EntryCall {
  fn: SyntaxNode;
  positional: readonly Kind[];
  keywords: readonly (readonly [string, Kind])[];
}

/**
 * Runs the inference over the whole file; `nodes` is the FileModel's node index of `root`,
 * which has `nodeCount` nodes. `replay: false` re-walks every function in every round (the
 * tests compare both ways).
 */
export function inferValueKinds(input: {
  root: SyntaxNode;
  nodeCount: number;
  imports: ImportTable;
  nodes: NodeIndex;
  replay?: boolean;
  /** Functions called from another file, with the kinds of the arguments that call passes. */
  entries?: readonly EntryCall[];
  /** The document's memo from its previous version (read and replaced), if it has one. */
  carry?: KindCarry;
  hasSyntaxError?: boolean;
  /** The file's calls by name (built here when absent). */
  callNames?: CallNameIndex;
}): ValueFacts {
  const callNames = input.callNames ?? new CallNameIndex(input.nodes.call, input.imports);
  const inference = new KindInference(input.root, input.nodeCount, input.imports, input.nodes, callNames);
  for (const entry of input.entries ?? []) inference.seedEntry(entry);
  const replay = input.replay ?? true;
  inference.run(replay, replay ? input.carry : undefined);
  if (input.carry) {
    kindCarryCounts.carried += inference.carriedCount;
    kindCarryCounts.walked += inference.walkedCount;
    input.carry.keep(inference.memo(), !!input.hasSyntaxError);
  }
  return {
    kinds: inference.kinds,
    moduleClasses: inference.definitions.moduleClasses,
    weakTensorSource: (node) => inference.tensorEvidence.weakSource(node),
  };
}

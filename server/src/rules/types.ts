// The shape of a rule and of what it reports: rules are declarative objects (code, name,
// category, default severity, docs page, summary, check function); findings carry their
// quick fixes precomputed, so code actions never re-analyse.
import type { Position, SyntaxNode } from '../parse/syntax';
import type { FileModel } from '../analysis/file-model';
import type { Role } from '../analysis/loop-roles';
import type { Settings } from '../config/settings';
import type { WorkspaceFiles } from '../modules/workspace-files';

/** A workspace: its files (parsed on demand) and its root folder. */
export interface WorkspaceContext {
  files: WorkspaceFiles;
  root: string;
}

/** LSP-style severity names. */
export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** Rule families, grouped by hundreds. */
export type Category = 'sync' | 'layout' | 'memory' | 'distributed' | 'pipeline';

/** A zero-based range, columns in UTF-16 code units, end exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

/** One text replacement of a fix. */
export interface TextEdit {
  range: Range;
  newText: string;
}

/** A quick fix: a title and the edits that apply it. */
export interface Fix {
  title: string;
  edits: TextEdit[];
  /**
   * The PyTorch version the new code needs (`'2.3'`). Fix-all applies such a fix only when
   * the workspace's torch is known to be at least this; the title names the version.
   */
  minTorch?: string;
}

/** What a rule reports. */
export interface Finding {
  code: string;
  /** One short sentence (what and why), under 100 characters: the Problems-panel text. */
  message: string;
  /** The longer explanation (cost, evidence, fix) for the finding's hover. */
  detail?: string;
  range: Range;
  severity: Severity;
  fixes: Fix[];
  /** Where the code runs (by-role rules only): the role that chose the severity. */
  role?: Role;
}

/** What a rule's check receives. */
export interface RuleContext {
  readonly model: FileModel;
  /** The effective settings (for version-dependent rules: `settings.torchVersion`). */
  readonly settings: Settings;
  /** The workspace the file belongs to, when known (the server and the CLI): its other files are evidence. */
  readonly workspace?: WorkspaceContext;
  /**
   * Reports a finding at `node` (or `range`). With a by-role rule the severity follows the
   * statement's role (hot → warning, logging → information, eval → hint, setup → dropped)
   * unless `role` is given explicitly.
   */
  report(input: {
    node: SyntaxNode;
    message: string;
    detail?: string;
    range?: Range;
    role?: Role;
    severity?: Severity;
    fixes?: Fix[];
    /**
     * The tensors whose values the finding is about (a sync's operand). When only a name
     * suggests that one of them is a tensor, the finding is at most information and its
     * detail says why.
     */
    tensors?: readonly SyntaxNode[];
  }): void;
}

/** A diagnostic rule, one per file under rules/. */
export interface Rule {
  /** `SL101`: family by hundreds (1 sync, 2 layout, 3 memory, 4 distributed, 5 input and precision). */
  code: string;
  /** kebab-case name, e.g. `item-in-hot-loop`. */
  name: string;
  category: Category;
  /** A fixed severity, or `by-role` for costs that depend on how often the code runs. */
  severity: Severity | 'by-role';
  /** One line for docs, hovers and the CLI's rule list. */
  summary: string;
  /** Off unless selected (noisy or opinionated rules). */
  optIn?: boolean;
  check(context: RuleContext): void;
}

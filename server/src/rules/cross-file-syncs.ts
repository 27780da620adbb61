// Host–device syncs reached from the hot step through calls into other workspace files:
// `from utils import log_metrics` then `log_metrics(loss)` each step. The callee's file is
// analysed with that function made hot and the call's argument kinds given to its
// parameters; a sync rule (SL1xx) that fires there only because of this call is reported at
// the call site with the same code. Depth, files read and file size are bounded, cycles cut.
import { relative } from 'node:path';
import { buildFileModel, type FileModel } from '../analysis/file-model';
import type { Kind } from '../analysis/kinds';
import { parameterList } from '../analysis/definitions';
import { fieldOf, isWithin, unwrap, walk } from '../analysis/syntax-helpers';
import type { WorkspaceFiles } from '../modules/workspace-files';
import type { SyntaxNode } from '../parse/syntax';
import type { Settings } from '../config/settings';
import { runRules } from './engine';
import { crossFileSyncText } from './messages/sl1';
import type { Finding } from './types';

/** Calls followed from the step, one file into the next, at most this deep. */
const MAX_CALL_DEPTH = 3;

/** A sync found in a callee, as the caller reports it. */
interface CalleeSync {
  code: string;
  line: number;
  path: string;
  message: string;
  detail?: string;
}

/**
 * Results of callees already analysed, kept across requests (keystrokes) while no workspace
 * file changed (the files' generation) and the settings are the same object: a result
 * depends only on the callee's file, the files it reaches, the argument kinds and settings.
 */
interface CalleeMemo {
  generation: number;
  settings: Settings;
  results: Map<string, CalleeSync | null>;
}
const memos = new WeakMap<WorkspaceFiles, CalleeMemo>();

function memoFor(workspace: WorkspaceFiles, settings: Settings): Map<string, CalleeSync | null> {
  const memo = memos.get(workspace);
  if (memo && memo.generation === workspace.generation && memo.settings === settings) return memo.results;
  const results = new Map<string, CalleeSync | null>();
  memos.set(workspace, { generation: workspace.generation, settings, results });
  return results;
}

/** State of one request: the memo of callee results, and the chain being analysed (cycles). */
interface Walk {
  workspace: WorkspaceFiles;
  settings: Settings;
  root: string;
  memo: Map<string, CalleeSync | null>;
  active: Set<string>;
}

/** Findings at the hot call sites of `model` whose workspace callee syncs every step. */
export function crossFileSyncFindings(input: {
  model: FileModel;
  settings: Settings;
  workspace: WorkspaceFiles;
  /** The folder paths are shown relative to (the workspace root or the CLI's working folder). */
  root: string;
}): Finding[] {
  const { model, settings, workspace, root } = input;
  if (!model.filePath || !model.usesTorch || !settings.enable) return [];
  workspace.beginRequest(model.filePath);
  const walk: Walk = { workspace, settings, root, memo: memoFor(workspace, settings), active: new Set() };
  const findings: Finding[] = [];
  for (const { call, sync } of hotCallsThatSync(model, walk, 0)) {
    const override = settings.severity[sync.code];
    if (override === 'off') continue;
    if (model.suppressions.isSuppressedInFile(sync.code)) continue;
    if (model.suppressions.isSuppressed(sync.code, call.start.line, call.start.line)) continue;
    const callee = unwrap(fieldOf(call, 'function')!).text;
    const where = `${relative(root, sync.path) || sync.path}:${sync.line + 1}`;
    const text = crossFileSyncText({ callee, where, inner: sync });
    findings.push({
      code: sync.code,
      ...text,
      range: { start: call.start, end: call.end },
      severity: override ?? 'warning',
      fixes: [],
      role: 'hot',
    });
  }
  return findings;
}

/** The hot calls of `model` into workspace functions, each with the first sync its callee makes. */
function hotCallsThatSync(
  model: FileModel,
  walk: Walk,
  depth: number,
  within?: SyntaxNode,
): { call: SyntaxNode; sync: CalleeSync }[] {
  const found: { call: SyntaxNode; sync: CalleeSync }[] = [];
  for (const call of model.nodes.call) {
    if (within && !contains(within, call)) continue;
    const target = fieldOf(call, 'function');
    if (!target || (target.type !== 'identifier' && target.type !== 'attribute')) continue;
    const dotted = model.imports.resolve(target);
    if (!dotted || model.roleOf(call) !== 'hot') continue;
    const sync = calleeSync(model, call, dotted, walk, depth);
    if (sync) found.push({ call, sync });
  }
  return found;
}

/** The first every-step sync of the workspace function `dotted` called by `call`, if any. */
function calleeSync(
  model: FileModel,
  call: SyntaxNode,
  dotted: string,
  walk: Walk,
  depth: number,
): CalleeSync | undefined {
  if (depth >= MAX_CALL_DEPTH) return undefined;
  const resolved = walk.workspace.resolve({ fromFile: model.filePath, dotted });
  if (!resolved || resolved.rest.length !== 1) return undefined;
  const fn = topLevelFunction(resolved.file.root, resolved.rest[0]);
  if (!fn) return undefined;
  const { positional, keywords } = argumentKinds(model, call);
  const key = `${resolved.file.path}#${resolved.rest[0]}#${positional.join()}#${keywords.join()}`;
  if (walk.active.has(key)) return undefined; // a cycle of calls between files
  const memo = walk.memo.get(key);
  if (memo !== undefined) return memo ?? undefined;
  walk.active.add(key);
  let sync: CalleeSync | null = null;
  try {
    const { parsed, path } = resolved.file;
    const alone = buildFileModel({ parsed, filePath: path });
    // A function its own file already runs every step reports its syncs there.
    if (alone.roleOf(bodyStart(fn)) !== 'hot') {
      const entered = buildFileModel({ parsed, filePath: path, entries: [{ fn, positional, keywords }] });
      sync = firstNewSync(alone, entered, fn, walk) ?? deeperSync(entered, fn, walk, depth);
    }
  } catch {
    sync = null; // an analysis failure in a callee costs that finding, never the caller's
  }
  walk.active.delete(key);
  // A miss while the read budget ran out may only mean a file was not read yet: ask again next time.
  if (sync || !walk.workspace.budgetSpent) walk.memo.set(key, sync);
  return sync ?? undefined;
}

/** A hot SL1xx finding inside `fn` that the file alone does not have. */
function firstNewSync(alone: FileModel, entered: FileModel, fn: SyntaxNode, walk: Walk): CalleeSync | null {
  const already = new Set(
    runRules(alone, walk.settings)
      .findings.filter((f) => f.role === 'hot')
      .map((f) => `${f.code}@${f.range.start.line}:${f.range.start.column}`),
  );
  for (const finding of runRules(entered, walk.settings).findings) {
    if (!finding.code.startsWith('SL1') || finding.role !== 'hot') continue;
    if (already.has(`${finding.code}@${finding.range.start.line}:${finding.range.start.column}`)) continue;
    if (finding.range.start.line < fn.start.line || finding.range.start.line > fn.end.line) continue;
    const node = nodeAt(fn, finding.range.start, finding.range.end);
    if (!node || !runsOnEveryCall(node, fn)) continue;
    return {
      code: finding.code,
      line: finding.range.start.line,
      path: entered.filePath!,
      message: finding.message,
      ...(finding.detail ? { detail: finding.detail } : {}),
    };
  }
  return null;
}

/** A sync one more file away: a hot call inside `fn` into a workspace function that syncs. */
function deeperSync(entered: FileModel, fn: SyntaxNode, walk: Walk, depth: number): CalleeSync | null {
  const first = hotCallsThatSync(entered, walk, depth + 1, fn).find(({ call }) => runsOnEveryCall(call, fn));
  return first ? first.sync : null;
}

/**
 * Whether `node` runs each time `fn` is called, as far as the call's arguments go: it sits in
 * `fn`'s own body (not in a nested definition, whose calls are not followed), and no branch
 * or loop around it tests one of `fn`'s parameters (`if has_packed_sequences:` — an option the
 * caller passes, whose value is not known here). Branches on other facts (`step % n`, rank)
 * were already read by the roles.
 */
function runsOnEveryCall(node: SyntaxNode, fn: SyntaxNode): boolean {
  const params = new Set(parameterList(fn));
  for (let current = node.parent; current && current !== fn; current = current.parent) {
    if (SCOPES.has(current.type)) return false;
    const condition = CONDITIONAL.has(current.type)
      ? current.type === 'conditional_expression'
        ? current.children.filter((c) => c.type !== 'if' && c.type !== 'else')[1]
        : fieldOf(current, 'condition')
      : undefined;
    if (!condition || isWithin(node, condition)) continue;
    let mentionsParameter = false;
    walk(condition, (child) => {
      if (child.type === 'identifier' && params.has(child.text)) mentionsParameter = true;
      return !mentionsParameter;
    });
    if (mentionsParameter) return false;
  }
  return true;
}

const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);
const CONDITIONAL = new Set(['if_statement', 'elif_clause', 'while_statement', 'conditional_expression']);

/** The outermost node under `root` spanning exactly `start`..`end`. */
function nodeAt(
  root: SyntaxNode,
  start: { line: number; column: number },
  end: { line: number; column: number },
): SyntaxNode | undefined {
  let found: SyntaxNode | undefined;
  walk(root, (node) => {
    if (found) return false;
    const s = node.start;
    const e = node.end;
    if (
      s.line === start.line &&
      s.column === start.column &&
      e.line === end.line &&
      e.column === end.column
    ) {
      found = node;
      return false;
    }
  });
  return found;
}

/** The kinds of a call's arguments (positional in order, keywords by name). */
function argumentKinds(
  model: FileModel,
  call: SyntaxNode,
): { positional: Kind[]; keywords: [string, Kind][] } {
  const positional: Kind[] = [];
  const keywords: [string, Kind][] = [];
  const args = fieldOf(call, 'arguments');
  for (const arg of args?.children ?? []) {
    if (arg.type === 'keyword_argument') {
      const name = fieldOf(arg, 'name');
      const value = fieldOf(arg, 'value');
      if (name && value) keywords.push([name.text, model.kindOf(unwrap(value))]);
    } else if (arg.type === 'list_splat' || arg.type === 'dictionary_splat') {
      break; // positions after a splat are unknown
    } else if (arg.type !== '(' && arg.type !== ')' && arg.type !== ',' && arg.type !== 'comment') {
      positional.push(model.kindOf(unwrap(arg)));
    }
  }
  return { positional, keywords };
}

/** The module-level `def name` of a file (the last one, as Python binds it). */
function topLevelFunction(root: SyntaxNode, name: string): SyntaxNode | undefined {
  let found: SyntaxNode | undefined;
  for (const child of root.children) {
    const fn = child.type === 'decorated_definition' ? fieldOf(child, 'definition') : child;
    if (fn?.type === 'function_definition' && fieldOf(fn, 'name')?.text === name) found = fn;
  }
  return found;
}

/** The first statement of a function's body (its role is the function's). */
function bodyStart(fn: SyntaxNode): SyntaxNode {
  return fieldOf(fn, 'body')?.children[0] ?? fn;
}

function contains(outer: SyntaxNode, inner: SyntaxNode): boolean {
  return inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;
}

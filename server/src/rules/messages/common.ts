// Shared pieces of the diagnostic texts: every finding has one short sentence (`message`,
// under MAX_MESSAGE_CHARS, what and why) and an optional longer `detail` for the hover
// and the docs, as Ruff does. Code spans in messages are clipped so the limit holds.
import type { FileModel } from '../../analysis/file-model';
import type { SyntaxNode } from '../../parse/syntax';

/** What a rule reports in words: the Problems-panel sentence and the hover explanation. */
export interface RuleText {
  /** One sentence, under {@link MAX_MESSAGE_CHARS} characters. */
  message: string;
  /** The longer explanation (cost, evidence, fix), shown in the finding's hover. */
  detail?: string;
}

/** The longest message a diagnostic may carry (the Problems panel cuts longer ones). */
export const MAX_MESSAGE_CHARS = 100;

/** `` `text` `` when the code is short and on one line, otherwise `fallback`. */
export function code(text: string, fallback: string, maxChars = 20): string {
  return text.length <= maxChars && !text.includes('\n') ? `\`${text}\`` : fallback;
}

/** The first candidate message under {@link MAX_MESSAGE_CHARS} (the last one when none is). */
export function firstFitting(...candidates: string[]): string {
  return candidates.find((m) => m.length < MAX_MESSAGE_CHARS) ?? candidates[candidates.length - 1];
}

/**
 * How often a statement runs, for messages: `every training step`, `every step on rank 0`,
 * `only if opt-in \`flag\` is on`, `once per log interval`, `in an evaluation loop`.
 */
export function howOften(model: FileModel, node: SyntaxNode): string {
  const guard = model.guardOf(node);
  if (guard?.kind === 'opt-in')
    return guard.flag.length > 16
      ? 'only under an optional flag'
      : guard.defaultShown
        ? `only if opt-in \`${guard.flag}\` is on`
        : `only if option \`${guard.flag}\` is set`;
  if (guard?.kind === 'rank0' && model.roleOf(node) === 'hot') return 'every step on rank 0';
  if (guard?.kind === 'after-sync') return 'right after a synchronize';
  switch (model.roleOf(node)) {
    case 'logging':
      return 'once per log interval';
    case 'eval':
      return 'in an evaluation loop';
    case 'setup':
      return 'during setup';
    default:
      return 'every training step';
  }
}

/**
 * Why a finding about `tensor` is information only: nothing but the name of the loader
 * `loader` suggests it is a tensor (see analysis/tensor-evidence.ts).
 */
export function weakTensorNote(tensor: SyntaxNode, loader: string): string {
  return (
    `Only the name ${code(loader, 'of its loader', 40)} suggests that ${code(tensor.text, 'this value', 40)} ` +
    'is a tensor: this file does not show what that loader is, nor passes its elements to a module, ' +
    'a loss or `.backward()`. So this is information, not a warning.'
  );
}

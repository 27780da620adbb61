// Turns findings into LSP diagnostics (code, docs link, precomputed fixes in `data`) and
// schedules validation: one pending run per URI, debounced, with stale results dropped.
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { Finding, Severity } from '../rules/types';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/** What a diagnostic carries for code actions. */
export interface DiagnosticData {
  fixes: Finding['fixes'];
}

/** Converts one finding into an LSP diagnostic whose code links to `docsHref` (see `ruleDocsHref`). */
export function toDiagnostic(finding: Finding, docsHref: string): Diagnostic {
  return {
    range: {
      start: { line: finding.range.start.line, character: finding.range.start.column },
      end: { line: finding.range.end.line, character: finding.range.end.column },
    },
    severity: SEVERITY[finding.severity],
    code: finding.code,
    codeDescription: { href: docsHref },
    source: 'shardlens',
    message: finding.message,
    data: { fixes: finding.fixes } satisfies DiagnosticData,
  };
}

/** Debounces work per key: a new request replaces the pending one. */
export class Debouncer {
  /** The pending task of each key, as the function that cancels it. */
  private readonly pending = new Map<string, () => void>();

  /**
   * Runs `task` after `delayMs` unless `schedule` is called again for `key` first. A delay of
   * 0 runs it once the messages already received are handled (`setImmediate`: a 0 ms
   * `setTimeout` waits at least 1 ms in Node).
   */
  schedule(key: string, delayMs: number, task: () => void): void {
    this.cancel(key);
    const run = () => {
      this.pending.delete(key);
      task();
    };
    if (delayMs > 0) {
      const timer = setTimeout(run, delayMs);
      this.pending.set(key, () => clearTimeout(timer));
    } else {
      const immediate = setImmediate(run);
      this.pending.set(key, () => clearImmediate(immediate));
    }
  }

  /** Drops the pending task for `key`. */
  cancel(key: string): void {
    this.pending.get(key)?.();
    this.pending.delete(key);
  }
}

// Adapter over the shared LSP test client (test/helpers/lsp-client.ts) for timing: resolves
// a promise the moment the publishDiagnostics of a given version arrives, instead of polling.
import type { PublishDiagnosticsParams } from 'vscode-languageserver';
import type { LspClient } from '../helpers/lsp-client';
import { nowMs } from './stats';

/** Waits for publishes by version, with arrival times. */
export class PublishWatcher {
  private readonly waiters = new Map<string, (arrivedMs: number) => void>();
  private readonly arrived = new Map<string, number>();

  constructor(private readonly client: LspClient) {
    // NOTE: re-registering replaces the helper's handler, so this one keeps its bookkeeping too.
    client.connection.onNotification(
      'textDocument/publishDiagnostics',
      (params: PublishDiagnosticsParams) => {
        const at = nowMs();
        client.publishes.push({ ...params, sequence: client.publishes.length });
        const key = `${params.uri}@${params.version}`;
        const waiter = this.waiters.get(key);
        if (waiter) {
          this.waiters.delete(key);
          waiter(at);
        } else this.arrived.set(key, at);
      },
    );
  }

  /** Resolves to the arrival time (nowMs clock) of the publish for `uri` at `version`. */
  waitFor(uri: string, version: number, timeoutMs = 60_000): Promise<number> {
    const key = `${uri}@${version}`;
    const already = this.arrived.get(key);
    if (already !== undefined) {
      this.arrived.delete(key);
      return Promise.resolve(already);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        reject(new Error(`no diagnostics for ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(key, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  /** Forgets publishes nobody waited for (keeps memory flat over long runs). */
  clear(): void {
    this.arrived.clear();
    this.client.publishes.length = 0;
  }
}

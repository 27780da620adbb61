// Run history per layer, kept in the workspace state (a Memento). Stored records are
// validated when read back, so a corrupt or older state never reaches the panel.
import { isRunRecord, type RunRecord } from './messages';

/** The part of `vscode.Memento` the history needs. */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

const STATE_KEY = 'shardlens.benchmark.history';
/** Runs kept per layer (and for collectives); the oldest are dropped first. */
export const RUNS_PER_LAYER = 10;

/** Reads and writes benchmark runs in the workspace state. */
export class RunHistory {
  constructor(private readonly state: StateStore) {}

  private all(): RunRecord[] {
    const raw = this.state.get<unknown>(STATE_KEY);
    return Array.isArray(raw) ? raw.filter(isRunRecord) : [];
  }

  /** Runs of one layer (or `collectives`), newest first. */
  forLayer(layerKey: string): RunRecord[] {
    return this.all()
      .filter((r) => r.layerKey === layerKey)
      .sort((a, b) => b.startedAt - a.startedAt);
  }

  /** One run by id. */
  get(runId: string): RunRecord | undefined {
    return this.all().find((r) => r.runId === runId);
  }

  /** Adds or replaces a run and trims that layer's history. */
  async save(run: RunRecord): Promise<void> {
    const others = this.all().filter((r) => r.runId !== run.runId);
    const same = others.filter((r) => r.layerKey === run.layerKey).sort((a, b) => b.startedAt - a.startedAt);
    const dropped = new Set(same.slice(RUNS_PER_LAYER - 1).map((r) => r.runId));
    await this.state.update(STATE_KEY, [...others.filter((r) => !dropped.has(r.runId)), run]);
  }

  /** Deletes one run. */
  async delete(runId: string): Promise<void> {
    await this.state.update(
      STATE_KEY,
      this.all().filter((r) => r.runId !== runId),
    );
  }
}

// Follows a growing JSON-lines file (the harness's events file): fs.watch for prompt
// updates plus polling as a fallback (watch is unreliable on network and some container
// file systems). Reads only the new bytes and keeps a partial last line until it ends.
import * as fs from 'node:fs';

export interface FollowerOptions {
  path: string;
  /** Called once per complete line, in file order, without the newline. */
  onLine: (line: string) => void;
  onError?: (error: Error) => void;
  pollMs?: number;
}

/** Tails one file from the start; call `stop()` when done. */
export class EventsFollower {
  private offsetBytes = 0;
  private partial: Buffer = Buffer.alloc(0);
  private watcher: fs.FSWatcher | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: FollowerOptions) {}

  /** Starts watching; the file may not exist yet. */
  start(): void {
    this.stopped = false;
    try {
      this.watcher = fs.watch(this.options.path, () => void this.poll());
      this.watcher.on('error', () => this.closeWatcher());
    } catch {
      // NOTE: the file may not exist yet or the platform may not support watching; polling covers it.
      this.watcher = undefined;
    }
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 500);
    void this.poll();
  }

  /** Reads whatever is new now; resolves when every byte present at the call has been delivered. */
  poll(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    // Reads are chained so they never overlap; a poll queued behind another read shares its successor.
    if (this.queued) return this.queued;
    const next = this.chain.then(() => {
      this.queued = undefined;
      return this.readNew();
    });
    this.queued = next;
    this.chain = next;
    return next;
  }

  /** Stops watching and polling; a partial last line is dropped. */
  stop(): void {
    this.stopped = true;
    this.closeWatcher();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private async readNew(): Promise<void> {
    let handle: fs.promises.FileHandle | undefined;
    try {
      handle = await fs.promises.open(this.options.path, 'r');
      const { size } = await handle.stat();
      if (size < this.offsetBytes) {
        // NOTE: the file was truncated or replaced; start again from its beginning.
        this.offsetBytes = 0;
        this.partial = Buffer.alloc(0);
      }
      while (this.offsetBytes < size && !this.stopped) {
        const chunk = Buffer.alloc(Math.min(size - this.offsetBytes, 1 << 20));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, this.offsetBytes);
        if (bytesRead === 0) break;
        this.offsetBytes += bytesRead;
        this.consume(chunk.subarray(0, bytesRead));
      }
    } catch (error) {
      const err = error as NodeJS.ErrnoException;
      if (err.code !== 'ENOENT') this.options.onError?.(err);
    } finally {
      await handle?.close();
    }
  }

  private consume(chunk: Buffer): void {
    // Split on the newline byte, so a multi-byte UTF-8 character cut between reads is kept whole.
    let data = this.partial.length > 0 ? Buffer.concat([this.partial, chunk]) : chunk;
    let newline = data.indexOf(0x0a);
    while (newline !== -1) {
      const line = data.subarray(0, newline).toString('utf8').replace(/\r$/, '');
      data = data.subarray(newline + 1);
      if (!this.stopped) this.options.onLine(line);
      newline = data.indexOf(0x0a);
    }
    this.partial = Buffer.from(data);
  }
}

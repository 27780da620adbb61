// Runs `shardlens check` over many files on every core: worker threads (the CLI bundle
// itself, started with a marker in workerData) each load the parser once and check the
// files they are handed; results are stored by file index, so the output order is the
// discovery order whatever thread finishes first.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { initParser } from '../parse/parser';
import type { PartialSettings } from '../config/settings';
import { checkFile, type FileCheck } from './check-file';

/** Below this many files one thread is faster than starting workers (each loads the grammar). */
export const MIN_FILES_FOR_WORKERS = 64;
const WORKER_ROLE = 'shardlens-check-worker';
/** Files handed to a worker ahead of its results. */
const FILES_IN_FLIGHT = 2;

interface WorkerInit {
  role: typeof WORKER_ROLE;
  wasmDir: string;
  cwd: string;
  cliSettings: PartialSettings;
}

/**
 * How many worker threads to use for `fileCount` files: `SHARDLENS_JOBS` when set to a whole
 * number (1 or 0 means none), otherwise one per available core when there are enough files.
 */
export function workerCount(fileCount: number, env = process.env): number {
  // NOTE: Number('') is 0; an empty SHARDLENS_JOBS (`SHARDLENS_JOBS= cmd`) means unset.
  const asked = env.SHARDLENS_JOBS?.trim() ? Number(env.SHARDLENS_JOBS) : NaN;
  if (Number.isInteger(asked) && asked >= 0) return asked <= 1 ? 0 : Math.min(asked, fileCount);
  if (fileCount < MIN_FILES_FOR_WORKERS) return 0;
  const cores = availableParallelism();
  return cores > 1 ? Math.min(cores, 16) : 0;
}

/** Checks `files` (in parallel when worthwhile); the results are in the order of `files`. */
export async function checkFiles(input: {
  files: string[];
  cwd: string;
  wasmDir: string;
  cliSettings: PartialSettings;
}): Promise<FileCheck[]> {
  const { files, cwd, wasmDir, cliSettings } = input;
  const workers = workerCount(files.length);
  // NOTE: the workers run the CLI bundle (dist/cli.js beside the wasm files); a build without
  // it (a test bundle's own wasmDir) checks on this thread.
  const script = join(wasmDir, 'cli.js');
  if (workers === 0 || !existsSync(script)) {
    const parser = await initParser({ wasmDir });
    const pyprojectFolders = new Map<string, string | undefined>();
    return files.map((file) => checkFile({ parser, file, cwd, cliSettings, pyprojectFolders }));
  }
  const results: FileCheck[] = new Array(files.length);
  let next = 0;
  const init: WorkerInit = { role: WORKER_ROLE, wasmDir, cwd, cliSettings };
  const runOne = () =>
    new Promise<void>((resolve) => {
      const worker = new Worker(script, { workerData: init });
      // A worker holds up to FILES_IN_FLIGHT files: it starts the next while a result travels.
      let outstanding = 0;
      worker.on('message', (message: { index: number; result: FileCheck } | 'ready') => {
        if (message !== 'ready') {
          results[message.index] = message.result;
          outstanding--;
        }
        while (outstanding < FILES_IN_FLIGHT && next < files.length) {
          worker.postMessage({ index: next, file: files[next] });
          next++;
          outstanding++;
        }
        if (outstanding === 0) void worker.terminate().then(() => resolve());
      });
      // A worker that fails leaves its file without a result; those are checked below.
      worker.on('error', () => resolve());
      worker.on('exit', () => resolve());
    });
  await Promise.all(Array.from({ length: workers }, runOne));
  let parser: Awaited<ReturnType<typeof initParser>> | undefined;
  const pyprojectFolders = new Map<string, string | undefined>();
  for (let i = 0; i < files.length; i++) {
    if (results[i]) continue;
    parser ??= await initParser({ wasmDir });
    results[i] = checkFile({ parser, file: files[i], cwd, cliSettings, pyprojectFolders });
  }
  return results;
}

/** Whether this thread is a check worker (started by {@link checkFiles}). */
export function isCheckWorker(): boolean {
  return !isMainThread && (workerData as WorkerInit | undefined)?.role === WORKER_ROLE;
}

/** The worker side: load the parser, then check each file handed over until terminated. */
export async function serveCheckWorker(): Promise<void> {
  const { wasmDir, cwd, cliSettings } = workerData as WorkerInit;
  const parser = await initParser({ wasmDir });
  const pyprojectFolders = new Map<string, string | undefined>();
  parentPort!.on('message', ({ index, file }: { index: number; file: string }) => {
    const result = checkFile({ parser, file, cwd, cliSettings, pyprojectFolders });
    parentPort!.postMessage({ index, result });
  });
  parentPort!.postMessage('ready');
}

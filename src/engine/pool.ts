import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EngineAbortError } from './errors';
import { clearTaskCache, runTask, TaskData, TaskResult, TaskSpec } from './pipeline';

/** Runs batches of tasks, on worker threads or inline; results may arrive in any order. */
export interface TaskRunner {
  run(tasks: TaskSpec[], onResult: (r: TaskResult) => void): Promise<void>;
  close(): Promise<void>;
  /** threads currently alive (0 inline) */
  readonly liveWorkers: number;
}

/** Compiled worker script: worker_threads cannot load TypeScript, so under ts-jest use the build in dist/. */
export function workerScript(): string {
  return __filename.endsWith('.ts') ? path.resolve(__dirname, '../../dist/src/engine/worker.js') : path.join(__dirname, 'worker.js');
}

const live = new Set<Worker>();

/** Engine worker threads alive in this process (for tests and diagnostics). */
export function liveWorkerCount(): number {
  return live.size;
}

function abortError(): EngineAbortError {
  return new EngineAbortError();
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Inline runner (threads = 0): runs on the calling thread, yielding to the event loop between tasks. */
class InlineRunner implements TaskRunner {
  readonly liveWorkers = 0;

  constructor(
    private readonly data: TaskData,
    private readonly signal?: AbortSignal,
  ) {
    clearTaskCache();
  }

  async run(tasks: TaskSpec[], onResult: (r: TaskResult) => void): Promise<void> {
    for (const t of tasks) {
      await tick();
      if (this.signal?.aborted) throw abortError();
      onResult(runTask(this.data, t));
    }
  }

  async close(): Promise<void> {
    clearTaskCache();
  }
}

interface WorkerMessage {
  ok: boolean;
  result?: TaskResult;
  id?: number;
  error?: string;
}

/** A fixed pool of worker threads sharing the data matrix (SharedArrayBuffer). Aborting terminates them. */
class WorkerPool implements TaskRunner {
  private workers: Worker[] = [];
  private failure: Error | null = null;
  private closed = false;
  private current: { reject: (e: Error) => void } | null = null;
  private readonly onAbort = (): void => {
    this.fail(abortError());
  };

  constructor(
    data: TaskData,
    threads: number,
    private readonly signal?: AbortSignal,
  ) {
    for (let i = 0; i < threads; i++) {
      const w = new Worker(workerScript(), { workerData: { data } });
      live.add(w);
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        live.delete(w);
        this.workers = this.workers.filter((x) => x !== w);
        if (code !== 0 && !this.failure && !this.closed) this.fail(new Error(`Engine worker exited with code ${code}`));
      });
      this.workers.push(w);
    }
    signal?.addEventListener('abort', this.onAbort);
  }

  get liveWorkers(): number {
    return this.workers.length;
  }

  /** Terminates every worker, then rejects the running batch. */
  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    const current = this.current;
    void Promise.all(this.workers.map((w) => w.terminate().finally(() => live.delete(w)))).then(
      () => current?.reject(e),
      () => current?.reject(e),
    );
  }

  run(tasks: TaskSpec[], onResult: (r: TaskResult) => void): Promise<void> {
    if (this.signal?.aborted) this.fail(abortError());
    if (this.failure) return Promise.reject(this.failure);
    if (tasks.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let next = 0;
      let pending = tasks.length;
      const listeners = new Map<Worker, (m: WorkerMessage) => void>();
      const cleanup = (): void => {
        for (const [w, l] of listeners) w.off('message', l);
        this.current = null;
      };
      this.current = {
        reject: (e) => {
          cleanup();
          reject(e);
        },
      };
      const feed = (w: Worker): void => {
        if (next < tasks.length) w.postMessage(tasks[next++]);
      };
      for (const w of [...this.workers]) {
        const l = (m: WorkerMessage): void => {
          if (this.failure) return;
          if (!m.ok || !m.result) {
            this.fail(new Error(`Engine task ${m.id} failed: ${m.error}`));
            return;
          }
          try {
            onResult(m.result);
          } catch (e) {
            this.fail(e as Error);
            return;
          }
          pending--;
          if (pending === 0) {
            cleanup();
            resolve();
          } else feed(w);
        };
        listeners.set(w, l);
        w.on('message', l);
        feed(w);
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    const ws = [...this.workers];
    await Promise.all(ws.map((w) => w.terminate().finally(() => live.delete(w))));
    this.workers = [];
  }
}

/** A runner with `threads` workers (0 = inline on the calling thread). */
export function createRunner(data: TaskData, threads: number, signal?: AbortSignal): TaskRunner {
  return threads > 0 ? new WorkerPool(data, threads, signal) : new InlineRunner(data, signal);
}

import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ComputeArgs, ComputeName, ComputeResult, runComputation } from './compute';
import { EngineAbortError } from './errors';
import { clearTaskCache, runTask, TaskData, TaskResult, TaskSpec } from './pipeline';

/**
 * Work queued ahead (TaskRunner.prefetch): its tasks run only on threads that no batch needs, until `done` asks for
 * them.
 */
export interface Prefetch {
  /** Runs the tasks not started yet at once, ahead of queued batch work; resolves when each kept task has given its result. */
  done(): Promise<void>;
  /** Leaves out the tasks `unwanted` accepts: those not started never run, the result of one running is ignored. */
  drop(unwanted: (t: TaskSpec) => boolean): void;
}

/** Runs batches of tasks, on worker threads or inline; results may arrive in any order. */
export interface TaskRunner {
  run(tasks: TaskSpec[], onResult: (r: TaskResult) => void): Promise<void>;
  /**
   * Queues `tasks` behind every batch's: a thread takes one only when no batch task waits, so work that is likely
   * needed later (the next folds' selections) fills threads that would otherwise wait for a batch's last long task.
   * Results are identical whenever a task runs (its seed depends on its spec alone).
   */
  prefetch(tasks: TaskSpec[], onResult: (r: TaskResult) => void): Prefetch;
  /**
   * Runs one of the calling thread's computations (compute.ts) on a thread, queued with the batch tasks: the calling
   * thread's serial steps (calibration, bootstraps) split into pieces that run side by side. The same result as
   * computing it here, to the bit.
   */
  compute<K extends ComputeName>(name: K, args: ComputeArgs<K>): Promise<Awaited<ComputeResult<K>>>;
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

  async compute<K extends ComputeName>(name: K, args: ComputeArgs<K>): Promise<Awaited<ComputeResult<K>>> {
    await tick();
    if (this.signal?.aborted) throw abortError();
    return runComputation(name, args);
  }

  /** No thread is ever idle here: the tasks run when `done` asks for them. */
  prefetch(tasks: TaskSpec[], onResult: (r: TaskResult) => void): Prefetch {
    let kept = tasks;
    return {
      done: () => this.run(kept, onResult),
      drop: (unwanted) => {
        kept = kept.filter((t) => !unwanted(t));
      },
    };
  }

  async close(): Promise<void> {
    clearTaskCache();
  }
}

interface WorkerMessage {
  ok: boolean;
  /** a TaskResult, or a computation's result */
  result?: unknown;
  id?: number;
  error?: string;
}

/** What a worker is sent: a task, or one of compute.ts's computations. */
export type WorkerJob = TaskSpec | { compute: ComputeName; args: unknown };

/** Tasks whose results one caller awaits together (a batch, or a prefetch). */
class Group {
  pending: number;
  readonly promise: Promise<void>;
  resolve!: () => void;
  reject!: (e: Error) => void;

  constructor(
    size: number,
    // the results of a group's jobs are all of one kind (TaskResult, or one computation's)
    readonly onResult: (r: never) => void,
  ) {
    this.pending = size;
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // a prefetch nobody awaits in the end must not fail the process when the pool fails
    this.promise.catch(() => undefined);
    if (size === 0) this.resolve();
  }

  /** One task of the group has finished (or left it). */
  settle(): void {
    if (--this.pending === 0) this.resolve();
  }
}

interface Job {
  spec: WorkerJob;
  group: Group;
  /** true until its result is delivered, or until it is dropped (a result that comes then is ignored) */
  wanted: boolean;
}

/**
 * A fixed pool of worker threads sharing the data matrix (SharedArrayBuffer), fed from two queues: batch tasks first,
 * prefetched ones when no batch task waits. Aborting terminates the threads.
 */
class WorkerPool implements TaskRunner {
  private workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly running = new Map<Worker, Job>();
  private readonly queue: Job[] = [];
  private readonly ahead: Job[] = [];
  private readonly groups = new Set<Group>();
  private failure: Error | null = null;
  private closed = false;
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
      w.on('message', (m: WorkerMessage) => this.finished(w, m));
      this.workers.push(w);
      this.idle.push(w);
    }
    signal?.addEventListener('abort', this.onAbort);
  }

  get liveWorkers(): number {
    return this.workers.length;
  }

  /** Terminates every worker, then rejects every group still waiting. */
  private fail(e: Error): void {
    if (this.failure) return;
    this.failure = e;
    const waiting = [...this.groups];
    this.groups.clear();
    this.queue.length = 0;
    this.ahead.length = 0;
    void Promise.all(this.workers.map((w) => w.terminate().finally(() => live.delete(w)))).then(
      () => waiting.forEach((g) => g.reject(e)),
      () => waiting.forEach((g) => g.reject(e)),
    );
  }

  private group<R>(tasks: WorkerJob[], onResult: (r: R) => void): { group: Group; jobs: Job[] } {
    const group = new Group(tasks.length, onResult);
    if (this.failure) group.reject(this.failure);
    else if (tasks.length > 0) {
      this.groups.add(group);
      void group.promise.finally(() => this.groups.delete(group)).catch(() => undefined);
    }
    return { group, jobs: tasks.map((spec) => ({ spec, group, wanted: true })) };
  }

  /** Gives queued jobs to idle threads: batch jobs first. */
  private dispatch(): void {
    while (this.idle.length > 0 && !this.failure) {
      const job = this.queue.shift() ?? this.ahead.shift();
      if (!job) return;
      const w = this.idle.shift() as Worker;
      this.running.set(w, job);
      w.postMessage(job.spec);
    }
  }

  private finished(w: Worker, m: WorkerMessage): void {
    const job = this.running.get(w);
    this.running.delete(w);
    if (this.failure || !job) return;
    if (!m.ok) {
      this.fail(new Error(`Engine task ${m.id} failed: ${m.error}`));
      return;
    }
    this.idle.push(w);
    if (job.wanted) {
      job.wanted = false;
      try {
        job.group.onResult(m.result as never);
      } catch (e) {
        this.fail(e as Error);
        return;
      }
      job.group.settle();
    }
    this.dispatch();
  }

  run(tasks: TaskSpec[], onResult: (r: TaskResult) => void): Promise<void> {
    return this.enqueue(tasks, onResult);
  }

  async compute<K extends ComputeName>(name: K, args: ComputeArgs<K>): Promise<Awaited<ComputeResult<K>>> {
    let result: Awaited<ComputeResult<K>> | undefined;
    await this.enqueue([{ compute: name, args }], (r: Awaited<ComputeResult<K>>) => (result = r));
    return result as Awaited<ComputeResult<K>>;
  }

  /** Queues jobs behind the batch jobs waiting; resolves when each has given its result to `onResult`. */
  private enqueue<R>(jobs: WorkerJob[], onResult: (r: R) => void): Promise<void> {
    if (this.signal?.aborted) this.fail(abortError());
    const { group, jobs: queued } = this.group(jobs, onResult);
    if (!this.failure) {
      this.queue.push(...queued);
      this.dispatch();
    }
    return group.promise;
  }

  prefetch(tasks: TaskSpec[], onResult: (r: TaskResult) => void): Prefetch {
    const { group, jobs } = this.group(tasks, onResult);
    if (!this.failure) {
      this.ahead.push(...jobs);
      this.dispatch();
    }
    const unstarted = (job: Job): boolean => this.ahead.includes(job);
    return {
      done: () => {
        if (this.signal?.aborted) this.fail(abortError());
        const waiting = jobs.filter(unstarted);
        for (const job of waiting) this.ahead.splice(this.ahead.indexOf(job), 1);
        this.queue.unshift(...waiting);
        this.dispatch();
        return group.promise;
      },
      drop: (unwanted) => {
        for (const job of jobs) {
          if (!job.wanted || !unwanted(job.spec as TaskSpec)) continue;
          job.wanted = false;
          if (unstarted(job)) this.ahead.splice(this.ahead.indexOf(job), 1);
          group.settle();
        }
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.queue.length = 0;
    this.ahead.length = 0;
    const ws = [...this.workers];
    await Promise.all(ws.map((w) => w.terminate().finally(() => live.delete(w))));
    this.workers = [];
  }
}

/** A runner with `threads` workers (0 = inline on the calling thread). */
export function createRunner(data: TaskData, threads: number, signal?: AbortSignal): TaskRunner {
  return threads > 0 ? new WorkerPool(data, threads, signal) : new InlineRunner(data, signal);
}

import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { isDatabaseUnavailable } from './database-errors';
import type { ThreadAnswer, ThreadSetup, ThreadTask } from './thread-pool';

/** What a task of a pooled thread gives back: its value, and the ArrayBuffers to move back with it (not copy). */
export interface TaskResult<T> {
  value: T;
  transfer?: ArrayBuffer[];
}

/**
 * The thread side of a ThreadPool: lowers this thread's priority (on Linux setpriority(0) sets the calling thread's
 * niceness alone), then answers each task with `handle`'s result, or the message of what it threw. One task at a
 * time: the pool sends the next once this one is answered.
 */
export function serveTasks<T>(handle: (data: unknown) => TaskResult<T> | Promise<TaskResult<T>>): void {
  const port = parentPort;
  if (!port) return;
  try {
    os.setPriority(0, (workerData as ThreadSetup).nice);
  } catch {
    // not allowed here: the thread runs at the process's priority
  }
  port.on('message', (task: ThreadTask) => {
    void (async () => {
      try {
        const { value, transfer = [] } = await handle(task.data);
        port.postMessage({ id: task.id, ok: true, value } satisfies ThreadAnswer, transfer);
      } catch (e) {
        port.postMessage({ id: task.id, ok: false, message: e instanceof Error ? e.message : String(e) } satisfies ThreadAnswer);
      }
    })();
  });
}

/** What a one-shot worker that fails answers: its error's message, and whether the database could not be reached. */
export interface WorkFailed {
  failed: string;
  unavailable: boolean;
}

/**
 * The thread side of a one-shot engine-process script (runInWorker) whose work may fail on the database: when this is
 * that thread (`accepts(workerData)`), runs `work` and posts its answer, or a WorkFailed (the service rethrows it with
 * workFailure).
 */
export function answerOnce<T>(accepts: (data: unknown) => boolean, work: (data: unknown) => Promise<T>): void {
  const port = parentPort;
  if (!port || !accepts(workerData)) return;
  void work(workerData).then(
    (answer) => port.postMessage(answer),
    (e: unknown) =>
      port.postMessage({ failed: e instanceof Error ? e.message : String(e), unavailable: isDatabaseUnavailable(e) } satisfies WorkFailed),
  );
}

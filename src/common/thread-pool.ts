import { Worker } from 'node:worker_threads';
import { engineProcessOptions } from './engine-process';

/** The message of a task whose thread ran out of its heap (the task's data asked too much). */
export const OUT_OF_MEMORY = 'it took its thread past its memory limit';

/** A task sent to a pooled thread: its number (the answer names it) and its data. */
export interface ThreadTask {
  id: number;
  data: unknown;
}

/** A pooled thread's answer: its task's value, or the message of what it threw. */
export type ThreadAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

/** What a pooled thread is started with (thread-task.ts reads it). */
export interface ThreadSetup {
  /** scheduling niceness of the thread (Linux keeps one per thread): the event loop's thread gets a core first */
  nice: number;
}

interface Pending {
  task: ThreadTask;
  transfer: ArrayBuffer[];
  resolve: (value: unknown) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  busy?: Pending;
}

/**
 * A few long-lived worker threads of this process that run one script's tasks (thread-task.ts), each at most one at a
 * time, the others waiting in arrival order. For work that grows with what a client sends and is short and frequent
 * (an image add's structural check): an engine process per task (runInWorker) would cost a fork each time, ~0.2 s.
 * The threads run at the engine's niceness (ENGINE_NICE), so the event loop's thread wins a core over them, and with
 * a heap limit of their own: a task that runs out of memory ends its thread (replaced by a new one), not the process.
 * They hold nothing of the process alive (unreferenced while idle).
 */
export class ThreadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  /** `script`: a compiled thread script (workerScript), or a data: URL of a module (tests). */
  constructor(
    private readonly script: string | URL,
    private readonly size: number,
    private readonly maxMemoryMb = 512,
  ) {}

  /** Tasks running or waiting. */
  get load(): number {
    return this.queue.length + this.slots.filter((s) => s.busy).length;
  }

  /**
   * Runs one task with `data` on a free thread (or the next one free); resolves with its value, rejects with what it
   * threw (its message) or with the end of its thread. `transfer`: ArrayBuffers moved to the thread, not copied.
   */
  run<T>(data: unknown, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the thread pool is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ task: { id: this.nextId++, data }, transfer, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Ends every thread; tasks still waiting or running are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('the thread pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) slot = this.startThread();
      if (!slot) return;
      const next = this.queue.shift()!;
      slot.busy = next;
      slot.worker.ref();
      slot.worker.postMessage(next.task, next.transfer);
    }
  }

  private startThread(): Slot {
    const worker = new Worker(this.script, {
      workerData: { nice: engineProcessOptions().nice } satisfies ThreadSetup,
      resourceLimits: { maxOldGenerationSizeMb: this.maxMemoryMb },
    });
    const slot: Slot = { worker };
    this.slots.push(slot);
    worker.unref();
    worker.on('message', (answer: ThreadAnswer) => {
      const pending = slot.busy;
      if (!pending || pending.task.id !== answer.id) return;
      slot.busy = undefined;
      worker.unref();
      if (answer.ok) pending.resolve(answer.value);
      else pending.reject(new Error(answer.message));
      this.dispatch();
    });
    const lost = (e: Error) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      slot.busy?.reject(e);
      slot.busy = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (e: Error & { code?: string }) => lost(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Error(OUT_OF_MEMORY) : e));
    worker.on('exit', (code) => lost(new Error(`the thread exited with code ${code}`)));
    return slot;
  }
}

/**
 * The ArrayBuffer under `bytes`, when `bytes` is the whole of it (then it can be moved to a thread without a copy);
 * undefined when it is a view of a larger buffer (a slice of a socket's read, of Node's Buffer pool), which must be
 * copied instead, else its neighbours would go with it.
 */
export function wholeBuffer(bytes: Uint8Array): ArrayBuffer | undefined {
  const buffer = bytes.buffer;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? buffer : undefined;
}

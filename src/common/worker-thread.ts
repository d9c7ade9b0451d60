import { EngineWorker } from './engine-process';

export { workerScript } from './worker-script';

/** What a worker thread may post before its answer: how far it is (0 to 1). */
export interface ProgressMessage {
  type: 'progress';
  value: number;
}

export interface WorkerRunOptions {
  /** Aborting it kills the engine process at once and rejects with its reason. */
  signal?: AbortSignal;
  /** Called with each ProgressMessage the thread posts before its answer; without it the first message is the answer. */
  onProgress?: (fraction: number) => void;
}

/**
 * Runs `script` on a worker thread of an engine process (engine-process.ts: lower priority, own heap) with
 * `data`, resolves with its answer: its first message (after any progress messages, when `onProgress` is given).
 * The process is killed once the answer is in, or when the thread fails or `signal` aborts.
 */
export function runInWorker<T>(script: string, data: unknown, options: WorkerRunOptions = {}): Promise<T> {
  const { signal, onProgress } = options;
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const worker = new EngineWorker(script, { workerData: data });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      fn();
    };
    const onAbort = () => settle(() => reject(abortReason(signal)));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: T | ProgressMessage) => {
      if (onProgress && isProgress(m)) onProgress(m.value);
      else settle(() => resolve(m as T));
    });
    worker.once('error', (e: Error) => settle(() => reject(e)));
    worker.once('exit', (code: number) => settle(() => reject(new Error(`worker thread exited with code ${code}`))));
  });
}

function isProgress(m: unknown): m is ProgressMessage {
  return typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'progress';
}

/** The ArrayBuffers under a set of typed arrays, for a transfer list (each once). */
export function buffersOf(arrays: ArrayBufferView[]): ArrayBuffer[] {
  const set = new Set<ArrayBuffer>();
  for (const a of arrays) if (a.buffer instanceof ArrayBuffer) set.add(a.buffer);
  return [...set];
}

/** What aborted `signal`, as an Error (an abort reason can be any value). */
function abortReason(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new Error('aborted');
}

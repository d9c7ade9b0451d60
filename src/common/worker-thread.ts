import * as path from 'node:path';
import { EngineWorker } from './engine-process';

/**
 * The compiled script of a worker-thread module. Jest runs the TypeScript sources, but worker threads
 * need JavaScript: from a .ts file, point at its build in dist/ (`npm test` builds before running).
 */
export function workerScript(dirname: string, filename: string, basename: string): string {
  if (filename.endsWith('.ts')) {
    const rel = path.relative(path.resolve(__dirname, '..', '..'), dirname);
    return path.resolve(__dirname, '..', '..', 'dist', rel, `${basename}.js`);
  }
  return path.join(dirname, `${basename}.js`);
}

/**
 * Runs `script` on a worker thread of an engine process (engine-process.ts: lower priority, own heap) with
 * `data`, resolves with its first message. Aborting `signal` kills that process at once and rejects.
 */
export function runInWorker<T>(script: string, data: unknown, options: { signal?: AbortSignal } = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (options.signal?.aborted) return reject(abortReason(options.signal));
    const worker = new EngineWorker(script, { workerData: data });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      void worker.terminate();
      finish(() => reject(abortReason(options.signal)));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (m: T) => {
      finish(() => resolve(m));
      void worker.terminate();
    });
    worker.once('error', (e: Error) => finish(() => reject(e)));
    worker.once('exit', (code: number) => finish(() => reject(new Error(`worker thread exited with code ${code}`))));
  });
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

import { EngineCrash, EngineWorker } from '../common/engine-process';
import type { PackedColumn, PackedPiece } from './column-store';

/** Pieces sent to the thread and not yet taken by it: bounds the memory between the two. */
const IN_FLIGHT = 4;

/** What a packed-columns thread is started with: the columns it is sent (readPacked's), and its own settings. */
export interface PackedSetup<S> {
  sampleCount: number;
  columns: PackedColumn[];
  settings: S;
}
/** From the main thread: the pieces of the columns in order (a coded column's levels, then its deflated data), then the end. */
export type PackedInput = { column: number; part: 'levels' | 'data'; piece: Uint8Array } | { end: true };
/** To the main thread: one `taken` per piece used (flow control), then the result or a fault. */
export type PackedOutput<R> = { taken: true } | { ok: true; result: R } | { ok: false; message: string };

/**
 * Runs `script` (a thread built on packed-stream.worker.ts) on a worker thread of an engine process
 * (engine-process.ts: lower priority, own heap) and sends it the pieces of ColumnStore.readPacked as they are
 * read; only its result comes back. The API's event loop never holds more than IN_FLIGHT pieces of the data,
 * and never walks its values or parses its labels. An engine process that runs out of memory
 * (ENGINE_MAX_MEMORY_MB) gives `onCrash`'s answer.
 */
export async function streamToEngine<S, R>(
  script: string,
  setup: PackedSetup<S>,
  pieces: AsyncIterable<PackedPiece>,
  onCrash: (e: EngineCrash) => R,
): Promise<R> {
  const worker = new EngineWorker(script, { workerData: setup });
  let inFlight = 0;
  let space: (() => void) | undefined;
  let failed = false;
  const result = new Promise<R>((resolve, reject) => {
    worker.on('message', (m: PackedOutput<R>) => {
      if ('taken' in m) {
        inFlight--;
        space?.();
        space = undefined;
      } else if (m.ok) resolve(m.result);
      else reject(new Error(m.message));
    });
    worker.once('error', reject);
    worker.once('exit', (code: number) => reject(new Error(`the packed-columns thread exited with code ${code}`)));
  });
  result.catch(() => {
    failed = true;
    space?.();
  });
  try {
    for await (const { column, part, piece } of pieces) {
      while (inFlight >= IN_FLIGHT && !failed) await new Promise<void>((r) => (space = r));
      if (failed) break;
      inFlight++;
      worker.postMessage({ column, part, piece } satisfies PackedInput);
    }
    if (!failed) worker.postMessage({ end: true } satisfies PackedInput);
    return await result;
  } catch (e) {
    if (e instanceof EngineCrash) return onCrash(e);
    throw e;
  } finally {
    void worker.terminate();
  }
}

import { EngineCrash, EngineWorker } from '../common/engine-process';
import { Semaphore } from '../common/semaphore';
import { workerScript } from '../common/worker-thread';
import type { PackedColumn, PackedPiece } from '../datasets/column-store';
import type { DataCheckInput, DataCheckOutput, DataCheckSetup } from './data-check.worker';

const SCRIPT = workerScript(__dirname, __filename, 'data-check.worker');

/** Pieces sent to the thread and not yet inflated by it: bounds the memory between the two. */
const IN_FLIGHT = 4;

/**
 * Data checks running at once in this process (each an engine process holding its outcome columns); more
 * wait their turn, holding no database connection meanwhile.
 */
export const dataChecks = new Semaphore(2);

let started = 0;
/** Data checks started on an engine process since this process started (for tests and diagnostics). */
export function dataChecksStarted(): number {
  return started;
}

/**
 * validateAnalysisInput on a worker thread of an engine process (engine-process.ts): the columns' deflated
 * pieces are sent as they are read, inflated there, and only the problems come back. The API's event loop
 * never holds more than IN_FLIGHT pieces of the data, and never walks its values. An engine process that
 * runs out of memory (ENGINE_MAX_MEMORY_MB) is reported as a problem of the dataset.
 */
export async function checkDataInWorker(
  setup: Omit<DataCheckSetup, 'columns'>,
  columns: PackedColumn[],
  pieces: AsyncIterable<PackedPiece>,
): Promise<string[]> {
  started++;
  const worker = new EngineWorker(SCRIPT, { workerData: { ...setup, columns } satisfies DataCheckSetup });
  let inFlight = 0;
  let space: (() => void) | undefined;
  let failed = false;
  const result = new Promise<string[]>((resolve, reject) => {
    worker.on('message', (m: DataCheckOutput) => {
      if ('taken' in m) {
        inFlight--;
        space?.();
        space = undefined;
      } else if (m.ok) resolve(m.problems);
      else reject(new Error(m.message));
    });
    worker.once('error', reject);
    worker.once('exit', (code: number) => reject(new Error(`the data check thread exited with code ${code}`)));
  });
  result.catch(() => {
    failed = true;
    space?.();
  });
  try {
    for await (const { column, piece } of pieces) {
      while (inFlight >= IN_FLIGHT && !failed) await new Promise<void>((r) => (space = r));
      if (failed) break;
      inFlight++;
      worker.postMessage({ column, piece } satisfies DataCheckInput);
    }
    if (!failed) worker.postMessage({ end: true } satisfies DataCheckInput);
    return await result;
  } catch (e) {
    if (e instanceof EngineCrash) {
      return [
        `The outcome columns are too large to check within the engine's memory (ENGINE_MAX_MEMORY_MB): ${e.message}; an analysis of this dataset would need more`,
      ];
    }
    throw e;
  } finally {
    void worker.terminate();
  }
}

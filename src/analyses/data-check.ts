import { Semaphore } from '../common/semaphore';
import { workerScript } from '../common/worker-thread';
import type { PackedColumn, PackedPiece } from '../datasets/column-store';
import { streamToEngine } from '../datasets/packed-stream';
import type { DataCheckSettings } from './data-check.worker';

const SCRIPT = workerScript(__dirname, __filename, 'data-check.worker');

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
 * validateAnalysisInput on a worker thread of an engine process: the columns' pieces (levels and deflated
 * data) are streamed to it as they are read (packed-stream.ts), and only the problems come back. An engine
 * process that runs out of memory (ENGINE_MAX_MEMORY_MB) is reported as a problem of the dataset.
 */
export async function checkDataInWorker(
  sampleCount: number,
  settings: DataCheckSettings,
  columns: PackedColumn[],
  pieces: AsyncIterable<PackedPiece>,
): Promise<string[]> {
  started++;
  return streamToEngine(SCRIPT, { sampleCount, columns, settings }, pieces, (e) => [
    `The outcome columns are too large to check within the engine's memory (ENGINE_MAX_MEMORY_MB): ${e.message}; an analysis of this dataset would need more`,
  ]);
}

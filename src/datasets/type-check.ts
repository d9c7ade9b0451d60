import { Semaphore } from '../common/semaphore';
import { workerScript } from '../common/worker-thread';
import type { FeatureType } from '../engine/types';
import type { PackedColumn, PackedPiece } from './column-store';
import { streamToEngine } from './packed-stream';

const SCRIPT = workerScript(__dirname, __filename, 'type-check.worker');

/** Type checks running at once in this process (each an engine process holding the columns it checks). */
export const typeChecks = new Semaphore(2);

/**
 * Why one of `columns` cannot take its type in `types` (text becoming numerical, a negative time to event), or
 * null: checked on a worker thread of an engine process, to which the columns' levels and data are streamed
 * (packed-stream.ts); the API never parses their labels or walks their values.
 */
export function checkTypesInWorker(
  sampleCount: number,
  types: Record<string, FeatureType>,
  columns: PackedColumn[],
  pieces: AsyncIterable<PackedPiece>,
): Promise<string | null> {
  return streamToEngine(SCRIPT, { sampleCount, columns, settings: { types } }, pieces, (e) => {
    return `The columns are too large to check within the engine's memory (ENGINE_MAX_MEMORY_MB): ${e.message}`;
  });
}

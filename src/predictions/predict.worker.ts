import { parentPort, workerData } from 'node:worker_threads';
import { EngineInputError, predict } from '../engine';
import type { EngineDataset, PredictionRow, SavedPipeline } from '../engine/types';

/** Applies a saved pipeline to a dataset off the main thread; posts `{ rows }` or `{ error, input }`. */
const { pipeline, data, times } = workerData as { pipeline: SavedPipeline; data: EngineDataset; times?: number[] };
try {
  const rows: PredictionRow[] = predict(pipeline, data, { times });
  parentPort?.postMessage({ rows });
} catch (e) {
  const input = e instanceof EngineInputError;
  const message = input ? (e.detail ?? (e as Error).message) : (e as Error).message;
  parentPort?.postMessage({ error: message, input });
}

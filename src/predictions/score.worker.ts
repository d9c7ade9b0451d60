import { parentPort } from 'node:worker_threads';
import { EngineInputError, predict } from '../engine';
import type { PredictionRow, SavedPipeline } from '../engine/types';
import { rowsToDataset, ScoreRowsFault } from './score-rows';

/** What a score call asks of this worker: the model's pipeline and the body's rows as sent. */
export interface ScoreRequest {
  pipeline: SavedPipeline;
  rows: unknown;
  times?: number[];
  explain?: boolean;
}

/** The scored rows, or why they cannot be (`fault`), or an engine failure (`error`). */
export type ScoreResponse = { predictions: PredictionRow[] } | ScoreRowsFault | { error: string };

/**
 * Checks, converts and scores the rows off the API's event loop (their cost grows with what the caller sends). The
 * thread lives on (score-thread.ts): each message `{ id, request }` gets `{ id, answer }`.
 */
export function answer({ pipeline, rows, times, explain }: ScoreRequest): ScoreResponse {
  try {
    const data = rowsToDataset(pipeline, rows);
    if ('fault' in data) return data;
    return { predictions: predict(pipeline, data, { times, explain }) };
  } catch (e) {
    if (e instanceof EngineInputError) return { fault: 'rejected', message: e.detail };
    return { error: (e as Error).message };
  }
}

parentPort?.on('message', ({ id, request }: { id: number; request: ScoreRequest }) =>
  parentPort?.postMessage({ id, answer: answer(request) }),
);

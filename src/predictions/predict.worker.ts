import { parentPort, workerData } from 'node:worker_threads';
import { EngineInputError, predict } from '../engine';
import type { EngineDataset, SavedPipeline } from '../engine/types';

/** What the prediction job asks of this worker. */
export interface PredictRequest {
  pipeline: SavedPipeline;
  data: EngineDataset;
  times?: number[];
  /** add each row's explanation */
  explain?: boolean;
  /** the largest JSON text a result may take */
  maxBytes: number;
}

/**
 * What it answers: the result's rows as JSON text (`json`, `count` rows), or `bytes` over `maxBytes`, or an `error`
 * (`input`: the data's fault).
 */
export type PredictResponse =
  { json: string; count: number } | { tooLarge: true; bytes: number; count: number } | { error: string; input: boolean };

/** The values of the dataset's identifier column, when it has one. */
function sampleIds(data: EngineDataset): string[] | undefined {
  const id = data.columns.find((c) => c.type === 'identifier');
  if (!id || !('codes' in id)) return undefined;
  return Array.from(id.codes, (c) => (c >= 0 ? id.levels[c] : ''));
}

/**
 * Applies a saved pipeline to a dataset off the main thread, and writes the rows' JSON text here too: a result of a
 * million rows is hundreds of MiB of JSON, whose objects would take seconds to copy to the service's thread and
 * serialise there, stalling every request of the process the job runs in.
 */
function answer({ pipeline, data, times, explain, maxBytes }: PredictRequest): PredictResponse {
  try {
    const rows = predict(pipeline, data, { times, explain });
    const ids = sampleIds(data);
    const parts: string[] = [];
    let bytes = 2;
    for (const { row, ...rest } of rows) {
      const text = JSON.stringify(ids ? { row, sampleId: ids[row], ...rest } : { row, ...rest });
      bytes += Buffer.byteLength(text) + 1;
      if (bytes <= maxBytes) parts.push(text);
    }
    if (bytes > maxBytes) return { tooLarge: true, bytes, count: rows.length };
    return { json: `[${parts.join(',')}]`, count: rows.length };
  } catch (e) {
    const input = e instanceof EngineInputError;
    const message = input ? (e.detail ?? (e as Error).message) : (e as Error).message;
    return { error: message, input };
  }
}

parentPort?.postMessage(answer(workerData as PredictRequest));

import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../common/api-error';
import { parseSampleTable, SampleTableRequest, SampleTableResponse } from './sample-table';

/** parseSampleTable on a worker thread of an engine process (parseSampleTableInWorker in sample-table.ts). */
function main(): SampleTableResponse {
  const { csv, hasFeatureHeaders } = workerData as SampleTableRequest;
  try {
    return { ok: true, table: parseSampleTable(Buffer.from(csv.buffer, csv.byteOffset, csv.byteLength), hasFeatureHeaders) };
  } catch (e) {
    return e instanceof ApiError
      ? { ok: false, code: e.code, message: e.message }
      : { ok: false, message: (e as Error).message || String(e) };
  }
}

parentPort?.postMessage(main());

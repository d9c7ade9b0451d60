import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../common/api-error';
import type { ErrorCode } from '../common/error-codes';
import { parseSampleTable, SampleTable } from './sample-table';

/** Input of the worker: the init file and its header option; output: the table, or the refusal it raised. */
export interface SampleTableRequest {
  csv: Uint8Array;
  hasFeatureHeaders: boolean;
}
export type SampleTableResponse = { ok: true; table: SampleTable } | { ok: false; code?: ErrorCode; message: string };

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

import { parentPort, workerData } from 'node:worker_threads';
import { distinctNumbers } from './column-builder';

/** The second thread of table-parser.worker.ts's distinct counts: counts its columns, sends them back with their memory. */
export interface DistinctAnswer {
  counts: number[];
}

const { columns } = workerData as { columns: { buffer: ArrayBuffer; byteOffset: number; length: number }[] };
const counts = columns.map((c) => distinctNumbers(new Float64Array(c.buffer, c.byteOffset, c.length)));
parentPort?.postMessage({ counts, buffers: columns.map((c) => c.buffer) } satisfies DistinctAnswer & { buffers: ArrayBuffer[] }, [
  ...new Set(columns.map((c) => c.buffer)),
]);

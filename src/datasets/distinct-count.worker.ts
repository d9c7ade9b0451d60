import { parentPort, workerData } from 'node:worker_threads';
import { buffersOf } from '../common/worker-thread';
import { distinctNumbers } from './column-builder';

/** The second thread of table-parser.worker.ts's distinct counts: counts its columns, sends them back with their memory. */
export interface DistinctAnswer {
  counts: number[];
}

const { columns } = workerData as { columns: { buffer: ArrayBufferLike; byteOffset: number; length: number }[] };
const arrays = columns.map((c) => new Float64Array(c.buffer, c.byteOffset, c.length));
const counts = arrays.map(distinctNumbers);
// moved back; shared memory is shared, not moved
parentPort?.postMessage(
  { counts, buffers: columns.map((c) => c.buffer) } satisfies DistinctAnswer & { buffers: ArrayBufferLike[] },
  buffersOf(arrays),
);

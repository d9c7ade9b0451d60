import { parentPort, workerData } from 'node:worker_threads';
import { safePool } from '../database/pg-pool';
import { buffersOf } from '../common/worker-thread';
import { PieceMessage, PieceTarget, PieceThreadOutput, PieceWriter } from './column-pieces';

/** The writing thread of PieceThread (column-pieces.ts): writes each cut it is sent, hands its copies back. */
const { databaseUrl, target } = workerData as { databaseUrl: string; target: PieceTarget };
const port = parentPort!;
// a connection lost, idle or held between statements: the next COPY fails (pg-pool.ts)
const pool = safePool({ connectionString: databaseUrl, max: 1 });
const writer = new PieceWriter(pool, target);

const post = (m: PieceThreadOutput, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

port.on('message', (m: PieceMessage | { end: true }) => {
  if ('end' in m) {
    void writer
      .done()
      .then(
        (bytes) => post({ ok: true, bytes: [...bytes] }),
        (e: Error) => post({ ok: false, message: e.message || String(e) }),
      )
      .finally(() => pool.end());
    return;
  }
  const columns = m.columns.map((c) => ({ idx: c.idx, values: new Float64Array(c.buffer, c.offset, c.length) }));
  const copies = buffersOf(columns.map((c) => c.values));
  writer.write(m.piece, columns, () => post({ free: copies }, copies));
});

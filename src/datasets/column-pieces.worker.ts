import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'pg';
import { buffersOf } from '../common/worker-thread';
import { PieceMessage, PieceTarget, PieceThreadOutput, PieceWriter } from './column-pieces';

/** The writing thread of PieceThread (column-pieces.ts): writes each cut it is sent, hands its copies back. */
const { databaseUrl, target } = workerData as { databaseUrl: string; target: PieceTarget };
const port = parentPort!;
const pool = new Pool({ connectionString: databaseUrl, max: 1 });
pool.on('error', () => undefined); // a connection lost while idle: the next COPY fails
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

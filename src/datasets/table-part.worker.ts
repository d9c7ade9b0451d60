import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'pg';
import { buffersOf } from '../common/worker-thread';
import { copyBytes } from '../database/copy-bytes';
import { fileChunksCopy } from './datasets.queries';
import type { PartOutput, PartSetup } from './split-parse';
import { parseTablePart } from './table-parser';
import type { TableLayout } from './table-split';

/**
 * The second half of a stored file (split-parse.ts), read from the database over a connection of its own and
 * parsed as a part (parseTablePart) once the thread is sent the columns; its columns go back moved, not copied. Any fault is only `ok: false`:
 * the first thread then reads the half itself, and reports the fault where it is.
 */
async function main(): Promise<void> {
  const { source, seq, options, pieceBytes } = workerData as PartSetup;
  const port = parentPort!;
  const columns = new Promise<TableLayout>((resolve) => port.once('message', resolve));
  const pool = new Pool({ connectionString: source.databaseUrl, max: 1 });
  pool.on('error', () => undefined); // a connection lost while idle: the read that needs it fails
  let out: PartOutput = { ok: false };
  let transfer: ArrayBuffer[] = [];
  try {
    const chunks = copyBytes(pool, fileChunksCopy(source.filePk, { seq, side: 'after' }), pieceBytes, 2);
    // the read starts now (its first pieces wait, bounded); the parse once the columns are known
    const first = await chunks.next();
    const layout = await columns;
    const part = await parseTablePart(rejoined(first, chunks), options, layout);
    out = { ok: true, part };
    transfer = buffersOf(part.columns.flatMap((c) => [c.values, c.codes].filter((a) => a !== undefined)));
  } catch {
    // answered as not read
  }
  // answered before the connection is closed: the first thread waits for nothing else
  port.postMessage(out, transfer);
  await pool.end().catch(() => undefined);
  port.close();
}

/** The pieces of `rest` with the first (already taken) before them. */
async function* rejoined(first: IteratorResult<Buffer>, rest: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}

void main();

import { parentPort, workerData } from 'node:worker_threads';
import { safePool } from '../database/pg-pool';
import { READ_AHEAD, ReadMessage, SpareMessage, StoredFileSource, storedFileBytes } from './stored-file';

/** The reading thread of storedFileInThread (stored-file.ts): sends the file's pieces, at most READ_AHEAD not handed back. */
const { source, pieceBytes } = workerData as { source: StoredFileSource; pieceBytes: number };
const port = parentPort!;
const spare: Buffer[] = [];
let out = 0;
let room: (() => void) | undefined;
port.on('message', (m: SpareMessage) => {
  out--;
  if (m.spare.byteLength === pieceBytes) spare.push(Buffer.from(m.spare));
  room?.();
  room = undefined;
});

async function main(): Promise<void> {
  // a connection lost, idle or held between statements: the read that needs it fails (pg-pool.ts)
  const pool = safePool({ connectionString: source.databaseUrl, max: 1 });
  try {
    for await (const piece of storedFileBytes(pool, source.filePk, source.sizeInBytes, pieceBytes, spare)) {
      while (out >= READ_AHEAD) await new Promise<void>((r) => (room = r));
      out++;
      const buffer = piece.buffer as ArrayBuffer;
      port.postMessage({ buffer, length: piece.length } satisfies ReadMessage, [buffer]);
    }
    port.postMessage({ end: true } satisfies ReadMessage);
  } catch (e) {
    port.postMessage({ failed: (e as Error).message || String(e) } satisfies ReadMessage);
  } finally {
    await pool.end();
  }
}

void main();

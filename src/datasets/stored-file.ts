import { Worker } from 'node:worker_threads';
import type { Pool } from 'pg';
import { workerScript } from '../common/worker-script';
import { copyBytes } from '../database/copy-bytes';

/**
 * The text of a binary COPY of a stored file's chunks in order (copy-bytes.ts runs it on a connection of its own:
 * raw bytes). The key is a number the caller checked. Here rather than in datasets.queries.ts: the engine's threads
 * that import this module would load TypeORM with that one (0.25 s of CPU per thread, two threads per build).
 */
function fileChunksCopy(filePk: string): string {
  return `SELECT data FROM file_chunks WHERE file_pk = ${Number(filePk)} ORDER BY seq`;
}

/** Where a build's engine process reads an uploaded file from: the database, over a connection of its own. */
export interface StoredFileSource {
  databaseUrl: string;
  filePk: string;
  sizeInBytes: number;
}

/**
 * The stored file's bytes in order, in pieces of `pieceBytes` (the last one shorter): one binary COPY of its
 * chunks (copy-bytes.ts: raw bytes, one snapshot for the whole file). Full pieces put in `spare` are filled
 * again. Fails when they do not add up to its size (a lost chunk).
 */
export async function* storedFileBytes(
  pool: Pool,
  filePk: string,
  sizeInBytes: number,
  pieceBytes: number,
  spare: Buffer[] = [],
): AsyncGenerator<Buffer> {
  if (!/^\d+$/.test(filePk)) throw new Error(`not a file key: ${filePk}`);
  let read = 0;
  for await (const piece of copyBytes(pool, fileChunksCopy(filePk), pieceBytes, 2, spare)) {
    read += piece.length;
    yield piece;
  }
  if (read !== sizeInBytes) throw new Error(`file ${filePk} holds ${read} bytes, not ${sizeInBytes}: it lost chunks`);
}

const SCRIPT = workerScript(__dirname, __filename, 'stored-file.worker');

/** Pieces the reading thread sends before the consumer has handed any back: bounds the memory between the two. */
export const READ_AHEAD = 4;

/** From the consumer: a piece it is done with (its memory), to fill again. */
export interface SpareMessage {
  spare: ArrayBuffer;
}
/** To the consumer: the next piece (`length` bytes of `buffer`), the end, or the failure. */
export type ReadMessage = { buffer: ArrayBuffer; length: number } | { end: true } | { failed: string };

/**
 * storedFileBytes read by a thread of its own (stored-file.worker.ts), so that the COPY's messages are taken
 * apart and copied into pieces beside the consumer's work rather than in its thread. A piece goes back to be
 * filled again once the consumer has asked for the second piece after it: the consumer must be done with a piece
 * by then (parseTable copies the start of a line it carries into the next piece). Stopping early ends the thread.
 */
export async function* storedFileInThread(source: StoredFileSource, pieceBytes: number): AsyncGenerator<Buffer> {
  const worker = new Worker(SCRIPT, { workerData: { source, pieceBytes } });
  const queue: Buffer[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const woken = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (m: ReadMessage) => {
    if ('buffer' in m) queue.push(Buffer.from(m.buffer, 0, m.length));
    else if ('end' in m) ended = true;
    else failure = new Error(m.failed);
    woken();
  });
  worker.once('error', (e: Error) => {
    failure ??= e;
    woken();
  });
  worker.once('exit', (code: number) => {
    if (!ended) failure ??= new Error(`the file's reading thread exited with code ${code}`);
    woken();
  });
  const given: Buffer[] = [];
  try {
    for (;;) {
      while (!queue.length && !ended && !failure) await new Promise<void>((r) => (wake = r));
      if (failure) throw failure;
      const piece = queue.shift();
      if (!piece) return;
      if (given.length === 2) {
        const done = (given.shift() as Buffer).buffer as ArrayBuffer;
        worker.postMessage({ spare: done } satisfies SpareMessage, [done]);
      }
      given.push(piece);
      yield piece;
    }
  } finally {
    await worker.terminate();
  }
}

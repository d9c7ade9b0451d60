import { Worker } from 'node:worker_threads';
import type { Pool } from 'pg';
import { workerScript } from '../common/worker-script';
import { copyBytes } from '../database/copy-bytes';
import { fileChunksCopy, splitChunk } from './datasets.queries';
import { StoredFileSource, storedFileBytes } from './stored-file';
import { ParsedTable, parseTable, TableOptions } from './table-parser';
import type { TableLayout, TablePart, TableSplit } from './table-split';

const PART_SCRIPT = workerScript(__dirname, __filename, 'table-part.worker');

/**
 * Files from this size on are read in two halves at once, the second on a thread of its own (a smaller one is
 * read before such a thread would have started and read its columns across).
 */
export const SPLIT_BYTES = 32 * 1048576;

/**
 * The part thread's setup (table-part.worker.ts): where the second half starts, and how to read it; the
 * columns (TableLayout) follow as its one message, once the first line is read.
 */
export interface PartSetup {
  source: StoredFileSource;
  seq: number;
  options: TableOptions;
  pieceBytes: number;
}
/** The part thread's answer: the second half's columns, or that they could not be read on their own. */
export type PartOutput = { ok: true; part: TablePart } | { ok: false };

/**
 * parseTable of the stored file, read from the database in pieces of `pieceBytes`. A large file with samples
 * in rows is read in two halves at once (TableSplit): from the line feed in its middle chunk on by a second
 * thread, which parses once the first line gives the columns; its columns are appended to the first half's. The
 * table is the same as one reading's; when the halves cannot be joined (a quote, a fault, a column numbers in
 * the one half and text in the other in a way one reading would not give), the first thread reads on.
 */
export async function parseStoredFile(
  pool: Pool,
  source: StoredFileSource,
  options: TableOptions,
  pieceBytes: number,
  splitBytes = SPLIT_BYTES,
): Promise<ParsedTable> {
  const seq = options.hasSamplesInRows && source.sizeInBytes >= splitBytes ? await splitChunk(pool, source.filePk) : undefined;
  if (seq === undefined) return parseTable(storedFileBytes(pool, source.filePk, source.sizeInBytes, pieceBytes), options);
  let read = 0;
  async function* counted(query: string): AsyncGenerator<Buffer> {
    for await (const piece of copyBytes(pool, query, pieceBytes, 2)) {
      read += piece.length;
      yield piece;
    }
  }
  // the thread starts at once (connects, starts its read) and parses once it is sent the columns
  const setup: PartSetup = { source, seq, options: { ...options, sizeInBytes: Math.ceil(source.sizeInBytes / 2) }, pieceBytes };
  const thread = new Worker(PART_SCRIPT, { workerData: setup });
  const second = new Promise<TablePart | undefined>((resolve) => {
    thread.once('message', (m: PartOutput) => resolve(m.ok ? m.part : undefined));
    thread.once('error', () => resolve(undefined));
    thread.once('exit', () => resolve(undefined));
  });
  let started = false;
  const halves: TableSplit = {
    started(layout) {
      started = true;
      thread.postMessage(layout satisfies TableLayout);
    },
    async rest(adopt) {
      const part = adopt && started ? await second : undefined;
      void thread.terminate();
      // its bytes must make up the file with those read here (else read on here: a lost chunk is found in order)
      if (adopt && part && read + part.bytes === source.sizeInBytes && adopt(part)) {
        read += part.bytes;
        return undefined;
      }
      return counted(fileChunksCopy(source.filePk, { seq, side: 'after' }));
    },
  };
  try {
    const table = await parseTable(counted(fileChunksCopy(source.filePk, { seq, side: 'before' })), options, halves);
    if (read !== source.sizeInBytes)
      throw new Error(`file ${source.filePk} holds ${read} bytes, not ${source.sizeInBytes}: it lost chunks`);
    return table;
  } finally {
    void thread.terminate();
  }
}

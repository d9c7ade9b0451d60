import type { Pool } from 'pg';
import { copyBytes } from '../database/copy-bytes';
import { fileChunksCopy } from './datasets.queries';

/** Where a build's engine process reads an uploaded file from: the database, over a connection of its own. */
export interface StoredFileSource {
  databaseUrl: string;
  filePk: string;
  sizeInBytes: number;
}

/**
 * The stored file's bytes in order, in pieces of `pieceBytes`: one binary COPY of its chunks (copy-bytes.ts:
 * raw bytes, one snapshot for the whole file). Fails when they do not add up to its size (a lost chunk).
 * A piece is filled again once the consumer has asked for the second piece after it: the consumer must be done
 * with a piece by then (parseTable's lines carry a view of a piece into the next one, never further). A new
 * buffer for each of a large file's pieces made the parsing thread collect its garbage for the external memory.
 */
export async function* storedFileBytes(pool: Pool, filePk: string, sizeInBytes: number, pieceBytes: number): AsyncGenerator<Buffer> {
  if (!/^\d+$/.test(filePk)) throw new Error(`not a file key: ${filePk}`);
  let read = 0;
  const spare: Buffer[] = [];
  const given: Buffer[] = [];
  for await (const piece of copyBytes(pool, fileChunksCopy(filePk), pieceBytes, 2, spare)) {
    read += piece.length;
    if (given.length === 2) {
      const done = given.shift() as Buffer;
      if (done.length === pieceBytes) spare.push(done);
    }
    given.push(piece);
    yield piece;
  }
  if (read !== sizeInBytes) throw new Error(`file ${filePk} holds ${read} bytes, not ${sizeInBytes}: it lost chunks`);
}

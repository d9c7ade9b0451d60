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
 */
export async function* storedFileBytes(pool: Pool, filePk: string, sizeInBytes: number, pieceBytes: number): AsyncGenerator<Buffer> {
  if (!/^\d+$/.test(filePk)) throw new Error(`not a file key: ${filePk}`);
  let read = 0;
  for await (const piece of copyBytes(pool, fileChunksCopy(filePk), pieceBytes, 2)) {
    read += piece.length;
    yield piece;
  }
  if (read !== sizeInBytes) throw new Error(`file ${filePk} holds ${read} bytes, not ${sizeInBytes}: it lost chunks`);
}

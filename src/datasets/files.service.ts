import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { FILE_ID } from './dto/dataset.dto';

export const CHUNK_BYTES = 1024 * 1024;

export interface StoredFile {
  id: string;
  sizeInBytes: number;
  chunkCount: number;
}

/**
 * Uploaded files: streamed from the request into 1 MiB bytea chunks inside one transaction (a failed or
 * oversized upload leaves nothing), private to the user, replaced by a second upload with the same id.
 */
@Injectable()
export class FilesService {
  constructor(
    private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  checkFileId(fileId: string): void {
    if (!FILE_ID.test(fileId)) throw new ApiError(Codes.BadFileId, 'fileId must be 1 to 64 of A-Za-z0-9._-');
  }

  async upload(userId: string, fileId: string, body: Readable): Promise<{ fileId: string; sizeInBytes: number }> {
    this.checkFileId(fileId);
    const limit = this.config.maxTabularFileBytes;
    const runner = this.db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      // Serialise uploads of one (user, fileId); the old file goes when the new one commits.
      await runner.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`file:${userId}:${fileId}`]);
      await runner.query('DELETE FROM files WHERE user_id = $1 AND file_id = $2', [userId, fileId]);
      const [file] = await runner.query(
        `INSERT INTO files (user_id, file_id, size_in_bytes, chunk_count) VALUES ($1, $2, 0, 0) RETURNING id`,
        [userId, fileId],
      );
      let size = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      // One chunk is written while the next is read from the request: at most two are held.
      let writing: Promise<unknown> = Promise.resolve();
      const flush = async () => {
        if (!pendingBytes) return;
        const data = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        const previous = writing;
        writing = runner.query('INSERT INTO file_chunks (file_pk, seq, data) VALUES ($1, $2, $3)', [file.id, seq++, data]);
        writing.catch(() => undefined); // raised where it is awaited
        await previous;
      };
      for await (const piece of body) {
        const buf = piece as Buffer;
        size += buf.length;
        if (size > limit) {
          body.destroy();
          throw new ApiError(Codes.BodyTooLarge, `the file is larger than the limit of ${limit} bytes`);
        }
        pending.push(buf);
        pendingBytes += buf.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
      await writing;
      await runner.query('UPDATE files SET size_in_bytes = $2, chunk_count = $3 WHERE id = $1', [file.id, size, seq]);
      await runner.commitTransaction();
      return { fileId, sizeInBytes: size };
    } catch (e) {
      await runner.rollbackTransaction().catch(() => undefined);
      if (e instanceof ApiError) throw e;
      if ((e as NodeJS.ErrnoException).code === 'ECONNRESET' || (e as Error).message === 'aborted') {
        throw new ApiError(Codes.MalformedBody, 'the upload was interrupted');
      }
      throw e;
    } finally {
      await runner.release();
    }
  }

  async find(userId: string, fileId: string): Promise<StoredFile> {
    this.checkFileId(fileId);
    const rows = await this.db.query(
      'SELECT id, size_in_bytes, chunk_count FROM files WHERE user_id = $1 AND file_id = $2',
      [userId, fileId],
    );
    if (!rows.length) throw new ApiError(Codes.FileOrTaskNotFound, `no uploaded file "${fileId}"`);
    return { id: String(rows[0].id), sizeInBytes: Number(rows[0].size_in_bytes), chunkCount: rows[0].chunk_count };
  }

  /** The stored file: its size, and its bytes chunk by chunk (one look-up of the file for both). */
  async open(filePk: string): Promise<{ sizeInBytes: number; chunks: AsyncGenerator<Buffer> }> {
    const found = await this.db.query('SELECT size_in_bytes, chunk_count FROM files WHERE id = $1', [filePk]);
    if (!found.length) throw new Error('the uploaded file was deleted or replaced');
    return { sizeInBytes: Number(found[0].size_in_bytes), chunks: this.chunks(filePk, found[0].chunk_count) };
  }

  /** The file's `n` chunks in order; the next few are fetched while the caller works on these. */
  private async *chunks(filePk: string, n: number): AsyncGenerator<Buffer> {
    const BATCH = 4;
    const fetch = (from: number): Promise<Buffer[]> =>
      this.db
        .query('SELECT data FROM file_chunks WHERE file_pk = $1 AND seq >= $2 AND seq < $3 ORDER BY seq', [filePk, from, from + BATCH])
        .then((rows: { data: Buffer }[]) => {
          if (rows.length !== Math.min(BATCH, n - from)) throw new Error(`file ${filePk} lost chunks after ${from}`);
          return rows.map((r) => r.data);
        });
    let next = n > 0 ? fetch(0) : undefined;
    for (let from = 0; next; from += BATCH) {
      const batch = await next;
      next = from + BATCH < n ? fetch(from + BATCH) : undefined;
      next?.catch(() => undefined); // surfaced when awaited
      for (const chunk of batch) yield chunk;
    }
  }
}

import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ApiError } from '../common/api-error';
import { BodyReader } from '../common/body-reader';
import { Codes } from '../common/error-codes';
import { paginateSql } from '../common/paginate';
import { copyBytes } from '../database/copy-bytes';
import { isForeignKeyViolation, poolOf, prepared, returning } from '../database/sql';
import type { Page } from '../common/pipes';
import { FinalJobError } from '../jobs/jobs.types';
import { FILE_ID } from './dto/dataset.dto';
import { SLOT_LIVE_SECONDS, UploadSlot, UploadSlots } from './upload-slots';

export const CHUNK_BYTES = 1024 * 1024;

/** A stored file is read back (to build a dataset) in pieces of this size: fewer, larger messages to the parser. */
const READ_PIECE_BYTES = 4 * 1024 * 1024;

/** An upload row not touched for this long was left by a killed process: it is swept. */
const STALE_UPLOAD_SECONDS = 3600;
/** A slow upload touches its row at least this often, so it is never taken for a stale one. */
const TOUCH_EVERY_MS = 60_000;

export interface StoredFile {
  id: string;
  sizeInBytes: number;
  chunkCount: number;
}

/** One uploaded file as `GET /files/:offset/:count` shows it. */
export interface FileView {
  fileId: string;
  sizeInBytes: number;
  created: string;
  /** A dataset that still exists was created from this upload. */
  usedByDataset: boolean;
  /** A dataset is being created from it right now: it cannot be deleted until that ends. */
  inUse: boolean;
}

/**
 * Whether a dataset is being created from the stored file ($1 user, $2 file id): it is then neither deleted
 * nor replaced (conflict-115-5-1). Both check it under the user's files lock, which createDataset takes too.
 */
const IN_USE_BY_ID = `EXISTS (SELECT 1 FROM files f JOIN tasks t ON t.payload->>'filePk' = f.id::text
  WHERE f.user_id = $1 AND f.file_id = $2 AND f.state = 'stored'
    AND t.user_id = f.user_id AND t.kind = 'createDataset' AND t.state IN ('pending', 'running'))`;

/**
 * SQL: takes the files lock of the user whose id is the bigint expression `userId`, for the rest of the transaction.
 * Whoever checks or reserves the user's quota holds it; an image add takes it in the statement that reads its task.
 */
export function filesLock(userId: string): string {
  return `pg_advisory_xact_lock(hashtext('files:' || ${userId}))`;
}

/**
 * The bytes user $1 keeps, all counted against USER_STORAGE_QUOTA_BYTES: uploaded files (uploads in progress too,
 * but for the row $3; $2: the id of the stored file an upload replaces, which does not count), the datasets the
 * user's tasks made, the files of their dataset builds still running (each becomes a dataset), the images of their
 * image uploads not yet built (image_upload_bytes, kept by each add) and the images being added to them (reserved on
 * an upload slot live for $4 seconds, until their add commits). A file made into datasets counts once as a file and
 * once per dataset.
 */
const KEPT = `(SELECT coalesce(sum(size_in_bytes), 0) FROM files
                WHERE user_id = $1 AND NOT (state = 'stored' AND file_id IS NOT DISTINCT FROM $2) AND id IS DISTINCT FROM $3)
            + (SELECT coalesce(sum(d.size_in_bytes), 0) FROM tasks t JOIN datasets d ON d.id = t.dataset_id WHERE t.user_id = $1)
            + (SELECT coalesce(sum(f.size_in_bytes), 0) FROM tasks t JOIN files f ON f.id = (t.payload->>'filePk')::bigint
                WHERE t.user_id = $1 AND t.kind = 'createDataset' AND t.state IN ('pending', 'running'))
            + (SELECT coalesce(sum(b.bytes), 0) FROM tasks t JOIN image_upload_bytes b ON b.task_id = t.id
                WHERE t.user_id = $1 AND t.state IN ('pending', 'running'))
            + (SELECT coalesce(sum(reserved_bytes), 0) FROM upload_slots
                WHERE reserved_for = $1 AND touched_at >= now() - make_interval(secs => $4))`;

/**
 * Uploaded files, private to their user, replaced by a second upload with the same id, at most
 * USER_STORAGE_QUOTA_BYTES per user. An upload never holds a database connection while it waits on the
 * client: each 1 MiB chunk is written by one short statement into a row in state 'uploading' (invisible
 * to everything else), and one short transaction at the end replaces the stored file of that id. A
 * failed, oversized, stalled or aborted upload deletes its row: the stored file stays as it was.
 */
@Injectable()
export class FilesService {
  readonly slots: UploadSlots;

  constructor(
    private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.slots = new UploadSlots(db, config.maxUploadsPerUser);
  }

  checkFileId(fileId: string): void {
    if (!FILE_ID.test(fileId)) throw new ApiError(Codes.BadFileId, 'fileId must be 1 to 64 of A-Za-z0-9._-');
  }

  async upload(userId: string, fileId: string, req: IncomingMessage): Promise<{ fileId: string; sizeInBytes: number }> {
    const reader = new BodyReader(req, this.config.uploadIdleSeconds * 1000);
    let slot: UploadSlot | undefined;
    let filePk: string | undefined;
    try {
      this.checkFileId(fileId);
      if (/^\s*(multipart\/|application\/x-www-form-urlencoded)/i.test(req.headers['content-type'] ?? '')) {
        // the form's envelope would be stored as the file (and read as a broken table)
        throw new ApiError(Codes.MalformedBody, "send the file's bytes as the body (curl --data-binary @file.csv), not a form");
      }
      slot = await this.slots.take(userId);
      await this.sweepStaleUploads();
      const quota = this.config.userStorageQuotaBytes;
      const room = quota ? quota - (await this.bytesKept(this.db.manager, userId, fileId)) : Infinity;
      const tooBig = (size: number): ApiError | undefined => {
        if (size > this.config.maxTabularFileBytes) {
          return new ApiError(Codes.BodyTooLarge, `the file is larger than the limit of ${this.config.maxTabularFileBytes} bytes`);
        }
        if (size > room) {
          return new ApiError(Codes.StorageQuotaExceeded, `the upload would exceed your storage quota of ${quota} bytes`);
        }
        return undefined;
      };
      const announced = Number(req.headers['content-length']);
      const refused = Number.isFinite(announced) ? tooBig(announced) : undefined;
      if (refused) throw refused; // no need to read a body announced too big

      const [file] = await this.db.query(
        `INSERT INTO files (user_id, file_id, size_in_bytes, chunk_count, state) VALUES ($1, $2, 0, 0, 'uploading') RETURNING id`,
        [userId, fileId],
      );
      filePk = String(file.id);
      const pk = filePk;
      let size = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let touched = Date.now();
      // One chunk is written (one statement, a pooled connection for its duration only) while the next
      // is read from the client: at most two chunks are held.
      let writing: Promise<unknown> = Promise.resolve();
      const flush = async () => {
        if (!pendingBytes) return;
        const data = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        const previous = writing;
        writing = this.db.query(
          `WITH chunk AS (INSERT INTO file_chunks (file_pk, seq, data) VALUES ($1, $2, $3))
           UPDATE files SET size_in_bytes = $4, chunk_count = $2 + 1, touched_at = now() WHERE id = $1`,
          [pk, seq++, data, size],
        );
        writing.catch(() => undefined); // raised where it is awaited
        touched = Date.now();
        await previous;
      };
      for (let piece = await reader.next(); piece; piece = await reader.next()) {
        size += piece.length;
        const over = tooBig(size);
        if (over) throw over;
        pending.push(piece);
        pendingBytes += piece.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
        else if (Date.now() - touched > TOUCH_EVERY_MS) {
          touched = Date.now();
          await this.db.query('UPDATE files SET touched_at = now() WHERE id = $1', [pk]);
        }
      }
      await flush();
      await writing;
      await this.store(userId, fileId, pk, size, seq);
      return { fileId, sizeInBytes: size };
    } catch (e) {
      reader.abandon();
      if (filePk) await this.db.query('DELETE FROM files WHERE id = $1', [filePk]).catch(() => undefined);
      // the user was deleted meanwhile (the row went with them)
      if (isForeignKeyViolation(e)) throw new ApiError(Codes.MalformedBody, 'the upload was interrupted');
      throw e;
    } finally {
      await slot?.release();
    }
  }

  /**
   * The finished upload replaces the stored file of that id, in one short transaction. Under a lock per
   * user, so that two uploads ending together cannot both pass the quota, nor both become the file.
   */
  private async store(userId: string, fileId: string, filePk: string, size: number, chunkCount: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.lockFiles(tx, userId);
      const quota = this.config.userStorageQuotaBytes;
      if (quota) {
        // this upload's own row is still 'uploading': left out, as the file it replaces
        const kept = await this.bytesKept(tx, userId, fileId, filePk);
        if (kept + size > quota) {
          throw new ApiError(Codes.StorageQuotaExceeded, `the upload would exceed your storage quota of ${quota} bytes`);
        }
      }
      const [{ in_use }] = await tx.query(`SELECT ${IN_USE_BY_ID} AS in_use`, [userId, fileId]);
      if (in_use) {
        throw new ApiError(Codes.FileInUse, `a dataset is still being created from "${fileId}": replace it when that has ended`);
      }
      await tx.query(`DELETE FROM files WHERE user_id = $1 AND file_id = $2 AND state = 'stored'`, [userId, fileId]);
      const done = await returning(
        tx,
        `UPDATE files SET state = 'stored', size_in_bytes = $2, chunk_count = $3, touched_at = now() WHERE id = $1 RETURNING id`,
        [filePk, size, chunkCount],
      );
      // the row is gone if its user was deleted meanwhile
      if (!done.length) throw new ApiError(Codes.MalformedBody, 'the upload was interrupted');
    });
  }

  /** The bytes the user keeps (KEPT): `replacing`, the stored file an upload replaces, and `uploadPk`, its own row, left out. */
  private async bytesKept(manager: EntityManager, userId: string, replacing?: string, uploadPk?: string): Promise<number> {
    const [{ kept }] = await manager.query(`SELECT ${KEPT} AS kept`, [userId, replacing ?? null, uploadPk ?? null, SLOT_LIVE_SECONDS]);
    return Number(kept);
  }

  /**
   * Refuses (badRequest-115-0-3) to store `adding` more bytes for the user when that would exceed the quota. Takes
   * the user's files lock for the rest of `tx`, so two requests cannot both pass the quota.
   */
  async assertRoom(tx: EntityManager, userId: string, adding: number, what: string): Promise<void> {
    await this.lockFiles(tx, userId);
    const quota = this.config.userStorageQuotaBytes;
    if (!quota) return;
    this.checkRoom(await this.bytesKept(tx, userId), adding, what);
  }

  /** Whether a storage quota is set (USER_STORAGE_QUOTA_BYTES above 0): without one, reserveRoom has nothing to do. */
  get quotaSet(): boolean {
    return this.config.userStorageQuotaBytes > 0;
  }

  /**
   * Reserves `adding` bytes of `ownerId`'s quota on the upload slot `slot`, or refuses them (badRequest-115-0-3), in
   * the caller's short transaction `tx`, which holds the owner's files lock (filesLock) and writes nothing else: its
   * commit waits for no flush (the slot is unlogged). From then on every quota check counts them, while the caller
   * writes them in a transaction that holds no lock and ends the reservation as it commits (an image add deletes the
   * slot); a reservation also ends with its slot.
   */
  async reserveRoom(tx: EntityManager, slot: UploadSlot, ownerId: string, adding: number, what: string): Promise<void> {
    const quota = this.config.userStorageQuotaBytes;
    if (!quota) return;
    // prepared: an image add runs it on every image
    const [{ kept, reserved }] = await prepared<{ kept: string; reserved: boolean }>(
      tx,
      `WITH k AS (SELECT ${KEPT} AS kept),
       r AS (UPDATE upload_slots SET reserved_for = $1, reserved_bytes = $6 FROM k WHERE id = $5 AND k.kept + $6 <= $7 RETURNING id)
       SELECT k.kept, EXISTS (SELECT 1 FROM r) AS reserved FROM k`,
      [ownerId, null, null, SLOT_LIVE_SECONDS, slot.id, adding, quota],
    );
    if (reserved) return;
    this.checkRoom(Number(kept), adding, what);
    // there was room but no slot: it was swept as a killed process's (untouched for SLOT_LIVE_SECONDS)
    throw new ApiError(Codes.MalformedBody, 'the upload was interrupted');
  }

  /** The user's files lock, for the rest of `tx`: whoever checks or reserves the user's quota holds it. */
  private async lockFiles(tx: EntityManager, userId: string): Promise<void> {
    await prepared(tx, `SELECT ${filesLock('$1::bigint')}`, [userId]);
  }

  private checkRoom(kept: number, adding: number, what: string): void {
    const quota = this.config.userStorageQuotaBytes;
    if (kept + adding > quota) {
      throw new ApiError(
        Codes.StorageQuotaExceeded,
        `${what} would take you over your storage quota of ${quota} bytes (${kept} kept in uploaded files, datasets and uploads in progress): delete what you no longer need`,
      );
    }
  }

  /** Rows of uploads whose process was killed: never touched again, invisible, swept here. */
  private async sweepStaleUploads(): Promise<void> {
    await this.db.query(`DELETE FROM files WHERE state = 'uploading' AND touched_at < now() - make_interval(secs => $1)`, [
      STALE_UPLOAD_SECONDS + this.config.uploadIdleSeconds,
    ]);
  }

  /** The caller's stored files, oldest first. */
  async list(userId: string, offset: number, count: number): Promise<Page<FileView>> {
    return paginateSql(
      this.db,
      {
        table: 'files',
        columns: `file_id, size_in_bytes, created_at,
          EXISTS (SELECT 1 FROM tasks t JOIN datasets d ON d.id = t.dataset_id
                   WHERE t.user_id = files.user_id AND t.kind = 'createDataset' AND t.payload->>'filePk' = files.id::text) AS used,
          EXISTS (SELECT 1 FROM tasks t
                   WHERE t.user_id = files.user_id AND t.kind = 'createDataset' AND t.payload->>'filePk' = files.id::text
                     AND t.state IN ('pending', 'running')) AS in_use`,
        where: `user_id = $1 AND state = 'stored'`,
        params: [userId],
      },
      offset,
      count,
      (r: { file_id: string; size_in_bytes: string; created_at: Date; used: boolean; in_use: boolean }) => ({
        fileId: r.file_id,
        sizeInBytes: Number(r.size_in_bytes),
        created: r.created_at.toISOString(),
        usedByDataset: r.used,
        inUse: r.in_use,
      }),
    );
  }

  /**
   * Deletes the caller's file. Refused with conflict-115-5-1 while a dataset is being created from it;
   * datasets already made from it keep their own copy of the data.
   */
  async delete(userId: string, fileId: string): Promise<{ fileId: string; sizeInBytes: number }> {
    this.checkFileId(fileId);
    return this.db.transaction(async (tx) => {
      await this.lockFiles(tx, userId);
      const rows = await tx.query(
        `SELECT id, size_in_bytes, ${IN_USE_BY_ID} AS in_use
           FROM files WHERE user_id = $1 AND file_id = $2 AND state = 'stored' FOR UPDATE`,
        [userId, fileId],
      );
      if (!rows.length) throw new ApiError(Codes.FileOrTaskNotFound, `no uploaded file "${fileId}"`);
      if (rows[0].in_use) {
        throw new ApiError(Codes.FileInUse, `a dataset is still being created from "${fileId}": delete it when that has ended`);
      }
      await tx.query('DELETE FROM files WHERE id = $1', [rows[0].id]);
      return { fileId, sizeInBytes: Number(rows[0].size_in_bytes) };
    });
  }

  async find(userId: string, fileId: string): Promise<StoredFile> {
    this.checkFileId(fileId);
    const rows = await this.db.query(
      `SELECT id, size_in_bytes, chunk_count FROM files WHERE user_id = $1 AND file_id = $2 AND state = 'stored'`,
      [userId, fileId],
    );
    if (!rows.length) throw new ApiError(Codes.FileOrTaskNotFound, `no uploaded file "${fileId}"`);
    return { id: String(rows[0].id), sizeInBytes: Number(rows[0].size_in_bytes), chunkCount: rows[0].chunk_count };
  }

  /** The stored file: its size, and its bytes piece by piece (one look-up of the file for both). */
  async open(filePk: string): Promise<{ sizeInBytes: number; chunks: AsyncGenerator<Buffer>; release: (chunk: Buffer) => void }> {
    const found = await this.db.query('SELECT size_in_bytes FROM files WHERE id = $1', [filePk]);
    if (!found.length) throw new FinalJobError('the uploaded file was deleted before the dataset was created from it');
    const sizeInBytes = Number(found[0].size_in_bytes);
    const spare: Buffer[] = [];
    // a piece the caller no longer needs is filled again (a shorter last piece is simply let go)
    const release = (chunk: Buffer) => {
      if (chunk.length === READ_PIECE_BYTES && spare.length < 8) spare.push(chunk);
    };
    return { sizeInBytes, chunks: this.chunks(filePk, sizeInBytes, spare), release };
  }

  /**
   * The file's bytes in order, in pieces of READ_PIECE_BYTES: one binary COPY of its chunks (copy-bytes.ts:
   * raw bytes, where a SELECT gives bytea as hex text), one snapshot for the whole file; the next pieces are
   * read while the caller works on these, into the `spare` ones it released.
   */
  private async *chunks(filePk: string, sizeInBytes: number, spare: Buffer[]): AsyncGenerator<Buffer> {
    if (!/^\d+$/.test(filePk)) throw new Error(`not a file key: ${filePk}`);
    const pool = poolOf(this.db);
    let read = 0;
    for await (const piece of copyBytes(
      pool,
      `SELECT data FROM file_chunks WHERE file_pk = ${filePk} ORDER BY seq`,
      READ_PIECE_BYTES,
      2,
      spare,
    )) {
      read += piece.length;
      yield piece;
    }
    if (read !== sizeInBytes) throw new Error(`file ${filePk} holds ${read} bytes, not ${sizeInBytes}: it lost chunks`);
  }
}

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ApiError } from '../common/api-error';
import { BodyReader } from '../common/body-reader';
import { Codes } from '../common/error-codes';
import { paginateSql } from '../database/paginate';
import { isForeignKeyViolation } from '../database/sql';
import type { Page } from '../common/pipes';
import { FinalJobError } from '../jobs/jobs.types';
import * as queries from './datasets.queries';
import { FILE_ID } from './dto/dataset.dto';
import { SLOT_LIVE_SECONDS, UploadSlot, UploadSlots } from './upload-slots';
import type { File, UploadedFile } from './dto/dataset.dto';

export const CHUNK_BYTES = 1024 * 1024;

/** An upload row not touched for this long was left by a killed process: it is swept. */
const STALE_UPLOAD_SECONDS = 3600;
/** A slow upload touches its row at least this often, so it is never taken for a stale one. */
const TOUCH_EVERY_MS = 60_000;
/** How often a process that runs workers sweeps stale uploads and loose column pieces (besides each upload's start). */
const SWEEP_MS = 60_000;

export interface StoredFile {
  id: string;
  sizeInBytes: number;
  chunkCount: number;
}

/**
 * Uploaded files, private to their user, replaced by a second upload with the same id, at most
 * USER_STORAGE_QUOTA_BYTES per user. An upload never holds a database connection while it waits on the
 * client: each 1 MiB chunk is written by one short statement into a row in state 'uploading' (invisible
 * to everything else), and one short transaction at the end replaces the stored file of that id. A
 * failed, oversized, stalled or aborted upload deletes its row: the stored file stays as it was.
 */
@Injectable()
export class FilesService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly slots: UploadSlots;
  private readonly logger = new Logger('Files');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.slots = new UploadSlots(db, config.maxUploadsPerUser);
  }

  onApplicationBootstrap(): void {
    if (!this.config.runWorkers) return;
    this.timer = setInterval(() => {
      this.sweep().catch((e: Error) => this.logger.error(`stale uploads and loose column pieces could not be swept: ${e.message}`));
    }, SWEEP_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  checkFileId(fileId: string): void {
    if (!FILE_ID.test(fileId)) throw new ApiError(Codes.BadFileId, 'fileId must be 1 to 64 of A-Za-z0-9._-');
  }

  async upload(userId: string, fileId: string, req: IncomingMessage): Promise<UploadedFile> {
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
      await this.sweep();
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

      filePk = await queries.insertUploadingFile(this.db, userId, fileId);
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
        writing = queries.writeChunk(this.db, pk, seq++, data, size);
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
          await queries.touchFile(this.db, pk);
        }
      }
      await flush();
      await writing;
      await this.store(userId, fileId, pk, size, seq);
      return { fileId, sizeInBytes: size };
    } catch (e) {
      reader.abandon();
      if (filePk) await queries.deleteFileRow(this.db, filePk).catch(() => undefined);
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
      if (await queries.fileInUse(tx, userId, fileId)) {
        throw new ApiError(Codes.FileInUse, `a dataset is still being created from "${fileId}": replace it when that has ended`);
      }
      const done = await queries.replaceStoredFile(tx, { userId, fileId, filePk, size, chunkCount });
      // the row is gone if its user was deleted meanwhile
      if (!done) throw new ApiError(Codes.MalformedBody, 'the upload was interrupted');
    });
  }

  /** The bytes the user keeps (datasets.queries.ts's KEPT): `replacing`, the stored file an upload replaces, and `uploadPk`, its own row, left out. */
  private bytesKept(manager: EntityManager, userId: string, replacing?: string, uploadPk?: string): Promise<number> {
    return queries.bytesKept(manager, userId, SLOT_LIVE_SECONDS, replacing, uploadPk);
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
   * the caller's short transaction `tx`, which holds the owner's files lock (queries.filesLock) and writes nothing
   * else: its commit waits for no flush (the slot is unlogged). From then on every quota check counts them, while the
   * caller writes them in a transaction that holds no lock and ends the reservation as it commits (an image add
   * deletes the slot); a reservation also ends with its slot.
   */
  async reserveRoom(tx: EntityManager, slot: UploadSlot, ownerId: string, adding: number, what: string): Promise<void> {
    const quota = this.config.userStorageQuotaBytes;
    if (!quota) return;
    const { kept, reserved } = await queries.reserveOnSlot(tx, {
      userId: ownerId,
      slotId: slot.id,
      bytes: adding,
      quota,
      slotSeconds: SLOT_LIVE_SECONDS,
    });
    this.assertReserved({ kept, reserved }, adding, what);
  }

  /**
   * Whether a reservation of `adding` bytes was made (reserveRoom's, or the one an image add's statement makes): if
   * not, the error that says why (over the quota, or the slot was swept).
   */
  assertReserved({ kept, reserved }: { kept: number; reserved: boolean }, adding: number, what: string): void {
    if (reserved) return;
    this.checkRoom(kept, adding, what);
    // there was room but no slot: it was swept as a killed process's (untouched for SLOT_LIVE_SECONDS)
    throw new ApiError(Codes.MalformedBody, 'the upload was interrupted');
  }

  /** USER_STORAGE_QUOTA_BYTES (0: none). */
  get quota(): number {
    return this.config.userStorageQuotaBytes;
  }

  /** The user's files lock, for the rest of `tx`: whoever checks or reserves the user's quota holds it. */
  private lockFiles(tx: EntityManager, userId: string): Promise<void> {
    return queries.lockUserFiles(tx, userId);
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

  /**
   * Rows of uploads whose process was killed: never touched again, invisible, swept here; and column pieces of
   * builds that ended without them (column-pieces.ts: a writer that committed after its build was let go). Run at
   * each upload's start and every minute in processes that run workers; tests call it directly.
   */
  async sweep(): Promise<void> {
    await queries.deleteStaleUploads(this.db, STALE_UPLOAD_SECONDS + this.config.uploadIdleSeconds);
    await queries.deleteEndedBuildsPieces(this.db);
  }

  /** The caller's stored files, oldest first. */
  async list(userId: string, offset: number, count: number): Promise<Page<File>> {
    return paginateSql(this.db, queries.filesOfUser(userId), offset, count, (r: queries.FileListRow) => ({
      fileId: r.file_id,
      sizeInBytes: Number(r.size_in_bytes),
      created: r.created_at.toISOString(),
      usedByDataset: r.used,
      inUse: r.in_use,
    }));
  }

  /**
   * Deletes the caller's file. Refused with conflict-115-5-1 while a dataset is being created from it;
   * datasets already made from it keep their own copy of the data.
   */
  async delete(userId: string, fileId: string): Promise<UploadedFile> {
    this.checkFileId(fileId);
    return this.db.transaction(async (tx) => {
      await this.lockFiles(tx, userId);
      const file = await queries.storedFileForDelete(tx, userId, fileId);
      if (!file) throw new ApiError(Codes.FileOrTaskNotFound, `no uploaded file "${fileId}"`);
      if (file.in_use) {
        throw new ApiError(Codes.FileInUse, `a dataset is still being created from "${fileId}": delete it when that has ended`);
      }
      await queries.deleteFileRow(tx, String(file.id));
      return { fileId, sizeInBytes: Number(file.size_in_bytes) };
    });
  }

  async find(userId: string, fileId: string): Promise<StoredFile> {
    this.checkFileId(fileId);
    const file = await queries.storedFile(this.db, userId, fileId);
    if (!file) throw new ApiError(Codes.FileOrTaskNotFound, `no uploaded file "${fileId}"`);
    return { id: String(file.id), sizeInBytes: Number(file.size_in_bytes), chunkCount: file.chunk_count };
  }

  /** The stored file's size (a build's engine process reads its bytes: stored-file.ts). */
  async storedSize(filePk: string): Promise<number> {
    const sizeInBytes = await queries.fileSize(this.db, filePk);
    if (sizeInBytes === undefined) throw new FinalJobError('the uploaded file was deleted before the dataset was created from it');
    return sizeInBytes;
  }
}

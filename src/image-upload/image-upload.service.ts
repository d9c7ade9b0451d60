import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import * as path from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { toId } from '../common/pipes';
import { sweepSpool } from '../common/spool';
import { parseClientJson } from '../common/text';
import { parseBody } from '../common/validation';
import { APP_CONFIG, AppConfig } from '../config/config';
import { AccessService } from '../auth/access.service';
import { Permission } from '../auth/permission';
import { keepRow, prepared } from '../database/sql';
import { DatasetsService } from '../datasets/datasets.service';
import { FilesService, filesLock } from '../datasets/files.service';
import type { UploadSlot } from '../datasets/upload-slots';
import { JobsService } from '../jobs/jobs.service';
import { ImageTaskPayload } from './image-dataset.job';
import { checkImage } from './image-format';
import { readInitForm } from './init-form';
import { readAddForm } from './add-form';
import { ImageAddFieldsDto, ImageInitAttributesDto, ImageTaskView } from './image-upload.dto';
import { parseSampleTableInWorker } from './sample-table';

export const IMAGE_TASK_KIND = 'imageUpload';

/** The init file (spooled to disk while the body arrives, then parsed in memory): at most this much, or the tabular limit if lower. */
export const INIT_FILE_CAP_BYTES = 50 * 1024 * 1024;

export function initFileLimit(config: AppConfig): number {
  return Math.min(config.maxTabularFileBytes, INIT_FILE_CAP_BYTES);
}

/**
 * Image dataset uploads as the API shows them: init (the sample table), one image per sample, commit
 * (queues the imageDataset job), status.
 */
@Injectable()
export class ImageUploadService implements OnModuleInit {
  private readonly logger = new Logger('ImageUpload');
  private spoolMade?: Promise<string>;

  constructor(
    private readonly db: DataSource,
    private readonly access: AccessService,
    private readonly datasets: DatasetsService,
    private readonly jobs: JobsService,
    private readonly files: FilesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Where init files and images are spooled while their body arrives: made once per process (it lives in DATA_DIR, beside the embedded database). */
  private spoolDir(): Promise<string> {
    const dir = path.join(this.config.dataDir, 'spool');
    this.spoolMade ??= fs.promises.mkdir(dir, { recursive: true }).then(
      () => dir,
      (e: unknown) => {
        this.spoolMade = undefined;
        throw e;
      },
    );
    return this.spoolMade;
  }

  /** Spool files left by a process that was killed (kill -9) while a body streamed in are removed at start. */
  onModuleInit(): void {
    const removed = sweepSpool(path.join(this.config.dataDir, 'spool'), this.config.uploadIdleSeconds * 1000 + 60_000);
    if (removed) this.logger.log(`removed ${removed} spool file(s) left by a stopped process`);
  }

  /**
   * Opens an image upload from the multipart body of `req`: the attributes are checked (JSON, write
   * permission on the project, fields, name free) as soon as they arrive, before the rest of the body is
   * read; the sample table streams to a spool file meanwhile (see readInitForm).
   */
  async init(userId: string, req: IncomingMessage): Promise<{ taskId: string }> {
    const slot = await this.files.slots.take(userId);
    try {
      const { checked, file } = await readInitForm(req, {
        fileLimit: initFileLimit(this.config),
        idleMs: this.config.uploadIdleSeconds * 1000,
        spoolDir: await this.spoolDir(),
        checkAttributes: (raw) => this.checkAttributes(userId, raw),
      });
      return await this.open(userId, checked.projectId, checked.dto, file);
    } finally {
      await slot.release();
    }
  }

  private async checkAttributes(userId: string, raw: string): Promise<{ projectId: string; dto: ImageInitAttributesDto }> {
    const attributes = this.parseAttributes(raw);
    // permission first: a caller without write on the project learns nothing else about it
    const rawProjectId = attributes.projectId;
    if (rawProjectId === undefined) throw new ApiError(Codes.MissingField, 'attributes.projectId is required');
    if (!toId(rawProjectId)) throw new ApiError(Codes.WrongType, 'attributes.projectId must be a positive integer');
    const projectId = await this.access.require(userId, Permission.ProjectWrite, 'project', rawProjectId);

    const dto = parseBody(ImageInitAttributesDto, attributes, 'attributes: ');
    if (await this.datasets.nameTaken(projectId, dto.name)) {
      throw new ApiError(Codes.DatasetNameTaken, `the project already has a dataset named "${dto.name}"`);
    }
    return { projectId, dto };
  }

  private async open(userId: string, projectId: string, dto: ImageInitAttributesDto, csv: Buffer): Promise<{ taskId: string }> {
    const hasFeatureHeaders = dto.hasFeatureHeaders ?? true;
    const table = await parseSampleTableInWorker(csv, hasFeatureHeaders);

    const payload: ImageTaskPayload = { name: dto.name, description: dto.description ?? null, sampleCount: table.ids.length };
    return this.db.transaction(async (tx) => {
      await keepRow(tx, 'projects', projectId, new ApiError(Codes.ProjectNotFound)); // deleted while the body came in
      const [task] = await tx.query(`INSERT INTO tasks (kind, user_id, project_id, payload) VALUES ($1, $2, $3, $4) RETURNING id`, [
        IMAGE_TASK_KIND,
        userId,
        projectId,
        JSON.stringify(payload),
      ]);
      await tx.query(`INSERT INTO image_uploads (task_id, csv, has_feature_headers) VALUES ($1, $2, $3)`, [
        task.id,
        csv,
        hasFeatureHeaders,
      ]);
      for (let start = 0; start < table.ids.length; start += 10_000) {
        const ids = table.ids.slice(start, start + 10_000);
        await tx.query(
          `INSERT INTO image_samples (task_id, idx, sample_id)
           SELECT $1, $2 + ord - 1, sid FROM unnest($3::text[]) WITH ORDINALITY AS u(sid, ord)`,
          [task.id, start, ids],
        );
      }
      this.logger.log(`image upload task ${task.id} opened for ${table.ids.length} samples`);
      return { taskId: String(task.id) };
    });
  }

  /**
   * Adds the image of one sample from the multipart body of `req` (readAddForm: the image arrives in memory, or
   * in a spool file when it is large, under one of the caller's upload slots and the idle timeout, at most
   * MAX_IMAGE_BYTES); it is read once the whole body has arrived.
   */
  async add(userId: string, taskId: string, req: IncomingMessage): Promise<{ taskId: string }> {
    const slot = await this.files.slots.take(userId);
    try {
      const form = await readAddForm(req, {
        fileLimit: this.config.maxImageBytes,
        idleMs: this.config.uploadIdleSeconds * 1000,
        spoolDir: await this.spoolDir(),
      });
      try {
        const { sampleId } = parseBody(ImageAddFieldsDto, { ...form.fields });
        if (!form.file) throw new ApiError(Codes.MissingField, 'the file part (the image) is required');
        const image = await form.file.read();
        await this.store(slot, taskId, sampleId.trim(), image, form.file.name);
        return { taskId };
      } finally {
        await form.discard();
      }
    } finally {
      await slot.release();
    }
  }

  /**
   * Stores the image of sample `id`. Adds run side by side, each in one statement of its own that holds no lock a
   * sibling add waits for, so that their commits share the disk flushes: what makes them exclusive is checked before
   * (the task takes images, the sample exists and has none; the task's owner has room for it, reserved on the slot),
   * and again by that statement, which writes the image only where it still holds, and gives the slot back.
   */
  private async store(slot: UploadSlot, taskId: string, id: string, image: Buffer, filename: string): Promise<void> {
    // every check of the image itself first, holding no connection (a PNG's data is inflated to be counted)
    const header = await checkImage(image, filename, this.config.maxImagePixels);
    // the task is checked and its owner's room reserved in a short transaction under the owner's files lock (the
    // statement that reads the task takes it); without a quota, the check alone
    if (this.files.quotaSet) {
      await this.db.transaction(async (tx) => {
        const task = await this.addableTask(tx, taskId, id);
        await this.files.reserveRoom(tx, slot, task.user_id, image.length, 'this image');
      });
    } else {
      await this.addableTask(this.db, taskId, id);
    }
    // FOR SHARE: adds run side by side, a commit (FOR UPDATE) waits for them and they for it. The image's bytes are
    // counted on the slot's lane of the upload (no other live add of the caller writes that row), and the slot (with
    // its reservation) ends as they are. Prepared, as are the add's other statements: parsing and planning them was a
    // third of PostgreSQL's work per add.
    const [{ added }] = await prepared<{ added: number }>(
      this.db,
      `WITH task AS (SELECT state FROM tasks WHERE id = $1 FOR SHARE),
       added AS (
         UPDATE image_samples SET image = $3, mime = $4, added_at = now()
          WHERE task_id = $1 AND sample_id = $2 AND image IS NULL AND (SELECT state FROM task) = 'pending'
         RETURNING octet_length(image) AS bytes),
       counted AS (
         INSERT INTO image_upload_bytes (task_id, lane, bytes) SELECT $1, $5, bytes FROM added
         ON CONFLICT (task_id, lane) DO UPDATE SET bytes = image_upload_bytes.bytes + excluded.bytes),
       ended AS (DELETE FROM upload_slots WHERE id = $6)
       SELECT count(*)::int AS added FROM added`,
      [taskId, id, image, header.mime, slot.lane, slot.id],
    );
    slot.ended();
    if (!added) {
      // a commit, an expiry or another add of this sample came first: say which
      await this.addableTask(this.db, taskId, id);
      throw new ApiError(Codes.ImageAlreadyAdded, `sample "${id.slice(0, 60)}" already has an image`);
    }
  }

  /**
   * The image upload task, when sample `id` may get its image now; else the error that says why not. Takes the files
   * lock of the task's owner for the rest of the transaction `db` is in (FilesService.reserveRoom needs it held).
   */
  private async addableTask(db: DataSource | EntityManager, taskId: string, id: string): Promise<ImageTaskRow> {
    const rows = await prepared<ImageTaskRow & { has_image: boolean | null }>(
      db,
      `SELECT kind, state, project_id, user_id, error,
              (SELECT image IS NOT NULL FROM image_samples WHERE task_id = $1 AND sample_id = $2) AS has_image,
              ${filesLock('user_id')} AS locked
         FROM tasks WHERE id = $1`,
      [taskId, id],
    );
    if (!rows.length || rows[0].kind !== IMAGE_TASK_KIND) throw new ApiError(Codes.ImageTaskNotFound);
    const task = rows[0];
    if (task.state !== 'pending') {
      assertNotExpired(task);
      throw new ApiError(Codes.AddAfterCommit, `the upload is already committed (state ${task.state}): no more images can be added`);
    }
    if (task.has_image === null) throw new ApiError(Codes.BadSampleId, `sample id "${id.slice(0, 60)}" is not in the init file`);
    if (task.has_image) throw new ApiError(Codes.ImageAlreadyAdded, `sample "${id.slice(0, 60)}" already has an image`);
    return task;
  }

  async commit(userId: string, taskId: string): Promise<Record<string, never>> {
    return this.jobs.enqueueTurn(userId, () => this.queueBuild(taskId));
  }

  private async queueBuild(taskId: string): Promise<Record<string, never>> {
    await this.db.transaction(async (tx) => {
      const task = await this.imageTask(tx, taskId, 'FOR UPDATE');
      if (task.state !== 'pending') assertNotExpired(task);
      if (task.state !== 'pending') throw new ApiError(Codes.AlreadyCommitted, `the upload is already committed (state ${task.state})`);
      const [counts] = await tx.query(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE image IS NULL)::int AS missing,
                (SELECT array_agg(sample_id ORDER BY idx) FROM
                   (SELECT sample_id, idx FROM image_samples WHERE task_id = $1 AND image IS NULL ORDER BY idx LIMIT 10) m) AS first
           FROM image_samples WHERE task_id = $1`,
        [taskId],
      );
      if (counts.missing > 0) {
        const more = counts.missing > counts.first.length ? ', ...' : '';
        throw new ApiError(
          Codes.ImagesMissing,
          `${counts.missing} of ${counts.total} samples have no image: ${(counts.first as string[]).join(', ')}${more}`,
        );
      }
      // the task shows running from commit on (JOB_DEFINITIONS: pending means it still takes images)
      await this.jobs.enqueue('imageDataset', { taskId }, { projectId: String(task.project_id), manager: tx });
    });
    return {};
  }

  async status(taskId: string): Promise<ImageTaskView> {
    return this.datasets.taskStatus(taskId, IMAGE_TASK_KIND, Codes.ImageTaskNotFound);
  }

  private parseAttributes(raw: string): Record<string, unknown> {
    const value = parseClientJson(raw, 'attributes');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ApiError(Codes.MalformedBody, 'attributes must be a JSON object');
    }
    return value as Record<string, unknown>;
  }

  /** The image upload task, locked; other task kinds are unknown here. */
  private async imageTask(tx: EntityManager, taskId: string, lock: 'FOR SHARE' | 'FOR UPDATE') {
    const rows = await tx.query(`SELECT kind, state, project_id, user_id, error FROM tasks WHERE id = $1 ${lock}`, [taskId]);
    if (!rows.length || rows[0].kind !== IMAGE_TASK_KIND) throw new ApiError(Codes.ImageTaskNotFound);
    return rows[0] as ImageTaskRow;
  }
}

interface ImageTaskRow {
  kind: string;
  state: string;
  project_id: string;
  user_id: string;
  error: { code: string; message: string } | null;
}

/** An upload that expired (image-upload-expiry.ts) answers an add or a commit with its own error, not "committed". */
function assertNotExpired(task: ImageTaskRow): void {
  if (task.state === 'failed' && task.error?.code === Codes.ImageUploadExpired) {
    throw new ApiError(Codes.ImageUploadExpired, task.error.message);
  }
}

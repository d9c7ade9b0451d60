import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import * as path from 'node:path';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { toId } from '../common/pipes';
import { parseClientJson } from '../common/text';
import { parseBody } from '../common/validation';
import { runInWorker, workerScript } from '../common/worker-thread';
import { APP_CONFIG, AppConfig } from '../config/config';
import { AccessService } from '../auth/access.service';
import { Permission } from '../auth/permission';
import { returning } from '../database/sql';
import { distinctNumbers, ParsedColumn } from '../datasets/column-builder';
import { DatasetsService, TaskFailure } from '../datasets/datasets.service';
import { FilesService } from '../datasets/files.service';
import { ParsedTable } from '../datasets/table-parser';
import { JobsService } from '../jobs/jobs.service';
import { JobContext } from '../jobs/jobs.types';
import { assertPixelLimit, readImageHeader } from './image-format';
import { readInitForm } from './init-form';
import { IMAGE_FEATURES } from './image-features';
import type { MeasureRequest, MeasureResponse } from './image-features.worker';
import { ImageAddFieldsDto, ImageInitAttributesDto, ImageTaskView, UploadedPart, UploadedParts } from './image-upload.dto';
import { parseSampleTable } from './sample-table';

export const IMAGE_TASK_KIND = 'imageUpload';

/** The init file (spooled to disk while the body arrives, then parsed in memory): at most this much, or the tabular limit if lower. */
export const INIT_FILE_CAP_BYTES = 50 * 1024 * 1024;

export function initFileLimit(config: AppConfig): number {
  return Math.min(config.maxTabularFileBytes, INIT_FILE_CAP_BYTES);
}

/** Images decoded by one worker thread: at most this many, or this many bytes. */
const BATCH_IMAGES = 32;
const BATCH_BYTES = 64 * 1024 * 1024;

interface ImageJob {
  taskId: string;
}

interface TaskPayload {
  name: string;
  description: string | null;
  sampleCount: number;
}

/**
 * Image dataset uploads: init (the sample table), one image per sample, commit, and the job that decodes
 * every image, computes its img_ features and stores the dataset through DatasetsService.storeTable.
 */
@Injectable()
export class ImageUploadService implements OnModuleInit {
  private readonly logger = new Logger('ImageUpload');

  constructor(
    private readonly db: DataSource,
    private readonly access: AccessService,
    private readonly datasets: DatasetsService,
    private readonly jobs: JobsService,
    private readonly files: FilesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register<ImageJob>('imageDataset', {
      run: (ctx) => this.runJob(ctx),
      onGiveUp: async (job, reason) => {
        await this.datasets.failTask(job.taskId, Codes.ImageDatasetFailed, reason, true);
        await this.dropUploadedData(job.taskId);
      },
    });
  }

  /**
   * Opens an image upload from the multipart body of `req`: the attributes are checked (JSON, write
   * permission on the project, fields, name free) as soon as they arrive, before the rest of the body is
   * read; the sample table streams to a spool file meanwhile (see readInitForm).
   */
  async init(userId: string, req: IncomingMessage): Promise<{ taskId: string }> {
    const release = this.files.slots.take(userId);
    try {
      const spoolDir = path.join(this.config.dataDir, 'spool');
      await fs.promises.mkdir(spoolDir, { recursive: true });
      const { checked, file } = await readInitForm(req, {
        fileLimit: initFileLimit(this.config),
        idleMs: this.config.uploadIdleSeconds * 1000,
        spoolDir,
        checkAttributes: (raw) => this.checkAttributes(userId, raw),
      });
      return await this.open(userId, checked.projectId, checked.dto, file);
    } finally {
      release();
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
    const table = parseSampleTable(csv, hasFeatureHeaders);

    const payload: TaskPayload = { name: dto.name, description: dto.description ?? null, sampleCount: table.ids.length };
    return this.db.transaction(async (tx) => {
      const [task] = await tx.query(
        `INSERT INTO tasks (kind, user_id, project_id, payload) VALUES ($1, $2, $3, $4) RETURNING id`,
        [IMAGE_TASK_KIND, userId, projectId, JSON.stringify(payload)],
      );
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

  async add(taskId: string, body: Record<string, unknown> | undefined, files: UploadedParts | undefined): Promise<{ taskId: string }> {
    const { sampleId } = parseBody(ImageAddFieldsDto, body ?? {});
    const file = this.onePart(files, 'the image');
    if (file.size > this.config.maxImageBytes) {
      throw new ApiError(Codes.BodyTooLarge, `the image is larger than ${this.config.maxImageBytes} bytes`);
    }

    await this.db.transaction(async (tx) => {
      // FOR SHARE: adds run side by side, a commit waits for them (and they for it)
      const task = await this.imageTask(tx, taskId, 'FOR SHARE');
      if (task.state !== 'pending') {
        throw new ApiError(Codes.AddAfterCommit, `the upload is already committed (state ${task.state}): no more images can be added`);
      }
      const id = sampleId.trim();
      const rows = await tx.query(`SELECT image IS NOT NULL AS has_image FROM image_samples WHERE task_id = $1 AND sample_id = $2`, [
        taskId,
        id,
      ]);
      if (!rows.length) throw new ApiError(Codes.BadSampleId, `sample id "${id.slice(0, 60)}" is not in the init file`);
      if (rows[0].has_image) throw new ApiError(Codes.ImageAlreadyAdded, `sample "${id.slice(0, 60)}" already has an image`);
      const header = readImageHeader(file.buffer);
      if (!header) {
        throw new ApiError(Codes.BadImage, `"${file.originalname.slice(0, 60)}" is not a jpeg, png, tif or bmp image (checked by its content)`);
      }
      assertPixelLimit(header, this.config.maxImagePixels);
      const updated = await returning(
        tx,
        `UPDATE image_samples SET image = $3, mime = $4, added_at = now()
          WHERE task_id = $1 AND sample_id = $2 AND image IS NULL RETURNING idx`,
        [taskId, id, file.buffer, header.mime],
      );
      if (!updated.length) throw new ApiError(Codes.ImageAlreadyAdded, `sample "${id.slice(0, 60)}" already has an image`);
    });
    return { taskId };
  }

  async commit(taskId: string): Promise<Record<string, never>> {
    await this.db.transaction(async (tx) => {
      const task = await this.imageTask(tx, taskId, 'FOR UPDATE');
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
      await tx.query(`UPDATE tasks SET state = 'running', updated_at = now() WHERE id = $1`, [taskId]);
      await this.jobs.enqueue('imageDataset', { taskId }, { projectId: String(task.project_id), manager: tx });
    });
    return {};
  }

  async status(taskId: string): Promise<ImageTaskView> {
    const rows = await this.db.query('SELECT id, kind, state, dataset_id, error FROM tasks WHERE id = $1', [taskId]);
    if (!rows.length || rows[0].kind !== IMAGE_TASK_KIND) throw new ApiError(Codes.ImageTaskNotFound);
    const r = rows[0];
    const view: ImageTaskView = { taskId: String(r.id), state: r.state };
    if (r.state === 'finished' && r.dataset_id !== null) view.datasetId = String(r.dataset_id);
    if (r.state === 'failed' && r.error) view.error = r.error;
    return view;
  }

  private parseAttributes(raw: string): Record<string, unknown> {
    const value = parseClientJson(raw, 'attributes');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ApiError(Codes.MalformedBody, 'attributes must be a JSON object');
    }
    return value as Record<string, unknown>;
  }

  private onePart(files: UploadedParts | undefined, what: string): UploadedPart {
    const file = files?.file?.[0];
    if (!file) throw new ApiError(Codes.MissingField, `the file part (${what}) is required`);
    return file;
  }

  /** The image upload task, locked; other task kinds are unknown here. */
  private async imageTask(tx: EntityManager, taskId: string, lock: 'FOR SHARE' | 'FOR UPDATE') {
    const rows = await tx.query(`SELECT kind, state, project_id FROM tasks WHERE id = $1 ${lock}`, [taskId]);
    if (!rows.length || rows[0].kind !== IMAGE_TASK_KIND) throw new ApiError(Codes.ImageTaskNotFound);
    return rows[0] as { kind: string; state: string; project_id: string };
  }

  /** The imageDataset job: decode every image, compute its features, store the dataset. */
  private async runJob(ctx: JobContext<ImageJob>): Promise<void> {
    const { taskId } = ctx.payload;
    const tasks = await this.db.query(`SELECT project_id, state, payload FROM tasks WHERE id = $1`, [taskId]);
    if (!tasks.length) return; // project deleted meanwhile
    if (tasks[0].state !== 'running') {
      if (tasks[0].state === 'finished') await this.dropUploadedData(taskId);
      return;
    }
    const payload = tasks[0].payload as TaskPayload;
    try {
      const table = await this.buildTable(taskId, ctx.signal);
      await this.datasets.storeTable(
        { taskId, projectId: String(tasks[0].project_id), name: payload.name, description: payload.description },
        table,
        {},
      );
    } catch (e) {
      if (e instanceof TaskFailure) {
        await this.datasets.failTask(taskId, e.code, e.message);
        await this.dropUploadedData(taskId);
      }
      throw e;
    }
    // The images are not kept once the dataset exists or the task failed (the task's status stays).
    await this.dropUploadedData(taskId);
  }

  private async dropUploadedData(taskId: string): Promise<void> {
    await this.db.query('DELETE FROM image_samples WHERE task_id = $1', [taskId]);
    await this.db.query('DELETE FROM image_uploads WHERE task_id = $1', [taskId]);
  }

  private async buildTable(taskId: string, signal: AbortSignal): Promise<ParsedTable> {
    const uploads = await this.db.query('SELECT csv, has_feature_headers FROM image_uploads WHERE task_id = $1', [taskId]);
    if (!uploads.length) throw new TaskFailure(Codes.ImageDatasetFailed, 'the uploaded sample table is gone');
    let sampleTable;
    try {
      sampleTable = parseSampleTable(uploads[0].csv as Buffer, uploads[0].has_feature_headers as boolean);
    } catch (e) {
      if (e instanceof ApiError) throw new TaskFailure(e.code, e.message);
      throw e;
    }
    const samples: { idx: number; sample_id: string; size: number }[] = await this.db.query(
      'SELECT idx, sample_id, coalesce(length(image), 0) AS size FROM image_samples WHERE task_id = $1 ORDER BY idx',
      [taskId],
    );
    const n = samples.length;
    if (n !== sampleTable.ids.length || samples.some((s, i) => s.idx !== i || s.sample_id !== sampleTable.ids[i])) {
      throw new TaskFailure(Codes.ImageDatasetFailed, 'the stored samples do not match the sample table');
    }
    const values = IMAGE_FEATURES.map(() => new Float64Array(n));
    const script = workerScript(__dirname, __filename, 'image-features.worker');
    let start = 0;
    while (start < n) {
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      let end = start;
      let bytes = 0;
      while (end < n && end - start < BATCH_IMAGES && (end === start || bytes + samples[end].size <= BATCH_BYTES)) {
        bytes += samples[end].size;
        end++;
      }
      const rows: { sample_id: string; image: Buffer | null }[] = await this.db.query(
        'SELECT sample_id, image FROM image_samples WHERE task_id = $1 AND idx >= $2 AND idx < $3 ORDER BY idx',
        [taskId, start, end],
      );
      const missing = rows.find((r) => r.image === null);
      if (missing) throw new TaskFailure(Codes.ImageDatasetFailed, `sample "${missing.sample_id}" has no image`);
      const request: MeasureRequest = { images: rows.map((r) => ({ sampleId: r.sample_id, bytes: r.image as Buffer })) };
      const result = await runInWorker<MeasureResponse>(script, request, { signal });
      if (!result.ok) {
        throw new TaskFailure(Codes.UndecodableImage, `the image of sample "${result.sampleId.slice(0, 60)}" could not be decoded: ${result.message}`);
      }
      result.features.forEach((f, k) => f.forEach((v, j) => (values[j][start + k] = v)));
      start = end;
    }
    const imageColumns: ParsedColumn[] = IMAGE_FEATURES.map((name, j) => ({
      name,
      encoding: 'f64',
      values: values[j],
      missingCount: 0,
      distinctCount: distinctNumbers(values[j]),
    }));
    return { sampleCount: n, columns: [...sampleTable.columns, ...imageColumns], sampleColumn: 0 };
  }
}

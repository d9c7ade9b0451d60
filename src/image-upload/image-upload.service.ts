import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { toId } from '../common/pipes';
import { sweepSpool } from '../common/spool';
import { parseClientJson } from '../common/text';
import { parseBody } from '../common/validation';
import { APP_CONFIG, AppConfig } from '../config/config';
import { AccessService } from '../auth/access.service';
import { Permission } from '../auth/permission';
import { Db, keepRow } from '../database/sql';
import { DatasetsService } from '../datasets/datasets.service';
import type { TaskRef, TaskStatus } from '../datasets/dto/dataset.dto';
import type { Empty } from '../common/api-schema';
import { FilesService } from '../datasets/files.service';
import { SLOT_LIVE_SECONDS, UploadSlot } from '../datasets/upload-slots';
import { JobsService } from '../jobs/jobs.service';
import { FEATURE_CORES, IMAGE_DATASET_JOB, ImageTaskPayload } from './image-dataset.job';
import { checkImage } from './image-check';
import { readInitForm } from './init-form';
import { readAddForm } from './add-form';
import { ImageAddFieldsDto, ImageInitAttributesDto } from './image-upload.dto';
import * as queries from './image-upload.queries';
import type { ImageTaskRow } from './image-upload.queries';
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
  async init(userId: string, req: IncomingMessage): Promise<TaskRef> {
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
      const taskId = await queries.insertImageUpload(
        tx,
        { kind: IMAGE_TASK_KIND, userId, projectId, payload },
        { csv, hasFeatureHeaders, sampleIds: table.ids },
      );
      this.logger.log(`image upload task ${taskId} opened for ${table.ids.length} samples`);
      return { taskId };
    });
  }

  /**
   * Adds the image of one sample from the multipart body of `req` (readAddForm: the image arrives in memory, or
   * in a spool file when it is large, under one of the caller's upload slots and the idle timeout, at most
   * MAX_IMAGE_BYTES); it is read once the whole body has arrived.
   */
  async add(userId: string, taskId: string, req: IncomingMessage): Promise<TaskRef> {
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
  private async store(slot: UploadSlot, taskId: string, id: string, received: Buffer, filename: string): Promise<void> {
    // every check of the image itself first, on a thread, holding no connection (a PNG's data is inflated to be counted)
    const { header, bytes: image } = await checkImage(received, filename, this.config.maxImagePixels);
    // the task is checked and its owner's room reserved in one statement, which takes the owner's files lock once the
    // task is found addable (reserveImageAdd); without a quota, the check alone
    if (this.files.quotaSet) {
      const checked = await queries.reserveImageAdd(this.db, {
        taskId,
        sampleId: id,
        kind: IMAGE_TASK_KIND,
        slotId: slot.id,
        bytes: image.length,
        quota: this.files.quota,
        slotSeconds: SLOT_LIVE_SECONDS,
      });
      assertAddable(checked, id);
      this.files.assertReserved(checked, image.length, 'this image');
    } else {
      await this.addableTask(this.db, taskId, id);
    }
    // storeImage: adds run side by side (FOR SHARE), a commit (FOR UPDATE) waits for them and they for it; its
    // statement deletes the slot as it commits
    const added = await queries.storeImage(this.db, { taskId, sampleId: id, image, mime: header.mime, slot });
    slot.ended();
    if (!added) {
      // a commit, an expiry or another add of this sample came first: say which
      await this.addableTask(this.db, taskId, id);
      throw new ApiError(Codes.ImageAlreadyAdded, `sample "${id.slice(0, 60)}" already has an image`);
    }
  }

  /** The image upload task, when sample `id` may get its image now (without a quota, or after a refused write); else the error that says why not. */
  private async addableTask(db: Db, taskId: string, id: string): Promise<ImageTaskRow> {
    const task = await queries.taskWithSample(db, taskId, id);
    assertAddable(task, id);
    return task;
  }

  async commit(userId: string, taskId: string): Promise<Empty> {
    return this.jobs.enqueueTurn(userId, () => this.queueBuild(taskId));
  }

  private async queueBuild(taskId: string): Promise<Record<string, never>> {
    await this.db.transaction(async (tx) => {
      const task = await queries.taskForUpdate(tx, taskId);
      if (!task || task.kind !== IMAGE_TASK_KIND) throw new ApiError(Codes.ImageTaskNotFound);
      if (task.state !== 'pending') assertNotExpired(task);
      if (task.state !== 'pending') throw new ApiError(Codes.AlreadyCommitted, `the upload is already committed (state ${task.state})`);
      const counts = await queries.missingImages(tx, taskId);
      if (counts.missing > 0) {
        const first = counts.first ?? [];
        const more = counts.missing > first.length ? ', ...' : '';
        throw new ApiError(Codes.ImagesMissing, `${counts.missing} of ${counts.total} samples have no image: ${first.join(', ')}${more}`);
      }
      // the task shows running from commit on (IMAGE_DATASET_JOB waits as running: pending means it still takes images)
      await this.jobs.enqueue(IMAGE_DATASET_JOB, { taskId }, { projectId: String(task.project_id), manager: tx, cost: FEATURE_CORES });
    });
    return {};
  }

  async status(taskId: string): Promise<TaskStatus> {
    return this.datasets.taskStatus(taskId, IMAGE_TASK_KIND, Codes.ImageTaskNotFound);
  }

  private parseAttributes(raw: string): Record<string, unknown> {
    const value = parseClientJson(raw, 'attributes');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ApiError(Codes.MalformedBody, 'attributes must be a JSON object');
    }
    return value as Record<string, unknown>;
  }
}

/** Throws the error that says why sample `id` of `task` (undefined: none) may not get its image now, if it may not. */
function assertAddable<T extends ImageTaskRow & { has_image: boolean | null }>(task: T | undefined, id: string): asserts task is T {
  if (!task || task.kind !== IMAGE_TASK_KIND) throw new ApiError(Codes.ImageTaskNotFound);
  if (task.state !== 'pending') {
    assertNotExpired(task);
    throw new ApiError(Codes.AddAfterCommit, `the upload is already committed (state ${task.state}): no more images can be added`);
  }
  if (task.has_image === null) throw new ApiError(Codes.BadSampleId, `sample id "${id.slice(0, 60)}" is not in the init file`);
  if (task.has_image) throw new ApiError(Codes.ImageAlreadyAdded, `sample "${id.slice(0, 60)}" already has an image`);
}

/** An upload that expired (image-upload-expiry.ts) answers an add or a commit with its own error, not "committed". */
function assertNotExpired(task: ImageTaskRow): void {
  if (task.state === 'failed' && task.error?.code === Codes.ImageUploadExpired) {
    throw new ApiError(Codes.ImageUploadExpired, task.error.message);
  }
}

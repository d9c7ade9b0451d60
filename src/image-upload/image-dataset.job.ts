import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { APP_CONFIG, AppConfig } from '../config/config';
import { runInWorker, workerScript } from '../common/worker-thread';
import { distinctNumbers, ParsedColumn } from '../datasets/column-builder';
import { ColumnStore, DatasetTarget, TypedTable } from '../datasets/column-store';
import { ParsedTable } from '../datasets/table-parser';
import { JobsService } from '../jobs/jobs.service';
import { JobFailure } from '../jobs/jobs.types';
import { IMAGE_FEATURES } from './image-features';
import type { MeasureRequest, MeasureResponse } from './image-features.worker';
import { parseSampleTableInWorker } from './sample-table';

/** Images decoded by one worker thread: at most this many, or this many bytes. */
const BATCH_IMAGES = 32;
const BATCH_BYTES = 64 * 1024 * 1024;

/** What an image upload task holds in its payload (set at init). */
export interface ImageTaskPayload {
  name: string;
  description: string | null;
  sampleCount: number;
}

/**
 * The imageDataset job: decode every image on worker threads, compute its img_ features, and store the
 * sample table's columns with them as a dataset. The uploaded images are dropped once the dataset exists
 * or the task has failed (the task's status stays).
 */
@Injectable()
export class ImageDatasetJob implements OnModuleInit {
  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly columns: ColumnStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register('imageDataset', {
      execute: (payload, signal) => this.build(payload.taskId, signal),
      store: async (tx, payload, built) => {
        const datasetId = await this.columns.write(tx, built.target, built.table);
        await tx.query('DELETE FROM image_samples WHERE task_id = $1', [payload.taskId]);
        await tx.query('DELETE FROM image_uploads WHERE task_id = $1', [payload.taskId]);
        return { datasetId };
      },
      onFailed: async (payload) => {
        await this.db.query('DELETE FROM image_samples WHERE task_id = $1', [payload.taskId]);
        await this.db.query('DELETE FROM image_uploads WHERE task_id = $1', [payload.taskId]);
      },
    });
  }

  private async build(taskId: string, signal: AbortSignal): Promise<{ target: DatasetTarget; table: TypedTable }> {
    const [task]: { project_id: string; payload: ImageTaskPayload }[] = await this.db.query(
      'SELECT project_id, payload FROM tasks WHERE id = $1',
      [taskId],
    );
    // deleted meanwhile (with its project): its job row went with it, and the runner drops this run
    if (!task) throw new Error(`task ${taskId} is gone`);
    const table = await this.measure(taskId, signal);
    const target = { projectId: String(task.project_id), name: task.payload.name, description: task.payload.description };
    return { target, table: this.columns.typeColumns(table, {}) };
  }

  private async measure(taskId: string, signal: AbortSignal): Promise<ParsedTable> {
    const uploads = await this.db.query('SELECT csv, has_feature_headers FROM image_uploads WHERE task_id = $1', [taskId]);
    if (!uploads.length) throw new JobFailure(Codes.ImageDatasetFailed, 'the uploaded sample table is gone');
    let sampleTable;
    try {
      sampleTable = await parseSampleTableInWorker(uploads[0].csv as Buffer, uploads[0].has_feature_headers as boolean, signal);
    } catch (e) {
      if (e instanceof ApiError) throw new JobFailure(e.code, e.message);
      throw e;
    }
    const samples: { idx: number; sample_id: string; size: number }[] = await this.db.query(
      'SELECT idx, sample_id, coalesce(length(image), 0) AS size FROM image_samples WHERE task_id = $1 ORDER BY idx',
      [taskId],
    );
    const n = samples.length;
    if (n !== sampleTable.ids.length || samples.some((s, i) => s.idx !== i || s.sample_id !== sampleTable.ids[i])) {
      throw new JobFailure(Codes.ImageDatasetFailed, 'the stored samples do not match the sample table');
    }
    const values = IMAGE_FEATURES.map(() => new Float64Array(n));
    const script = workerScript(__dirname, __filename, 'image-features.worker');
    let start = 0;
    while (start < n) {
      signal.throwIfAborted();
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
      if (missing) throw new JobFailure(Codes.ImageDatasetFailed, `sample "${missing.sample_id}" has no image`);
      const request: MeasureRequest = {
        images: rows.map((r) => ({ sampleId: r.sample_id, bytes: r.image as Buffer })),
        maxPixels: this.config.maxImagePixels,
      };
      const result = await runInWorker<MeasureResponse>(script, request, { signal });
      if (!result.ok) {
        throw new JobFailure(
          Codes.UndecodableImage,
          `the image of sample "${result.sampleId.slice(0, 60)}" could not be decoded: ${result.message}`,
        );
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

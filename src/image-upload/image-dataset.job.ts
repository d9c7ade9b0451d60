import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { APP_CONFIG, AppConfig } from '../config/config';
import { EngineWorker } from '../common/engine-process';
import { workerScript } from '../common/worker-thread';
import { distinctNumbers, ParsedColumn } from '../datasets/column-builder';
import { ColumnStore, DatasetTarget, TypedTable } from '../datasets/column-store';
import { ParsedTable } from '../datasets/table-parser';
import { TASK_SUBJECT } from '../datasets/task.subject';
import type { JobKind } from '../jobs/job-kinds';
import { JobsService } from '../jobs/jobs.service';
import { JobFailure } from '../jobs/jobs.types';
import { IMAGE_FEATURES } from './image-features';
import type { MeasureRequest, MeasureResponse, MeasureSetup } from './image-features.worker';
import { parseSampleTableInWorker } from './sample-table';

/** Images sent to the feature thread at once: at most this many, or this many bytes. */
const BATCH_IMAGES = 64;
const BATCH_BYTES = 64 * 1024 * 1024;

/** What an image upload task holds in its payload (set at init). */
export interface ImageTaskPayload {
  name: string;
  description: string | null;
  sampleCount: number;
}

export const IMAGE_DATASET_JOB: JobKind<{ taskId: string }> = {
  name: 'imageDataset',
  subject: TASK_SUBJECT,
  subjectId: (p) => p.taskId,
  failureCode: Codes.ImageDatasetFailed,
  // from its commit on: an image task that is pending still takes images
  waitsAs: 'running',
};

/** Drops what an image upload holds (its sample table, its images and their byte counts); its task's status stays. */
export async function dropUploadedImages(tx: EntityManager, taskId: string): Promise<void> {
  await tx.query('DELETE FROM image_samples WHERE task_id = $1', [taskId]);
  await tx.query('DELETE FROM image_uploads WHERE task_id = $1', [taskId]); // image_upload_bytes goes with it
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
    this.jobs.register(IMAGE_DATASET_JOB, {
      execute: (payload, signal) => this.build(payload.taskId, signal),
      store: async (tx, payload, built) => {
        const datasetId = await this.columns.write(tx, built.target, built.table);
        await dropUploadedImages(tx, payload.taskId);
        return { datasetId };
      },
      onFailed: (tx, payload) => dropUploadedImages(tx, payload.taskId),
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
    const width = IMAGE_FEATURES.length;
    const values = IMAGE_FEATURES.map(() => new Float64Array(n));
    const batches: [number, number][] = [];
    for (let start = 0; start < n;) {
      let end = start;
      let bytes = 0;
      while (end < n && end - start < BATCH_IMAGES && (end === start || bytes + samples[end].size <= BATCH_BYTES)) {
        bytes += samples[end].size;
        end++;
      }
      batches.push([start, end]);
      start = end;
    }
    const read = async ([start, end]: [number, number]) => {
      const rows: { sample_id: string; image: Buffer | null }[] = await this.db.query(
        'SELECT sample_id, image FROM image_samples WHERE task_id = $1 AND idx >= $2 AND idx < $3 ORDER BY idx',
        [taskId, start, end],
      );
      const missing = rows.find((r) => r.image === null);
      if (missing) throw new JobFailure(Codes.ImageDatasetFailed, `sample "${missing.sample_id}" has no image`);
      return rows.map((r) => ({ sampleId: r.sample_id, bytes: r.image as Buffer }));
    };
    // one engine process for the whole job; the next batch is read from the database while this one is measured
    const thread = new FeatureThread({ maxPixels: this.config.maxImagePixels }, signal);
    try {
      let next = batches.length ? read(batches[0]) : undefined;
      for (let b = 0; b < batches.length; b++) {
        signal.throwIfAborted();
        const images = await next!;
        next = b + 1 < batches.length ? read(batches[b + 1]) : undefined;
        // a read that fails while this batch is measured is awaited (and thrown) at the next turn
        next?.catch(() => undefined);
        const result = await thread.measure({ images });
        if (!result.ok) {
          throw new JobFailure(
            Codes.UndecodableImage,
            `the image of sample "${result.sampleId.slice(0, 60)}" could not be decoded: ${result.message}`,
          );
        }
        const start = batches[b][0];
        for (let k = 0; k < images.length; k++) {
          for (let j = 0; j < width; j++) values[j][start + k] = result.features[k * width + j];
        }
      }
    } finally {
      thread.close();
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

const FEATURE_SCRIPT = workerScript(__dirname, __filename, 'image-features.worker');

/**
 * The feature thread of one job (image-features.worker.ts) in its engine process: started once, asked batch
 * after batch (a process per batch cost a fork and sharp's loading each time). Aborting `signal` kills it.
 */
class FeatureThread {
  private readonly worker: EngineWorker;
  private failure: Error | undefined;
  private waiting: { resolve: (m: MeasureResponse) => void; reject: (e: Error) => void } | undefined;

  constructor(
    setup: MeasureSetup,
    private readonly signal: AbortSignal,
  ) {
    this.worker = new EngineWorker(FEATURE_SCRIPT, { workerData: setup });
    this.worker.on('message', (m: MeasureResponse) => {
      const w = this.waiting;
      this.waiting = undefined;
      w?.resolve(m);
    });
    const fail = (e: Error) => {
      // killed by an abort: the abort's reason (a shutdown hands the job back) rather than the exit it caused
      const reason: unknown = signal.aborted ? signal.reason : undefined;
      this.failure ??= reason instanceof Error ? reason : e;
      const w = this.waiting;
      this.waiting = undefined;
      w?.reject(this.failure);
    };
    this.worker.once('error', fail);
    this.worker.once('exit', (code: number) => fail(new Error(`the feature thread exited with code ${code}`)));
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = () => {
    void this.worker.terminate();
  };

  measure(request: MeasureRequest): Promise<MeasureResponse> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.postMessage(request);
    });
  }

  close(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    void this.worker.terminate();
  }
}

import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { APP_CONFIG, AppConfig } from '../config/config';
import { EngineWorker } from '../common/engine-process';
import { workerScript } from '../common/worker-thread';
import { copyBytes } from '../database/copy-bytes';
import { poolOf } from '../database/sql';
import { distinctNumbers, ParsedColumn } from '../datasets/column-builder';
import { ColumnStore, DatasetTarget, TypedTable } from '../datasets/column-store';
import { ParsedTable } from '../datasets/table-parser';
import { TASK_SUBJECT } from '../datasets/task.subject';
import type { JobKind } from '../jobs/job-kinds';
import { JobsService } from '../jobs/jobs.service';
import { JobFailure } from '../jobs/jobs.types';
import { IMAGE_FEATURES } from './image-features';
import type { MeasureRequest, MeasureResponse, MeasureSetup } from './image-features.worker';
import * as queries from './image-upload.queries';
import { parseSampleTableInWorker } from './sample-table';

/** Images sent to the feature thread at once: at most this many, or this many bytes. */
const BATCH_IMAGES = 64;
const BATCH_BYTES = 64 * 1024 * 1024;

/**
 * Engine processes that compute an image dataset's features side by side (at most WORKER_CORES): the job's cost in
 * cores. One process left the other core idle: featurising is most of a build.
 */
export const FEATURE_PROCESSES = 2;

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
        await queries.dropUploadedImages(tx, payload.taskId);
        return { datasetId };
      },
      onFailed: (tx, payload) => queries.dropUploadedImages(tx, payload.taskId),
    });
  }

  private async build(taskId: string, signal: AbortSignal): Promise<{ target: DatasetTarget; table: TypedTable }> {
    const task = await queries.imageTaskOf<ImageTaskPayload>(this.db, taskId);
    // deleted meanwhile (with its project): its job row went with it, and the runner drops this run
    if (!task) throw new Error(`task ${taskId} is gone`);
    const table = await this.measure(taskId, signal);
    const target = { projectId: String(task.project_id), name: task.payload.name, description: task.payload.description };
    return { target, table: this.columns.typeColumns(table, {}) };
  }

  private async measure(taskId: string, signal: AbortSignal): Promise<ParsedTable> {
    const upload = await queries.sampleTableOf(this.db, taskId);
    if (!upload) throw new JobFailure(Codes.ImageDatasetFailed, 'the uploaded sample table is gone');
    let sampleTable;
    try {
      sampleTable = await parseSampleTableInWorker(upload.csv, upload.has_feature_headers, signal);
    } catch (e) {
      if (e instanceof ApiError) throw new JobFailure(e.code, e.message);
      throw e;
    }
    const samples = await queries.sampleSizes(this.db, taskId);
    const n = samples.length;
    if (n !== sampleTable.ids.length || samples.some((s, i) => s.idx !== i || s.sample_id !== sampleTable.ids[i])) {
      throw new JobFailure(Codes.ImageDatasetFailed, 'the stored samples do not match the sample table');
    }
    const missing = samples.find((s) => s.size === 0);
    if (missing) throw new JobFailure(Codes.ImageDatasetFailed, `sample "${missing.sample_id}" has no image`);
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
    // a binary COPY: a SELECT's bytea comes as hex text, twice the bytes, decoded on this event loop (1.5 s of its
    // CPU for 45 MB of images, and as much again in PostgreSQL to encode them)
    const pool = poolOf(this.db);
    const read = async ([start, end]: [number, number]) => {
      const sizes = samples.slice(start, end).map((s) => s.size);
      const total = sizes.reduce((a, b) => a + b, 0);
      const pieces: Buffer[] = [];
      for await (const piece of copyBytes(pool, queries.imagesCopy(taskId, start, end), total, 1)) pieces.push(piece);
      const all = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
      if (all.length !== total) throw new JobFailure(Codes.ImageDatasetFailed, 'the stored images changed while they were read');
      let at = 0;
      return sizes.map((size, k) => ({ sampleId: samples[start + k].sample_id, bytes: all.subarray(at, (at += size)) }));
    };
    // FEATURE_PROCESSES engine processes (the job's cost in cores), each taking the next batch when it is done with one,
    // reading it from the database while the other measures; after a failure no later batch starts, and the failure
    // reported is the first in the sample table's order
    const failures: { batch: number; sampleId: string; message: string }[] = [];
    let next = 0;
    let broken = false;
    const lane = async () => {
      const thread = new FeatureThread({ maxPixels: this.config.maxImagePixels }, signal);
      try {
        for (let b = next++; b < batches.length && !broken && !failures.some((f) => f.batch < b); b = next++) {
          signal.throwIfAborted();
          const images = await read(batches[b]);
          const result = await thread.measure({ images });
          if (!result.ok) {
            failures.push({ batch: b, sampleId: result.sampleId, message: result.message });
            continue;
          }
          const start = batches[b][0];
          for (let k = 0; k < images.length; k++) {
            for (let j = 0; j < width; j++) values[j][start + k] = result.features[k * width + j];
          }
        }
      } catch (e) {
        broken = true; // the other lane stops after its batch
        throw e;
      } finally {
        thread.close();
      }
    };
    const lanes = Math.min(FEATURE_PROCESSES, this.config.workerCores, batches.length);
    const ended = await Promise.allSettled(Array.from({ length: lanes }, lane));
    const thrown = ended.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (thrown) throw thrown.reason;
    if (failures.length) {
      const first = failures.reduce((a, b) => (b.batch < a.batch ? b : a));
      throw new JobFailure(
        Codes.UndecodableImage,
        `the image of sample "${first.sampleId.slice(0, 60)}" could not be decoded: ${first.message}`,
      );
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

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
 * Batches sent to the feature thread and not yet answered: the next one waits in its process while it measures
 * one, and the service reads the one after from the database meanwhile.
 */
const BATCHES_AHEAD = 2;

/**
 * The cores an image dataset's build takes (its job's cost): its one engine process decodes several images at once
 * on libuv's threads while its thread computes features. Two processes of one thread each cost more CPU for the same
 * work: each started (0.33 s of CPU), loaded sharp and warmed up its own compiled code (500 images of 256 x 256:
 * 10.3-11.9 ms of engine CPU an image against 8.3-8.8 ms in one process).
 */
export const FEATURE_CORES = 2;

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
    const totals = batches.map(([start, end]) => samples.slice(start, end).reduce((sum, s) => sum + s.size, 0));
    // each batch is read into a buffer of the largest batch's size, filled again once its answer has come (the engine
    // process has read it all then): a new 6 MB buffer cost 10-13 ms of page faults on this machine, a refill 0.2 ms
    const capacity = Math.max(0, ...totals);
    const spare: Buffer[] = [];
    const read = async (b: number): Promise<MeasureRequest> => {
      const [start, end] = batches[b];
      const pieces: Buffer[] = [];
      for await (const piece of copyBytes(pool, queries.imagesCopy(taskId, start, end), capacity, 1, spare)) pieces.push(piece);
      const bytes = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
      if (bytes.length !== totals[b]) throw new JobFailure(Codes.ImageDatasetFailed, 'the stored images changed while they were read');
      return { sampleIds: samples.slice(start, end).map((s) => s.sample_id), sizes: samples.slice(start, end).map((s) => s.size), bytes };
    };
    // one engine process, sent the batches in order: it measures one while the next waits in it and this reads the one
    // after; the first failure (answers come in order: it is the first in the sample table's order) stops the reading
    // the job's cost in cores (FEATURE_CORES, 1 when WORKER_CORES is 1) decides how many images it decodes at once
    const decoding = Math.min(FEATURE_CORES, this.config.workerCores) > 1 ? 4 : 1;
    const thread = new FeatureThread({ maxPixels: this.config.maxImagePixels, decoding }, signal);
    let failure: { sampleId: string; message: string } | undefined;
    try {
      const answers: { start: number; count: number; bytes: Uint8Array; answer: Promise<MeasureResponse> }[] = [];
      const take = async () => {
        const { start, count, bytes, answer } = answers.shift()!;
        const result = await answer;
        if (bytes.buffer.byteLength === capacity) spare.push(Buffer.from(bytes.buffer));
        if (!result.ok) {
          failure ??= result;
          return;
        }
        for (let k = 0; k < count; k++) {
          for (let j = 0; j < width; j++) values[j][start + k] = result.features[k * width + j];
        }
      };
      for (let b = 0; b < batches.length; b++) {
        signal.throwIfAborted();
        const request = await read(b);
        if (failure) break;
        const answer = thread.measure(request);
        answer.catch(() => undefined); // awaited in take(), unless an earlier failure ends the build first
        const [start, end] = batches[b];
        answers.push({ start, count: end - start, bytes: request.bytes, answer });
        if (answers.length >= BATCHES_AHEAD) await take();
        if (failure) break;
      }
      while (answers.length && !failure) await take();
    } finally {
      thread.close();
    }
    if (failure) {
      throw new JobFailure(
        Codes.UndecodableImage,
        `the image of sample "${failure.sampleId.slice(0, 60)}" could not be decoded: ${failure.message}`,
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
 * The feature thread of one job (image-features.worker.ts) in its engine process: started once, sent batch
 * after batch (a process per batch cost a fork and sharp's loading each time), which it answers in order. Aborting
 * `signal` kills it.
 */
class FeatureThread {
  private readonly worker: EngineWorker;
  private failure: Error | undefined;
  private readonly waiting: { resolve: (m: MeasureResponse) => void; reject: (e: Error) => void }[] = [];

  constructor(
    setup: MeasureSetup,
    private readonly signal: AbortSignal,
  ) {
    this.worker = new EngineWorker(FEATURE_SCRIPT, { workerData: setup });
    this.worker.on('message', (m: MeasureResponse) => this.waiting.shift()?.resolve(m));
    const fail = (e: Error) => {
      // killed by an abort: the abort's reason (a shutdown hands the job back) rather than the exit it caused
      const reason: unknown = signal.aborted ? signal.reason : undefined;
      this.failure ??= reason instanceof Error ? reason : e;
      for (const w of this.waiting.splice(0)) w.reject(this.failure);
    };
    this.worker.once('error', fail);
    this.worker.once('exit', (code: number) => fail(new Error(`the feature thread exited with code ${code}`)));
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = () => {
    void this.worker.terminate();
  };

  /** The answer to `request`, once the thread has answered every batch sent before it. */
  measure(request: MeasureRequest): Promise<MeasureResponse> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(request);
    });
  }

  close(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    void this.worker.terminate();
  }
}

import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { APP_CONFIG, AppConfig } from '../config/config';
import { EngineWorker } from '../common/engine-process';
import { workerScript } from '../common/worker-thread';
import { urlOf } from '../database/sql';
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
/** Batches sent to the feature thread and not yet answered: it reads the next one while it measures one. */
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
    // the largest batch's bytes: the feature thread reads each batch into a buffer of that size
    const totals = batches.map(([start, end]) => samples.slice(start, end).reduce((sum, s) => sum + s.size, 0));
    const batchBytes = Math.max(0, ...totals);
    // one engine process, sent the batches in order: it measures one while it reads the next from the database; the
    // first failure (answers come in order: it is the first in the sample table's order) stops the sending
    // the job's cost in cores (FEATURE_CORES, 1 when WORKER_CORES is 1) decides how many images it decodes at once
    const decoding = Math.min(FEATURE_CORES, this.config.workerCores) > 1 ? 4 : 1;
    const setup: MeasureSetup = {
      maxPixels: this.config.maxImagePixels,
      decodeTimeoutMs: this.config.imageDecodeTimeoutSeconds * 1000,
      decoding,
      databaseUrl: urlOf(this.db),
      taskId,
      batchBytes,
    };
    const thread = new FeatureThread(setup, signal);
    let failure: Exclude<MeasureResponse, { ok: true }> | undefined;
    // the whole task's time is bounded too: past it the engine process is killed, and the task fails
    const budgetMs = taskDecodeBudgetMs(
      samples.reduce((sum, s) => sum + s.size, 0),
      this.config.imageTaskDecodeSeconds,
    );
    let late = false;
    const deadline = setTimeout(() => {
      late = true;
      thread.close();
    }, budgetMs);
    try {
      const answers: { start: number; count: number; answer: Promise<MeasureResponse> }[] = [];
      const take = async () => {
        const { start, count, answer } = answers.shift()!;
        const result = await answer;
        if (!result.ok) {
          failure ??= result;
          return;
        }
        for (let k = 0; k < count; k++) {
          for (let j = 0; j < width; j++) values[j][start + k] = result.features[k * width + j];
        }
      };
      for (const [start, end] of batches) {
        signal.throwIfAborted();
        const request = {
          start,
          end,
          sampleIds: samples.slice(start, end).map((s) => s.sample_id),
          sizes: samples.slice(start, end).map((s) => s.size),
        };
        const answer = thread.measure(request);
        answer.catch(() => undefined); // awaited in take(), unless an earlier failure ends the build first
        answers.push({ start, count: end - start, answer });
        if (answers.length >= BATCHES_AHEAD) await take();
        if (failure) break;
      }
      while (answers.length && !failure) await take();
    } catch (e) {
      if (late) {
        const seconds = Math.round(budgetMs / 1000);
        throw new JobFailure(Codes.ImageTaskTooSlow, `the images took longer than ${seconds} s to decode (IMAGE_TASK_DECODE_SECONDS)`);
      }
      throw e;
    } finally {
      clearTimeout(deadline);
      thread.close();
    }
    if (failure && 'read' in failure) {
      // the images changed under the read (a delete of the task): the build fails; a database fault is the job's to retry
      if (failure.read === 'changed') throw new JobFailure(Codes.ImageDatasetFailed, failure.message);
      throw new Error(`the images could not be read: ${failure.message}`);
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

/**
 * How long the decoding of a task's images may take in all, in ms: IMAGE_TASK_DECODE_SECONDS when it is set, else 60 s
 * plus 10 s per MB of images. Far above what
 * sound images need (the images bench measures ~220 images of 256 x 256, ~90 KB each, a second: ~20 MB/s), it holds a task of
 * crafted images (each slow to decode, under its own limit) to seconds per MB sent.
 */
export function taskDecodeBudgetMs(bytes: number, seconds: number): number {
  return seconds > 0 ? seconds * 1000 : 60_000 + (10_000 * bytes) / 1e6;
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

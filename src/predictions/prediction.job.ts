import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AnalysesService } from '../analyses/analyses.service';
import { Codes } from '../common/error-codes';
import { runInWorker, workerScript } from '../common/worker-thread';
import { ColumnStore } from '../datasets/column-store';
import type { JobKind, JobSubject } from '../jobs/job-kinds';
import { JobsService } from '../jobs/jobs.service';
import { FinalJobError, JobFailure } from '../jobs/jobs.types';
import type { PredictRequest, PredictResponse } from './predict.worker';
import { insertResultRows, predictionToRun } from './predictions.queries';

const SCRIPT = workerScript(__dirname, __filename, 'predict.worker');

/** Predictions: their status shows no times (their rows keep them). */
export const PREDICTION_SUBJECT: JobSubject = { name: 'prediction', table: 'predictions', jobColumn: 'prediction_id', times: true };

export const PREDICTION_JOB: JobKind<{ predictionId: string }> = {
  name: 'prediction',
  subject: PREDICTION_SUBJECT,
  subjectId: (p) => p.predictionId,
  failureCode: Codes.PredictionFailed,
  waitsAs: 'pending',
};

/** The largest result a prediction stores (PostgreSQL's own limit on a JSON array is 256 MiB). */
const MAX_RESULT_BYTES = 200 * 2 ** 20;

/** The prediction job: apply the analysis's saved pipeline to the dataset in an engine process; store the rows. */
@Injectable()
export class PredictionJob implements OnModuleInit {
  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly columns: ColumnStore,
    private readonly analyses: AnalysesService,
  ) {}

  onModuleInit(): void {
    this.jobs.register(PREDICTION_JOB, {
      execute: (payload, signal) => this.predict(payload.predictionId, signal),
      // the rows arrive as JSON text and are stored as such: never parsed or serialised on this thread
      store: (tx, payload, json) => insertResultRows(tx, payload.predictionId, json),
    });
  }

  /** The result's rows as JSON text. */
  private async predict(predictionId: string, signal: AbortSignal): Promise<string> {
    const p = await predictionToRun(this.db, predictionId);
    // deleted meanwhile: its job row went with it, and the runner drops this run
    if (!p) throw new Error(`prediction ${predictionId} is gone`);
    const pipeline = await this.analyses.pipeline(String(p.analysis_id), p.model_key, p.signature_index);
    if (!pipeline) throw new FinalJobError(`the analysis has no fitted model "${p.model_key}" for signature ${p.signature_index}`);
    const data = await this.columns.loadForEngine(String(p.dataset_id));
    const request: PredictRequest = {
      pipeline,
      data,
      times: p.survival_times ?? undefined,
      explain: p.explain,
      maxBytes: MAX_RESULT_BYTES,
    };
    const out = await runInWorker<PredictResponse>(SCRIPT, request, { signal });
    if ('error' in out) {
      if (out.input) throw new JobFailure(Codes.PredictionInputRejected, out.error);
      throw new Error(out.error); // retried; fails with predictionFailed after the last attempt
    }
    // PostgreSQL holds a JSON array of at most 256 MiB: a larger result failed three times as an internal fault
    if ('tooLarge' in out) {
      throw new JobFailure(
        Codes.PredictionInputRejected,
        `the predictions of ${out.count} samples take ${Math.round(out.bytes / 2 ** 20)} MiB, over the ${MAX_RESULT_BYTES / 2 ** 20} MiB a prediction may hold: predict on part of the samples at a time`,
      );
    }
    return out.json;
  }
}

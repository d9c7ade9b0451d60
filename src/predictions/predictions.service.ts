import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { readableBy } from '../auth/auth.queries';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { Page } from '../common/pipes';
import { runInWorker, workerScript } from '../common/worker-thread';
import { paginateSql } from '../database/paginate';
import { keepRow } from '../database/sql';
import { renderStatus } from '../jobs/job-state';
import { JobsService } from '../jobs/jobs.service';
import { DatasetsService } from '../datasets/datasets.service';
import { AnalysesService } from '../analyses/analyses.service';
import { PredictDto, Prediction, PredictionRef, PredictionResult, PredictionStatus } from './dto/predict.dto';
import { PREDICTION_JOB, PREDICTION_SUBJECT } from './prediction.job';
import * as queries from './predictions.queries';
import { PredictionRowDb } from './predictions.queries';

const CSV_SCRIPT = workerScript(__dirname, __filename, 'result-csv.worker');

function view(r: PredictionRowDb): Prediction {
  return {
    predictionId: String(r.id),
    analysisId: String(r.analysis_id),
    datasetId: String(r.dataset_id),
    modelKey: r.model_key,
    signatureIndex: r.signature_index,
    state: r.state,
  };
}

/** Model use as the API shows it: a finished analysis's model applied to a dataset (queued as a job), reads, deletes. */
@Injectable()
export class PredictionsService {
  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly datasets: DatasetsService,
    private readonly analyses: AnalysesService,
  ) {}

  /** The SQL of a prediction's state as clients see it. */
  private state(): string {
    return this.jobs.states.shownState(PREDICTION_SUBJECT);
  }

  async create(userId: string, analysisId: string, datasetId: string, dto: PredictDto): Promise<PredictionRef> {
    return this.jobs.enqueueTurn(userId, () => this.queue(userId, analysisId, datasetId, dto));
  }

  private async queue(userId: string, analysisId: string, datasetId: string, dto: PredictDto): Promise<{ predictionId: string }> {
    const models = await this.analyses.modelSignatures(analysisId);
    // an own key only: `constructor`, `__proto__` or `toString` are not models
    if (!Object.prototype.hasOwnProperty.call(models, dto.modelKey))
      throw new ApiError(Codes.ModelKeyNotFound, `modelKey "${dto.modelKey}" is not one of ${Object.keys(models).join(', ')}`);
    const signatures = models[dto.modelKey];
    const signatureIndex = dto.signatureIndex ?? 0;
    if (signatureIndex >= signatures.length || !(await this.analyses.pipeline(analysisId, dto.modelKey, signatureIndex))) {
      throw new ApiError(
        Codes.SignatureIndexUnavailable,
        `signatureIndex ${signatureIndex}: the model "${dto.modelKey}" shows ${signatures.length} signature${signatures.length === 1 ? '' : 's'} (0 to ${signatures.length - 1})`,
      );
    }
    if (dto.explain && !(await this.analyses.pipeline(analysisId, dto.modelKey, signatureIndex))?.background) {
      throw new ApiError(
        Codes.ResultPartMissing,
        'explain: this analysis finished before its models kept what explanations need (a background of training samples): run it again',
      );
    }
    if (dto.times !== undefined) {
      const pipeline = await this.analyses.pipeline(analysisId, dto.modelKey, signatureIndex);
      if (pipeline?.task !== 'survival')
        throw new ApiError(Codes.UnknownField, 'times applies to survival models only: this model predicts no survival probabilities');
    }
    return this.db.transaction(async (tx) => {
      // both stay until this commits (a concurrent delete waits, then takes the prediction with it)
      await keepRow(tx, 'analyses', analysisId, new ApiError(Codes.AnalysisNotFound));
      await keepRow(tx, 'datasets', datasetId, new ApiError(Codes.DatasetNotFound));
      await this.checkColumns(analysisId, dto.modelKey, signatureIndex, datasetId, tx);
      const row = await queries.insertPrediction(tx, {
        analysisId,
        datasetId,
        userId,
        modelKey: dto.modelKey,
        signatureIndex,
        times: dto.times,
        explain: dto.explain ?? false,
      });
      const predictionId = String(row.id);
      await this.jobs.enqueue(PREDICTION_JOB, { predictionId }, { projectId: String(row.project_id), manager: tx });
      return { predictionId };
    });
  }

  /** Refuses a dataset that lacks a column the model uses, before queueing anything. */
  private async checkColumns(
    analysisId: string,
    modelKey: string,
    signatureIndex: number,
    datasetId: string,
    tx: EntityManager,
  ): Promise<void> {
    const needed = await this.analyses.modelInputs(analysisId, modelKey, signatureIndex);
    const features = await this.datasets.featuresOf(datasetId, tx);
    const have = new Set(features.map((f) => f.name));
    const missing = needed.filter((n) => !have.has(n));
    if (missing.length) {
      throw new ApiError(
        Codes.PredictionColumnsMissing,
        `the dataset lacks column${missing.length > 1 ? 's' : ''} the model uses: ${missing.slice(0, 20).join(', ')}`,
      );
    }
  }

  private async get(predictionId: string): Promise<PredictionRowDb> {
    const row = await queries.predictionById(this.db, this.state(), predictionId);
    if (!row) throw new ApiError(Codes.PredictionNotFound);
    return row;
  }

  async status(predictionId: string): Promise<PredictionStatus> {
    const r = await this.get(predictionId);
    return { ...view(r), ...renderStatus(PREDICTION_SUBJECT, r) };
  }

  /**
   * The finished result's JSON envelope, written around the stored rows' JSON text: PostgreSQL gives them as text
   * (never parsed here), so a result of a million rows costs the event loop a string, not seconds of parsing and
   * serialising.
   */
  async resultJson(predictionId: string): Promise<string> {
    const r = await this.get(predictionId);
    const rows = await this.storedRows(r);
    const head: Omit<PredictionResult, 'predictions'> = {
      predictionId: String(r.id),
      analysisId: String(r.analysis_id),
      datasetId: String(r.dataset_id),
      modelKey: r.model_key,
    };
    return `{"payload":${JSON.stringify(head).slice(0, -1)},"predictions":${rows}},"status":"success"}`;
  }

  /** The result as CSV (result-csv.worker.ts), written on a worker thread of an engine process. */
  async resultCsv(predictionId: string): Promise<string> {
    const rows = await this.storedRows(await this.get(predictionId));
    return runInWorker<string>(CSV_SCRIPT, { json: rows });
  }

  /** The stored rows' JSON text of a finished prediction. */
  private async storedRows(r: PredictionRowDb): Promise<string> {
    if (r.state !== 'finished') throw new ApiError(Codes.PredictionUnfinished, `prediction is ${r.state}`);
    const rows = await queries.resultRowsText(this.db, r.id);
    // a finished prediction has its result (stored in the transaction that finished it)
    if (rows === undefined) throw new ApiError(Codes.PredictionNotFound);
    return rows;
  }

  /** The analysis's predictions on datasets `userId` may read (the access rule of docs/decisions.md). */
  async list(analysisId: string, offset: number, count: number, userId: string): Promise<Page<Prediction> & { analysisId: string }> {
    const where = `analysis_id = $1 AND ${readableBy('(SELECT project_id FROM datasets WHERE id = dataset_id)', '$2')}`;
    const sql = { table: 'predictions', columns: queries.predictionColumns(this.state()), where, params: [analysisId, userId] };
    return { analysisId, ...(await paginateSql(this.db, sql, offset, count, view)) };
  }

  /** Deletes the prediction with its result and job: the runner stops a running one within 2 s. */
  async delete(predictionId: string): Promise<Prediction> {
    const row = await queries.deletePrediction(this.db, this.state(), predictionId);
    if (!row) throw new ApiError(Codes.PredictionNotFound);
    return view(row);
  }
}

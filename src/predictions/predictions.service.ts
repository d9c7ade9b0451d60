import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { readableBy } from '../auth/access.service';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { Page } from '../common/pipes';
import { paginateSql } from '../common/paginate';
import { returning } from '../database/sql';
import { JobsService } from '../jobs/jobs.service';
import { FinalJobError, JobContext } from '../jobs/jobs.types';
import { buffersOf, runInWorker, workerScript } from '../common/worker-thread';
import { DatasetsService } from '../datasets/datasets.service';
import { AnalysesService } from '../analyses/analyses.service';
import type { EngineDataset, PredictionRow } from '../engine/types';
import { PredictDto, PredictionView } from './dto/predict.dto';
import { csvCell } from './csv-cell';

interface PredictionRowDb {
  id: string;
  analysis_id: string;
  dataset_id: string;
  model_key: string;
  signature_index: number;
  state: string;
  error: { code: string; message: string } | null;
}

export interface PredictionResult {
  predictionId: string;
  analysisId: string;
  datasetId: string;
  modelKey: string;
  predictions: (PredictionRow & { sampleId?: string })[];
}

interface PredictionJob {
  predictionId: string;
}

const SCRIPT = workerScript(__dirname, __filename, 'predict.worker');
const PREDICTION_COLUMNS = 'id, analysis_id, dataset_id, model_key, signature_index, state, error';

function view(r: PredictionRowDb): PredictionView {
  return {
    predictionId: String(r.id),
    analysisId: String(r.analysis_id),
    datasetId: String(r.dataset_id),
    modelKey: r.model_key,
    signatureIndex: r.signature_index,
    state: r.state,
  };
}

/** The values of the dataset's identifier column, when it has one. */
function sampleIds(data: EngineDataset): string[] | undefined {
  const id = data.columns.find((c) => c.type === 'identifier');
  if (!id || !('codes' in id)) return undefined;
  return Array.from(id.codes, (c) => (c >= 0 ? id.levels[c] : ''));
}

/** Model use: a finished analysis's model applied to another dataset of the user, as a job. */
@Injectable()
export class PredictionsService implements OnModuleInit {
  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly datasets: DatasetsService,
    private readonly analyses: AnalysesService,
  ) {}

  onModuleInit(): void {
    this.jobs.register<PredictionJob>('prediction', {
      run: (ctx) => this.run(ctx),
      onGiveUp: (p, reason) => this.fail(p.predictionId, { code: Codes.PredictionFailed, message: reason }),
    });
  }

  async create(userId: string, analysisId: string, datasetId: string, dto: PredictDto): Promise<{ predictionId: string }> {
    const models = await this.analyses.modelSignatures(analysisId);
    // an own key only: `constructor`, `__proto__` or `toString` are not models
    if (!Object.prototype.hasOwnProperty.call(models, dto.modelKey)) throw new ApiError(Codes.ModelKeyNotFound, `modelKey "${dto.modelKey}" is not one of ${Object.keys(models).join(', ')}`);
    const signatures = models[dto.modelKey];
    const signatureIndex = dto.signatureIndex ?? 0;
    if (signatureIndex >= signatures.length || !(await this.analyses.pipeline(analysisId, dto.modelKey, signatureIndex))) {
      throw new ApiError(
        Codes.SignatureIndexUnavailable,
        `signatureIndex ${signatureIndex}: the model "${dto.modelKey}" shows ${signatures.length} signature${signatures.length === 1 ? '' : 's'} (0 to ${signatures.length - 1})`,
      );
    }
    await this.checkColumns(analysisId, dto.modelKey, signatureIndex, datasetId);
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `INSERT INTO predictions (analysis_id, dataset_id, user_id, model_key, signature_index)
         VALUES ($1, $2, $3, $4, $5) RETURNING id, (SELECT project_id FROM analyses WHERE id = $1) AS project_id`,
        [analysisId, datasetId, userId, dto.modelKey, signatureIndex],
      );
      const predictionId = String(row.id);
      await this.jobs.enqueue('prediction', { predictionId }, { projectId: String(row.project_id), manager: tx });
      return { predictionId };
    });
  }

  /** Refuses a dataset that lacks a column the model uses, before queueing anything. */
  private async checkColumns(analysisId: string, modelKey: string, signatureIndex: number, datasetId: string): Promise<void> {
    const needed = await this.analyses.modelInputs(analysisId, modelKey, signatureIndex);
    const features = await this.datasets.featuresOf(datasetId);
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
    const rows: PredictionRowDb[] = await this.db.query(
      `SELECT ${PREDICTION_COLUMNS} FROM predictions WHERE id = $1`,
      [predictionId],
    );
    if (!rows.length) throw new ApiError(Codes.PredictionNotFound);
    return rows[0];
  }

  async status(predictionId: string): Promise<PredictionView & { error?: { code: string; message: string } }> {
    const r = await this.get(predictionId);
    return r.state === 'failed' && r.error ? { ...view(r), error: r.error } : view(r);
  }

  async result(predictionId: string): Promise<PredictionResult> {
    const r = await this.get(predictionId);
    if (r.state !== 'finished') throw new ApiError(Codes.PredictionUnfinished, `prediction is ${r.state}`);
    const [res] = await this.db.query(`SELECT rows FROM prediction_results WHERE prediction_id = $1`, [predictionId]);
    return {
      predictionId: String(r.id),
      analysisId: String(r.analysis_id),
      datasetId: String(r.dataset_id),
      modelKey: r.model_key,
      predictions: res.rows,
    };
  }

  /** The result as CSV: row, sampleId (when any), prediction, one probability column per class, risk. */
  async resultCsv(predictionId: string): Promise<string> {
    const result = await this.result(predictionId);
    const rows = result.predictions;
    const classes = [...new Set(rows.flatMap((r) => Object.keys(r.probabilities ?? {})))].sort();
    const hasSample = rows.some((r) => r.sampleId !== undefined);
    const hasRisk = rows.some((r) => r.risk !== undefined);
    const header = ['row', ...(hasSample ? ['sampleId'] : []), 'prediction', ...classes.map((c) => `probability:${c}`), ...(hasRisk ? ['risk'] : [])];
    const cell = csvCell;
    const lines = [header.map(cell).join(',')];
    for (const r of rows) {
      lines.push(
        [r.row, ...(hasSample ? [r.sampleId] : []), r.prediction, ...classes.map((c) => r.probabilities?.[c]), ...(hasRisk ? [r.risk] : [])]
          .map(cell)
          .join(','),
      );
    }
    return lines.join('\n') + '\n';
  }

  /** The analysis's predictions on datasets `userId` may read (the access rule of decisions.md). */
  async list(analysisId: string, offset: number, count: number, userId: string): Promise<Page<PredictionView> & { analysisId: string }> {
    const where = `analysis_id = $1 AND ${readableBy('(SELECT project_id FROM datasets WHERE id = dataset_id)', '$2')}`;
    const sql = { table: 'predictions', columns: PREDICTION_COLUMNS, where, params: [analysisId, userId] };
    return { analysisId, ...(await paginateSql(this.db, sql, offset, count, view)) };
  }

  async delete(predictionId: string): Promise<PredictionView> {
    const rows = await returning<PredictionRowDb>(
      this.db,
      `DELETE FROM predictions WHERE id = $1 RETURNING ${PREDICTION_COLUMNS}`,
      [predictionId],
    );
    if (!rows.length) throw new ApiError(Codes.PredictionNotFound);
    return view(rows[0]);
  }

  private async run(ctx: JobContext<PredictionJob>): Promise<void> {
    const { predictionId } = ctx.payload;
    const started = await returning<PredictionRowDb>(
      this.db,
      `UPDATE predictions SET state = 'running', start_time = now() WHERE id = $1
        RETURNING ${PREDICTION_COLUMNS}`,
      [predictionId],
    );
    if (!started.length) return; // deleted meanwhile
    const p = started[0];
    const pipeline = await this.analyses.pipeline(String(p.analysis_id), p.model_key, p.signature_index);
    if (!pipeline) throw new FinalJobError(`the analysis has no fitted model "${p.model_key}" for signature ${p.signature_index}`);
    const data = await this.datasets.loadForEngine(String(p.dataset_id));
    const ids = sampleIds(data);
    const arrays = data.columns.map((c) => ('codes' in c ? c.codes : c.values));
    const out = await runInWorker<{ rows?: PredictionRow[]; error?: string; input?: boolean }>(
      SCRIPT,
      { pipeline, data },
      { transferList: buffersOf(arrays), signal: ctx.signal },
    );
    if (out.error !== undefined) {
      if (!out.input) throw new Error(out.error); // retried; onGiveUp marks it failed after the last attempt
      await this.fail(predictionId, { code: Codes.PredictionInputRejected, message: out.error });
      throw new FinalJobError(out.error);
    }
    const rows = (out.rows ?? []).map(({ row, ...rest }) => (ids ? { row, sampleId: ids[row], ...rest } : { row, ...rest }));
    await this.db.transaction(async (tx) => {
      const alive = await returning(
        tx,
        `UPDATE predictions SET state = 'finished', end_time = now(), error = NULL WHERE id = $1 RETURNING id`,
        [predictionId],
      );
      if (!alive.length) return;
      await tx.query(`INSERT INTO prediction_results (prediction_id, rows) VALUES ($1, $2)`, [predictionId, JSON.stringify(rows)]);
    });
  }

  private async fail(predictionId: string, error: { code: string; message: string }): Promise<void> {
    await this.db.query(`UPDATE predictions SET state = 'failed', end_time = now(), error = $2 WHERE id = $1`, [
      predictionId,
      JSON.stringify(error),
    ]);
  }
}

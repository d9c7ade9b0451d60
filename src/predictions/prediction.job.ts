import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AnalysesService } from '../analyses/analyses.service';
import { Codes } from '../common/error-codes';
import { runInWorker, workerScript } from '../common/worker-thread';
import { ColumnStore } from '../datasets/column-store';
import type { EngineDataset, PredictionRow } from '../engine/types';
import { JobsService } from '../jobs/jobs.service';
import { FinalJobError, JobFailure } from '../jobs/jobs.types';

const SCRIPT = workerScript(__dirname, __filename, 'predict.worker');

/** The values of the dataset's identifier column, when it has one. */
function sampleIds(data: EngineDataset): string[] | undefined {
  const id = data.columns.find((c) => c.type === 'identifier');
  if (!id || !('codes' in id)) return undefined;
  return Array.from(id.codes, (c) => (c >= 0 ? id.levels[c] : ''));
}

type ResultRow = PredictionRow & { sampleId?: string };

/** The largest result a prediction stores (PostgreSQL's own limit on a JSON array is 256 MiB). */
const MAX_RESULT_BYTES = 200 * 2 ** 20;

/** The size of `rows` as JSON, without building that text (a result can be hundreds of MiB). */
function resultSize(rows: object[]): number {
  let size = 2;
  for (const r of rows) size += Buffer.byteLength(JSON.stringify(r)) + 1;
  return size;
}

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
    this.jobs.register('prediction', {
      execute: (payload, signal) => this.predict(payload.predictionId, signal),
      store: async (tx, payload, rows) => {
        await tx.query(`INSERT INTO prediction_results (prediction_id, rows) VALUES ($1, $2)`, [
          payload.predictionId,
          JSON.stringify(rows),
        ]);
      },
    });
  }

  private async predict(predictionId: string, signal: AbortSignal): Promise<ResultRow[]> {
    const [p]: { analysis_id: string; dataset_id: string; model_key: string; signature_index: number; survival_times: number[] | null }[] =
      await this.db.query('SELECT analysis_id, dataset_id, model_key, signature_index, survival_times FROM predictions WHERE id = $1', [
        predictionId,
      ]);
    // deleted meanwhile: its job row went with it, and the runner drops this run
    if (!p) throw new Error(`prediction ${predictionId} is gone`);
    const pipeline = await this.analyses.pipeline(String(p.analysis_id), p.model_key, p.signature_index);
    if (!pipeline) throw new FinalJobError(`the analysis has no fitted model "${p.model_key}" for signature ${p.signature_index}`);
    const data = await this.columns.loadForEngine(String(p.dataset_id));
    const ids = sampleIds(data);
    const times = p.survival_times ?? undefined;
    const out = await runInWorker<{ rows?: PredictionRow[]; error?: string; input?: boolean }>(
      SCRIPT,
      { pipeline, data, times },
      { signal },
    );
    if (out.error !== undefined) {
      if (out.input) throw new JobFailure(Codes.PredictionInputRejected, out.error);
      throw new Error(out.error); // retried; fails with predictionFailed after the last attempt
    }
    const rows = (out.rows ?? []).map(({ row, ...rest }) => (ids ? { row, sampleId: ids[row], ...rest } : { row, ...rest }));
    // PostgreSQL holds a JSON array of at most 256 MiB: a larger result failed three times as an internal fault
    const size = resultSize(rows);
    if (size > MAX_RESULT_BYTES) {
      throw new JobFailure(
        Codes.PredictionInputRejected,
        `the predictions of ${rows.length} samples take ${Math.round(size / 2 ** 20)} MiB, over the ${MAX_RESULT_BYTES / 2 ** 20} MiB a prediction may hold: predict on part of the samples at a time`,
      );
    }
    return rows;
  }
}

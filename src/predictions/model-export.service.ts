import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AnalysesService } from '../analyses/analyses.service';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { runInWorker, workerScript } from '../common/worker-thread';
import { rows } from '../database/sql';
import { modelCard, type ModelCardSource } from '../engine';
import type { AnalysisParameters } from '../analyses/dto/analysis.dto';
import type { ModelCard, ScoreDto, ScoreResult } from './dto/model-export.dto';
import type { ExportResponse } from './model-export.worker';
import { ScoreThread } from './score-thread';

const EXPORT_SCRIPT = workerScript(__dirname, __filename, 'model-export.worker');

/** The samples an analysis learned from: those of its out-of-fold predictions (undefined for results without them). */
async function trainingSamples(db: DataSource, analysisId: string, modelKey: string): Promise<number | undefined> {
  const [row] = await rows<{ n: number | null }>(
    db,
    `SELECT jsonb_array_length(out_of_fold -> $2::text -> 'rows') AS n FROM analysis_results WHERE analysis_id = $1`,
    [analysisId, modelKey],
  );
  return row?.n ?? undefined;
}

/**
 * A finished analysis's models as they leave the service: the ONNX file of a model's signature, its model card, and
 * rows scored within the request. Anything whose cost grows with the model or the rows sent (writing the file,
 * checking and scoring the rows) runs on a worker thread: of an engine process for the export, the scoring thread
 * (score-thread.ts) for rows.
 */
@Injectable()
export class ModelExportService implements OnModuleDestroy {
  private readonly scoring = new ScoreThread();

  constructor(
    private readonly db: DataSource,
    private readonly analyses: AnalysesService,
  ) {}

  /** What a model card is made of, for a model key and signature of a finished analysis (its codes as for predictions). */
  private async source(analysisId: string, modelKey: string, signatureIndex: number): Promise<ModelCardSource<AnalysisParameters>> {
    const result = await this.analyses.result(analysisId);
    // an own key only: `constructor`, `__proto__` or `toString` are not models
    if (!Object.prototype.hasOwnProperty.call(result.models, modelKey))
      throw new ApiError(
        Codes.ModelKeyNotFound,
        `modelKey "${modelKey.slice(0, 60)}" is not one of ${Object.keys(result.models).join(', ')}`,
      );
    const report = result.models[modelKey];
    const pipeline =
      signatureIndex < report.signatures.length ? await this.analyses.pipeline(analysisId, modelKey, signatureIndex) : undefined;
    if (!pipeline)
      throw new ApiError(
        Codes.SignatureIndexUnavailable,
        `signatureIndex ${signatureIndex}: the model "${modelKey}" shows ${report.signatures.length} signature${report.signatures.length === 1 ? '' : 's'} (0 to ${report.signatures.length - 1})`,
      );
    return {
      analysisId,
      modelKey,
      signatureIndex,
      report,
      pipeline,
      parameters: result.parameters,
      mlEngine: result.mlEngine,
      trainingSamples: await trainingSamples(this.db, analysisId, modelKey),
    };
  }

  async modelCard(analysisId: string, modelKey: string, signatureIndex = 0): Promise<ModelCard> {
    return modelCard(await this.source(analysisId, modelKey, signatureIndex));
  }

  /** The ONNX file of a model's signature; a model that cannot be exported exactly is refused with its reason. */
  async onnx(analysisId: string, modelKey: string, signatureIndex = 0): Promise<Buffer> {
    const answer = await runInWorker<ExportResponse>(EXPORT_SCRIPT, await this.source(analysisId, modelKey, signatureIndex));
    if ('refused' in answer) throw new ApiError(Codes.ModelNotExportable, `this model cannot be exported to ONNX: ${answer.refused}`);
    if ('error' in answer) throw new Error(answer.error);
    return Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength);
  }

  /** Rows scored by a model's signature within the request, with the fields of a prediction's rows. */
  async score(analysisId: string, options: ScoreDto): Promise<ScoreResult> {
    const signatureIndex = options.signatureIndex ?? 0;
    // one query for the pipeline alone (a call's fixed cost); an unknown model or signature is told apart as for the card
    const pipeline =
      (await this.analyses.pipeline(analysisId, options.modelKey, signatureIndex)) ??
      (await this.source(analysisId, options.modelKey, signatureIndex)).pipeline;
    if (options.times !== undefined && pipeline.task !== 'survival')
      throw new ApiError(Codes.UnknownField, 'times applies to survival models only: this model predicts no survival probabilities');
    if (options.explain && !pipeline.background)
      throw new ApiError(
        Codes.ResultPartMissing,
        'explain: this analysis finished before its models kept what explanations need (a background of training samples): run it again',
      );
    const answer = await this.scoring.run({ pipeline, rows: options.rows, times: options.times, explain: options.explain });
    if ('fault' in answer)
      throw new ApiError(answer.fault === 'missing' ? Codes.PredictionColumnsMissing : Codes.PredictionInputRejected, answer.message);
    if ('error' in answer) throw new ApiError(Codes.PredictionFailed);
    return { analysisId, modelKey: options.modelKey, signatureIndex, predictions: answer.predictions };
  }

  async onModuleDestroy(): Promise<void> {
    await this.scoring.close();
  }
}

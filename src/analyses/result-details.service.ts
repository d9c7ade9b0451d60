import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { workFailure } from '../common/database-errors';
import { Semaphore } from '../common/semaphore';
import { runInWorker, workerScript } from '../common/worker-thread';
import { copyBytes } from '../database/copy-bytes';
import { poolOf, urlOf } from '../database/sql';
import { leaderboardPage, outOfFoldState, outOfFoldTextCopy, resultState } from './analyses.queries';
import type { Configuration, ConfigurationPage } from './dto/result.dto';
import type { OutOfFoldAnswer, OutOfFoldRequest } from './out-of-fold.worker';

const OUT_OF_FOLD_SCRIPT = workerScript(__dirname, __filename, 'out-of-fold.worker');
/** Engine processes writing out-of-fold texts at once in one API process (each key once: later reads send the stored text). */
const OUT_OF_FOLD_WRITERS = 2;
/** The pieces the stored texts are read in. */
const PIECE_BYTES = 1024 * 1024;

/** A row of the leaderboard as the API shows it. */
export type LeaderboardRow = Configuration;

/** The parts of a finished analysis's result beyond api-v1's: the leaderboard and the out-of-fold predictions. */
@Injectable()
export class ResultDetailsService {
  private readonly making = new Map<string, Promise<void>>();
  private readonly writers = new Semaphore(OUT_OF_FOLD_WRITERS);

  constructor(private readonly db: DataSource) {}

  /** The analysis must be finished with a result; results stored before `column` existed answer ResultPartMissing. */
  private async finished(analysisId: string): Promise<void> {
    const r = await resultState(this.db, analysisId);
    if (!r) throw new ApiError(Codes.AnalysisResultUnknown);
    if (r.state !== 'finished' || !r.has_result)
      throw new ApiError(Codes.AnalysisUnfinished, `the analysis is ${r.state}: it has no result`);
  }

  private static missing(what: string): ApiError {
    return new ApiError(Codes.ResultPartMissing, `this analysis finished before results kept ${what}: run it again to get them`);
  }

  /** A page of the leaderboard: every configuration evaluated, from the highest pooled out-of-fold primary metric. */
  async configurations(analysisId: string, offset: number, count: number): Promise<ConfigurationPage> {
    await this.finished(analysisId);
    const r = await leaderboardPage(this.db, analysisId, offset, count);
    if (!r || r.total === null) throw ResultDetailsService.missing('its leaderboard');
    return {
      analysisId,
      offset,
      totalCount: r.total,
      // its position (1 = the highest metric) beside the engine's summary (a metric that could not be computed is null)
      data: (r.page ?? []).map((c, k): LeaderboardRow => ({ rank: offset + k + 1, ...c, value: c.value ?? null })),
    };
  }

  /**
   * The out-of-fold predictions of one model key's configuration, per sample: the JSON answer's bytes, its envelope
   * written around the stored rows (out_of_fold_texts, made once by an engine process), which are read as raw bytes and
   * never parsed here (as prediction results are).
   */
  async outOfFold(analysisId: string, modelKey: string, explain = false): Promise<Buffer[]> {
    const { textId, repeats } = await this.outOfFoldText(analysisId, modelKey, explain);
    const head = JSON.stringify({ analysisId, modelKey, repeats });
    const rows = await this.storedBytes(outOfFoldTextCopy(textId, explain ? 'explained_json' : 'rows_json'));
    return [Buffer.from(`{"payload":${head.slice(0, -1)},"predictions":`), ...rows, Buffer.from('},"status":"success"}')];
  }

  /** The same as CSV (row, sampleId when any, actual, event for survival, prediction, a probability per class, risk): its bytes. */
  async outOfFoldCsv(analysisId: string, modelKey: string): Promise<Buffer[]> {
    const { textId } = await this.outOfFoldText(analysisId, modelKey, false);
    return this.storedBytes(outOfFoldTextCopy(textId, 'csv'));
  }

  /**
   * The stored texts of a model key's out-of-fold predictions (with `explain`, the rows with their explanations too),
   * made now on an engine process when they are not yet.
   */
  private async outOfFoldText(analysisId: string, modelKey: string, explain: boolean): Promise<{ textId: string; repeats: number }> {
    await this.finished(analysisId);
    for (let made = false; ; made = true) {
      const r = await outOfFoldState(this.db, analysisId, modelKey);
      if (!r) throw new ApiError(Codes.AnalysisResultUnknown);
      if (!r.has_key) throw new ApiError(Codes.ModelKeyNotFound, `modelKey "${modelKey.slice(0, 60)}" is not one of ${r.keys.join(', ')}`);
      if (!r.has_oof) throw ResultDetailsService.missing('out-of-fold predictions');
      if (explain && !r.has_explanation) throw ResultDetailsService.missing('explanations of its out-of-fold predictions');
      if (r.text_id !== null && (!explain || r.explained)) return { textId: r.text_id, repeats: r.repeats ?? 1 };
      if (made) throw new Error(`the out-of-fold texts of analysis ${analysisId} were not stored`);
      await this.makeText(analysisId, modelKey, explain);
    }
  }

  /**
   * Writes the texts of a model key's out-of-fold predictions (out-of-fold.worker.ts), once per key in this process
   * (a request that comes meanwhile waits for the same), at most OUT_OF_FOLD_WRITERS at once.
   */
  private makeText(analysisId: string, modelKey: string, explain: boolean): Promise<void> {
    const key = `${analysisId}\u0000${modelKey}\u0000${explain}`;
    let making = this.making.get(key);
    if (!making) {
      const request: OutOfFoldRequest = { databaseUrl: urlOf(this.db), analysisId, modelKey, explain };
      making = this.writers
        .run(() => runInWorker<OutOfFoldAnswer>(OUT_OF_FOLD_SCRIPT, request))
        .then((answer) => {
          if ('failed' in answer) throw workFailure(answer, 'the out-of-fold predictions could not be written');
        })
        .finally(() => this.making.delete(key));
      this.making.set(key, making);
    }
    return making;
  }

  /** The bytes of a one-column bytea COPY, in pieces of up to 1 MiB, read whole before they are sent (no connection waits on a client). */
  private async storedBytes(copy: string): Promise<Buffer[]> {
    const pieces: Buffer[] = [];
    for await (const piece of copyBytes(poolOf(this.db), copy, PIECE_BYTES, 4)) pieces.push(piece);
    return pieces;
  }
}

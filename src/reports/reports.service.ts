import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ANALYSIS_SUBJECT } from '../analyses/analysis.job';
import { ResultDetailsService } from '../analyses/result-details.service';
import { ApiError } from '../common/api-error';
import { workFailure } from '../common/database-errors';
import { Codes } from '../common/error-codes';
import { Semaphore } from '../common/semaphore';
import { runInWorker, workerScript } from '../common/worker-thread';
import { urlOf } from '../database/sql';
import { seconds } from '../jobs/job-state';
import { JobsService } from '../jobs/jobs.service';
import { SERVICE_VERSION } from '../version';
import type { ReportData } from './render/report-data';
import { ReportCache } from './report-cache';
import type { ReportAnswer, ReportRequest } from './report.worker';
import { reportRow } from './reports.queries';

/** Configurations of the leaderboard the report lists. */
export const REPORT_LEADERBOARD_ROWS = 20;
/** Reports drawn at once in one API process (each on an engine process); the others wait their turn. */
export const REPORT_RENDERS = 2;
/** Bytes of drawn reports one API process keeps (REPORT_CACHE_BYTES). */
export const REPORT_CACHE_BYTES = 64 * 1024 * 1024;

/** Configurations tied with the leader the report lists, simplest first (the winner rule's candidates). */
export const REPORT_TIED_ROWS = 8;

const SCRIPT = workerScript(__dirname, __filename, 'report.worker');

/**
 * The report of a finished analysis: drawn from its stored result on an engine process (report.worker.ts), at most
 * REPORT_RENDERS at once, and kept (ReportCache: a finished result never changes), so that readers get the same bytes
 * again without drawing them. Only what the page needs beside its models is read here, in one statement and a page of
 * the leaderboard.
 */
@Injectable()
export class ReportsService {
  private readonly cache = new ReportCache(REPORT_CACHE_BYTES);
  private readonly drawing = new Map<string, Promise<Buffer>>();
  private readonly renders = new Semaphore(REPORT_RENDERS);

  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    private readonly details: ResultDetailsService,
  ) {}

  /** The report as HTML (its UTF-8 bytes); `origin` (scheme, host, port) is where its examples send their calls. */
  async report(analysisId: string, origin: string): Promise<Buffer> {
    const key = `${analysisId} ${origin}`;
    const kept = this.cache.get(key);
    if (kept) return kept;
    let drawing = this.drawing.get(key);
    if (!drawing) {
      drawing = this.draw(analysisId, origin).finally(() => this.drawing.delete(key));
      this.drawing.set(key, drawing);
    }
    const page = await drawing;
    this.cache.set(key, page);
    return page;
  }

  private async draw(analysisId: string, origin: string): Promise<Buffer> {
    const data = await this.data(analysisId, origin);
    const request: ReportRequest = { databaseUrl: urlOf(this.db), data: { ...data, generatedAt: new Date().toISOString() } };
    const answer = await this.renders.run(() => runInWorker<ReportAnswer>(SCRIPT, request));
    if ('missing' in answer) throw new ApiError(Codes.AnalysisResultUnknown); // deleted meanwhile
    if ('failed' in answer) throw workFailure(answer, 'the report could not be drawn');
    return Buffer.from(answer.html.buffer, answer.html.byteOffset, answer.html.byteLength);
  }

  /** What the report shows beside its models; errors as the result route (an analysis deleted meanwhile is unknown). */
  async data(analysisId: string, origin: string): Promise<Omit<ReportData, 'models' | 'generatedAt'>> {
    const r = await reportRow(this.db, this.jobs.states.shownState(ANALYSIS_SUBJECT), analysisId);
    if (!r) throw new ApiError(Codes.AnalysisResultUnknown);
    if (r.state !== 'finished' || !r.has_result || !r.start_time || !r.end_time)
      throw new ApiError(Codes.AnalysisUnfinished, `the analysis is ${r.state}: it has no result`);
    return {
      analysisId,
      projectId: String(r.project_id),
      parameters: r.parameters,
      dataset:
        r.dataset_name === null
          ? undefined
          : { name: r.dataset_name, sampleCount: r.sample_count ?? 0, featureCount: r.feature_count ?? 0 },
      mlEngine: r.ml_engine ?? '',
      serviceVersion: SERVICE_VERSION,
      startTime: r.start_time.toISOString(),
      executionTimeInSeconds: seconds(r.start_time, r.end_time),
      ...(r.estimate ? { estimate: r.estimate } : {}),
      ...(r.search ? { search: r.search } : {}),
      leaderboard: await this.leaderboard(analysisId, r.keys ?? []),
      origin,
    };
  }

  /** The top of the leaderboard, with the rows of the result's models when they rank below it. */
  private async leaderboard(analysisId: string, keys: string[]): Promise<ReportData['leaderboard']> {
    try {
      const top = await this.details.configurations(analysisId, 0, REPORT_LEADERBOARD_ROWS);
      const missing = keys.filter((k) => !top.data.some((r) => r.modelKey === k));
      const rest =
        missing.length && top.totalCount > top.data.length
          ? await this.details.configurations(analysisId, top.data.length, top.totalCount)
          : undefined;
      const chosen = (rest?.data ?? []).filter((r) => r.modelKey !== undefined && missing.includes(r.modelKey));
      // the winner rule's candidates: every row tied with the leader, simplest first (best is the first)
      const every =
        top.totalCount > top.data.length
          ? [...top.data, ...(rest?.data ?? (await this.details.configurations(analysisId, top.data.length, top.totalCount)).data)]
          : top.data;
      const tied = every
        .filter((r) => r.tied && r.simplicityRank !== undefined)
        .sort((a, b) => (a.simplicityRank as number) - (b.simplicityRank as number))
        .slice(0, REPORT_TIED_ROWS);
      return { totalCount: top.totalCount, rows: top.data, chosen, tied, tiedCount: every.filter((r) => r.tied).length };
    } catch (e) {
      // a result stored before leaderboards were kept: the report says so
      if (e instanceof ApiError && e.code === Codes.ResultPartMissing) return undefined;
      throw e;
    }
  }
}

import { Injectable } from '@nestjs/common';
import { AnalysesService } from '../analyses/analyses.service';
import { ResultDetailsService } from '../analyses/result-details.service';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { DatasetsService } from '../datasets/datasets.service';
import { SERVICE_VERSION } from '../version';
import type { ReportData, ReportModel } from './render/report-data';
import { renderReport } from './render/report-page';

/** Configurations of the leaderboard the report lists. */
export const REPORT_LEADERBOARD_ROWS = 20;

/** Configurations tied with the leader the report lists, simplest first (the winner rule's candidates). */
export const REPORT_TIED_ROWS = 8;

/** The model keys in the order the report shows them: best, interpretable, then any other. */
const KEY_ORDER = ['best', 'interpretable'];

/** The report of a finished analysis, read from its stored result through the services that serve the result's routes. */
@Injectable()
export class ReportsService {
  constructor(
    private readonly analyses: AnalysesService,
    private readonly details: ResultDetailsService,
    private readonly datasets: DatasetsService,
  ) {}

  /** The report as HTML; `origin` (scheme, host, port) is where its examples send their calls. */
  async report(analysisId: string, origin: string): Promise<string> {
    return renderReport(await this.data(analysisId, origin));
  }

  async data(analysisId: string, origin: string): Promise<ReportData> {
    // the result first: an unfinished analysis answers as the result route does
    const result = await this.analyses.result(analysisId);
    const { projectId } = await this.analyses.get(analysisId);
    const keys = Object.keys(result.models).sort((a, b) => rank(a) - rank(b));
    const models: ReportModel[] = [];
    for (const key of keys) models.push({ key, report: result.models[key], plots: (await this.analyses.plotsOf(analysisId, key)).plots });
    const leaderboard = await this.leaderboard(analysisId, keys);
    const dataset = await this.datasets.get(result.parameters.datasetId);
    return {
      analysisId,
      projectId,
      parameters: result.parameters,
      dataset: { name: dataset.name, sampleCount: dataset.sampleCount, featureCount: dataset.featureCount },
      mlEngine: result.mlEngine,
      serviceVersion: SERVICE_VERSION,
      startTime: result.startTime,
      executionTimeInSeconds: result.executionTimeInSeconds,
      generatedAt: new Date(),
      models,
      leaderboard,
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

const rank = (key: string): number => (KEY_ORDER.indexOf(key) + 1 || KEY_ORDER.length + 1) - 1;

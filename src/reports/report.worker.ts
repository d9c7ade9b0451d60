import { answerOnce, WorkFailed } from '../common/thread-task';
import { withOwnConnection } from '../database/pg-pool';
import { ModelKey, type ModelPlots, type ModelReport } from '../engine/types';
import type { ReportData, ReportModel } from './render/report-data';
import { renderReport } from './render/report-page';

/** What the service read of an analysis (small), for the worker to add its models and plots to and draw. */
export interface ReportRequest {
  databaseUrl: string;
  /** the report's data but its models (read here, with their plots); `generatedAt` as an ISO time */
  data: Omit<ReportData, 'models' | 'generatedAt'> & { generatedAt: string };
}

/** The page's UTF-8 bytes; `missing`: the result is gone (deleted meanwhile); `failed`: the database could not be read. */
export type ReportAnswer = { html: Uint8Array } | { missing: true } | WorkFailed;

/** The model keys in the order the report shows them: best, interpretable, then any other. */
const KEY_ORDER: string[] = Object.values(ModelKey);
const rank = (key: string): number => (KEY_ORDER.indexOf(key) + 1 || KEY_ORDER.length + 1) - 1;

/**
 * Draws an analysis's report (render/report-page.ts) in an engine process: reads the result's models and plots over a
 * connection of its own (a 100-class result's plots are megabytes of JSON), then writes the page. Its cost grows with
 * the classes and features of the result (a 100-class report took 2.9 s on the API's event loop before).
 */
async function draw({ databaseUrl, data }: ReportRequest): Promise<ReportAnswer> {
  return withOwnConnection(databaseUrl, async (pool) => {
    const { rows } = await pool.query<{ models: string; plots: string }>(
      'SELECT models::text AS models, plots::text AS plots FROM analysis_results WHERE analysis_id = $1',
      [data.analysisId],
    );
    if (!rows[0]) return { missing: true };
    const reports = JSON.parse(rows[0].models) as Record<string, ModelReport>;
    const plots = JSON.parse(rows[0].plots) as Record<string, ModelPlots>;
    const keys = Object.keys(reports).sort((a, b) => rank(a) - rank(b));
    const models: ReportModel[] = keys.map((key) => ({ key, report: reports[key], plots: plots[key] ?? {} }));
    const html = renderReport({ ...data, generatedAt: new Date(data.generatedAt), models });
    return { html: Buffer.from(html, 'utf8') };
  });
}

answerOnce(
  (data) => typeof (data as { databaseUrl?: unknown } | null)?.databaseUrl === 'string',
  (data) => draw(data as ReportRequest),
);

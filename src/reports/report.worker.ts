import { answerOnce, WorkFailed } from '../common/thread-task';
import { withOwnConnection } from '../database/pg-pool';
import { modelCard } from '../engine';
import { ModelKey, type ModelPlots, type ModelReport, type SavedPipeline } from '../engine/types';
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
 * What the model cards read of each model's reference pipeline: all but its model (a forest's trees) and background,
 * the model's default survival times, and the samples of its out-of-fold predictions. Results stored before pipelines
 * were lists by signature have none.
 */
async function pipelineFacts(
  pool: Parameters<Parameters<typeof withOwnConnection>[1]>[0],
  analysisId: string,
): Promise<Map<string, { pipeline: SavedPipeline; samples: number | null }>> {
  const { rows } = await pool.query<{ key: string; pipeline: SavedPipeline; times: number[] | null; samples: number | null }>(
    `SELECT k AS key, (pipelines -> k -> 0) - 'model' - 'background' AS pipeline, pipelines -> k -> 0 -> 'model' -> 'timeQuartiles' AS times,
            jsonb_array_length(out_of_fold -> k -> 'rows') AS samples
       FROM analysis_results, jsonb_object_keys(pipelines) AS k
      WHERE analysis_id = $1 AND jsonb_typeof(pipelines -> k) = 'array'`,
    [analysisId],
  );
  return new Map(
    rows
      .filter((r) => r.pipeline)
      .map((r) => [r.key, { pipeline: { ...r.pipeline, model: r.times ? { timeQuartiles: r.times } : {} }, samples: r.samples }]),
  );
}

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
    const cards = await pipelineFacts(pool, data.analysisId);
    const models: ReportModel[] = keys.map((key) => {
      const card = cards.get(key);
      return {
        key,
        report: reports[key],
        plots: plots[key] ?? {},
        ...(card
          ? {
              card: modelCard({
                modelKey: key,
                signatureIndex: 0,
                report: reports[key],
                pipeline: card.pipeline,
                parameters: data.parameters,
                mlEngine: data.mlEngine,
                trainingSamples: card.samples ?? undefined,
              }),
            }
          : {}),
      };
    });
    const html = renderReport({ ...data, generatedAt: new Date(data.generatedAt), models });
    return { html: Buffer.from(html, 'utf8') };
  });
}

answerOnce(
  (data) => typeof (data as { databaseUrl?: unknown } | null)?.databaseUrl === 'string',
  (data) => draw(data as ReportRequest),
);

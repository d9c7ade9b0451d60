import type { DataSource, EntityManager } from 'typeorm';
import { Db, execute, prepared, rows } from '../database/sql';
import type { AnalysisOutput, ConfigurationSummary, ModelPlots, ModelReport, SavedPipeline, SearchFacts } from '../engine/types';
import type { SubjectError, SubjectState } from '../jobs/job-state';
import type { StoredParameters } from './analysis-parameters';
import type { AnalysisEstimate } from './dto/analysis.dto';

/** The analyses module's SQL: analyses (with the user's core quota they count against) and their results. */

/** An analysis with its state as clients see it (the `state` column: jobs.states.shownState(ANALYSIS_SUBJECT)). */
export interface AnalysisRow {
  id: string;
  project_id: string;
  dataset_id: string;
  parameters: StoredParameters;
  state: SubjectState;
  seed: string;
  core_count: number;
  progress: number | null;
  start_time: Date | null;
  end_time: Date | null;
  error: SubjectError | null;
  /** made when it was created (null for analyses created before estimates) */
  estimate: AnalysisEstimate | null;
  now: Date;
}

/** The columns of AnalysisRow, `state` being the SQL of its shown state. */
export function analysisColumns(state: string): string {
  return `id, project_id, dataset_id, parameters, ${state}, seed, core_count, progress, start_time, end_time, error, estimate, now() AS now`;
}

export async function analysisById(db: DataSource, state: string, id: string): Promise<AnalysisRow | undefined> {
  const [row] = await prepared<AnalysisRow>(db, `SELECT ${analysisColumns(state)} FROM analyses WHERE id = $1`, [id]);
  return row;
}

/** Deletes the analysis (its result, predictions and job go with it); its row as it was. */
export async function deleteAnalysis(db: DataSource, state: string, id: string): Promise<AnalysisRow | undefined> {
  const [row] = await rows<AnalysisRow>(db, `DELETE FROM analyses WHERE id = $1 RETURNING ${analysisColumns(state)}`, [id]);
  return row;
}

/** The user's own core quota (null: WORKER_CORES); `lock` holds their row to the end of the transaction. */
export async function coreQuotaOf(db: Db, userId: string, lock: boolean): Promise<number | null | undefined> {
  const [user] = await rows<{ core_quota: number | null }>(db, `SELECT core_quota FROM users WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [
    userId,
  ]);
  return user?.core_quota;
}

/** The coreCount of the user's pending and running analyses, summed. */
export async function coresInUse(db: Db, userId: string): Promise<number> {
  const [{ used }] = await rows<{ used: number }>(
    db,
    `SELECT coalesce(sum(core_count), 0)::int AS used FROM analyses WHERE user_id = $1 AND state IN ('pending','running')`,
    [userId],
  );
  return used;
}

export interface NewAnalysis {
  projectId: string;
  datasetId: string;
  userId: string;
  parameters: StoredParameters;
  seed: number;
  estimate: AnalysisEstimate;
}

/** Inserts a pending analysis; its id. */
export async function insertAnalysis(tx: EntityManager, a: NewAnalysis): Promise<string> {
  const [row] = await rows<{ id: string }>(
    tx,
    `INSERT INTO analyses (project_id, dataset_id, user_id, name, parameters, core_count, seed, estimate)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      a.projectId,
      a.datasetId,
      a.userId,
      a.parameters.name,
      JSON.stringify(a.parameters),
      a.parameters.coreCount,
      a.seed,
      JSON.stringify(a.estimate),
    ],
  );
  return String(row.id);
}

/** What the analysis job reads of its analysis. */
export interface AnalysisToRun {
  dataset_id: string;
  parameters: StoredParameters;
  seed: string;
}

export async function analysisToRun(db: DataSource, id: string): Promise<AnalysisToRun | undefined> {
  const [row] = await rows<AnalysisToRun>(db, 'SELECT dataset_id, parameters, seed FROM analyses WHERE id = $1', [id]);
  return row;
}

/** Stores the engine's output as the analysis's result. */
export async function insertResult(tx: EntityManager, analysisId: string, output: AnalysisOutput): Promise<void> {
  await execute(
    tx,
    `INSERT INTO analysis_results (analysis_id, ml_engine, models, plots, pipelines, stats, configurations, out_of_fold)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      analysisId,
      output.mlEngine,
      JSON.stringify(output.models),
      JSON.stringify(output.plots),
      JSON.stringify(output.pipelines),
      JSON.stringify(output.stats),
      JSON.stringify(output.configurations),
      JSON.stringify(output.outOfFold),
    ],
  );
}

/** A stored result, as the result and plot routes read it. */
export interface ResultRow {
  ml_engine: string;
  models: Record<string, ModelReport>;
  plots: Record<string, ModelPlots>;
  /** how the search went against its time limit (null in results stored before) */
  search: SearchFacts | null;
}

export async function resultOf(db: DataSource, analysisId: string): Promise<ResultRow | undefined> {
  const [row] = await rows<ResultRow>(
    db,
    `SELECT ml_engine, models, plots, stats -> 'search' AS search FROM analysis_results WHERE analysis_id = $1`,
    [analysisId],
  );
  return row;
}

/**
 * The saved pipelines of one model key: a list by signature, or (results stored before equivalent signatures had
 * models) one pipeline; null when the key has none.
 */
export async function pipelinesOf(db: DataSource, analysisId: string, modelKey: string): Promise<SavedPipeline | SavedPipeline[] | null> {
  const [row] = await rows<{ p: SavedPipeline | SavedPipeline[] | null }>(
    db,
    `SELECT pipelines -> $2::text AS p FROM analysis_results WHERE analysis_id = $1`,
    [analysisId, modelKey],
  );
  return row?.p ?? null;
}

/** An analysis's state and whether it has a result; undefined for an unknown analysis. */
export async function resultState(db: DataSource, analysisId: string): Promise<{ state: string; has_result: boolean } | undefined> {
  const [row] = await prepared<{ state: string; has_result: boolean }>(
    db,
    `SELECT a.state, r.analysis_id IS NOT NULL AS has_result FROM analyses a LEFT JOIN analysis_results r ON r.analysis_id = a.id WHERE a.id = $1`,
    [analysisId],
  );
  return row;
}

/** A page of the leaderboard as stored (`total` null: a result stored before the leaderboard was kept). */
export async function leaderboardPage(
  db: DataSource,
  analysisId: string,
  offset: number,
  count: number,
): Promise<{ total: number | null; page: ConfigurationSummary[] | null } | undefined> {
  const [row] = await prepared<{ total: number | null; page: ConfigurationSummary[] | null }>(
    db,
    `SELECT jsonb_array_length(configurations) AS total,
            (SELECT coalesce(jsonb_agg(e ORDER BY i), '[]'::jsonb) FROM jsonb_array_elements(configurations) WITH ORDINALITY AS t(e, i)
              WHERE i > $2 AND i <= $2 + $3) AS page
       FROM analysis_results WHERE analysis_id = $1`,
    [analysisId, offset, count],
  );
  return row;
}

/** Whether a stored result has out-of-fold predictions, and the model key asked for (with the keys it has, for the error). */
export interface OutOfFoldState {
  keys: string[];
  has_key: boolean;
  has_oof: boolean;
  /** the repeats of the cross-validation its predictions are the mean of */
  repeats: number | null;
  /** whether the result keeps the explanations of these predictions (results of engine 0.3 and later) */
  has_explanation: boolean;
  /** whether the stored texts hold the rows with their explanations (written the first time explain=true was asked) */
  explained: boolean;
  /** the id of its texts, when they are stored (out_of_fold_texts) */
  text_id: string | null;
}

export async function outOfFoldState(db: DataSource, analysisId: string, modelKey: string): Promise<OutOfFoldState | undefined> {
  const [row] = await prepared<OutOfFoldState>(
    db,
    `SELECT ARRAY(SELECT jsonb_object_keys(r.models)) AS keys, r.models ? $2::text AS has_key,
            r.out_of_fold IS NOT NULL AND r.out_of_fold ? $2::text AS has_oof,
            (r.out_of_fold -> $2::text ->> 'repeats')::int AS repeats,
            coalesce(r.out_of_fold -> $2::text ? 'explanation', false) AS has_explanation,
            coalesce((SELECT t.explained_json IS NOT NULL FROM out_of_fold_texts t WHERE t.analysis_id = r.analysis_id AND t.model_key = $2::text), false) AS explained,
            (SELECT t.id FROM out_of_fold_texts t WHERE t.analysis_id = r.analysis_id AND t.model_key = $2::text) AS text_id
       FROM analysis_results r WHERE r.analysis_id = $1`,
    [analysisId, modelKey],
  );
  return row;
}

/** The text of a stored out-of-fold texts row (its id from outOfFoldState), read as raw bytes (COPY: never decoded here). */
export function outOfFoldTextCopy(textId: string, column: 'rows_json' | 'explained_json' | 'csv'): string {
  return `SELECT ${column} FROM out_of_fold_texts WHERE id = ${Number(textId)}`;
}

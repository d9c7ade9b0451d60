import type { DataSource, EntityManager } from 'typeorm';
import { execute, rows } from '../database/sql';
import type { SubjectError, SubjectState } from '../jobs/job-state';

/** The predictions module's SQL: predictions and their results. */

/** A prediction with its state as clients see it (the `state` column: jobs.states.shownState(PREDICTION_SUBJECT)). */
export interface PredictionRowDb {
  id: string;
  analysis_id: string;
  dataset_id: string;
  model_key: string;
  signature_index: number;
  state: SubjectState;
  error: SubjectError | null;
}

/** The columns of PredictionRowDb, `state` being the SQL of its shown state. */
export function predictionColumns(state: string): string {
  return `id, analysis_id, dataset_id, model_key, signature_index, ${state}, error`;
}

export async function predictionById(db: DataSource, state: string, id: string): Promise<PredictionRowDb | undefined> {
  const [row] = await rows<PredictionRowDb>(db, `SELECT ${predictionColumns(state)} FROM predictions WHERE id = $1`, [id]);
  return row;
}

/** Deletes the prediction (its result and job go with it); its row as it was. */
export async function deletePrediction(db: DataSource, state: string, id: string): Promise<PredictionRowDb | undefined> {
  const [row] = await rows<PredictionRowDb>(db, `DELETE FROM predictions WHERE id = $1 RETURNING ${predictionColumns(state)}`, [id]);
  return row;
}

export interface NewPrediction {
  analysisId: string;
  datasetId: string;
  userId: string;
  modelKey: string;
  signatureIndex: number;
  times: number[] | undefined;
  explain: boolean;
}

/** Inserts a pending prediction; its id and the project of its analysis (whose job it is). */
export async function insertPrediction(tx: EntityManager, p: NewPrediction): Promise<{ id: string; project_id: string }> {
  const [row] = await rows<{ id: string; project_id: string }>(
    tx,
    `INSERT INTO predictions (analysis_id, dataset_id, user_id, model_key, signature_index, survival_times, explain)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, (SELECT project_id FROM analyses WHERE id = $1) AS project_id`,
    [p.analysisId, p.datasetId, p.userId, p.modelKey, p.signatureIndex, p.times === undefined ? null : JSON.stringify(p.times), p.explain],
  );
  return row;
}

/** The stored rows of a finished prediction as JSON text (never parsed here), or undefined. */
export async function resultRowsText(db: DataSource, predictionId: string): Promise<string | undefined> {
  const [row] = await rows<{ rows: string }>(db, `SELECT rows::text AS rows FROM prediction_results WHERE prediction_id = $1`, [
    predictionId,
  ]);
  return row?.rows;
}

/** What the prediction job reads of its prediction. */
export interface PredictionToRun {
  analysis_id: string;
  dataset_id: string;
  model_key: string;
  signature_index: number;
  survival_times: number[] | null;
  explain: boolean;
}

export async function predictionToRun(db: DataSource, id: string): Promise<PredictionToRun | undefined> {
  const [row] = await rows<PredictionToRun>(
    db,
    'SELECT analysis_id, dataset_id, model_key, signature_index, survival_times, explain FROM predictions WHERE id = $1',
    [id],
  );
  return row;
}

/** Stores a prediction's rows, given as JSON text, as jsonb. */
export async function insertResultRows(tx: EntityManager, predictionId: string, json: string): Promise<void> {
  await execute(tx, `INSERT INTO prediction_results (prediction_id, rows) VALUES ($1, $2::jsonb)`, [predictionId, json]);
}

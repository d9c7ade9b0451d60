import type { DataSource, EntityManager } from 'typeorm';
import { copyIn } from '../database/copy-in';
import { clientOf, Db, execute, prepared, rows } from '../database/sql';
import type { FeatureType } from '../engine/types';
import type { StatusRow } from '../jobs/job-state';

/** The datasets module's SQL: datasets, their stored columns, and the tasks that build them. */

/** A dataset as its routes show it (size_in_bytes a bigint, as text). */
export interface DatasetRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  sample_count: number;
  feature_count: number;
  size_in_bytes: string;
}

const DATASET_COLUMNS = 'id, project_id, name, description, sample_count, feature_count, size_in_bytes';

/** paginateSql's description of a project's datasets. */
export function datasetsOfProject(projectId: string): { table: string; columns: string; where: string; params: unknown[] } {
  return { table: 'datasets', columns: DATASET_COLUMNS, where: 'project_id = $1', params: [projectId] };
}

export async function datasetById(db: DataSource, id: string): Promise<DatasetRow | undefined> {
  const [row] = await rows<DatasetRow>(db, `SELECT ${DATASET_COLUMNS} FROM datasets WHERE id = $1`, [id]);
  return row;
}

/** Deletes the dataset (its columns, analyses and predictions go with it, one statement); its row as it was. */
export async function deleteDataset(db: DataSource, id: string): Promise<DatasetRow | undefined> {
  const [row] = await rows<DatasetRow>(db, `DELETE FROM datasets WHERE id = $1 RETURNING ${DATASET_COLUMNS}`, [id]);
  return row;
}

export async function datasetNamed(db: Db, projectId: string, name: string): Promise<boolean> {
  const found = await rows<{ id: string }>(db, 'SELECT id FROM datasets WHERE project_id = $1 AND name = $2', [projectId, name]);
  return found.length > 0;
}

/** Locks the dataset's row against other changes of its columns to the end of `tx`; false when it is gone. */
export async function lockDataset(tx: EntityManager, id: string): Promise<boolean> {
  const locked = await rows<{ id: string }>(tx, 'SELECT id FROM datasets WHERE id = $1 FOR NO KEY UPDATE', [id]);
  return locked.length > 0;
}

/** The samples of the dataset, or undefined when it is gone. */
export async function sampleCountOf(db: Db, id: string): Promise<number | undefined> {
  const [row] = await rows<{ sample_count: number }>(db, 'SELECT sample_count FROM datasets WHERE id = $1', [id]);
  return row?.sample_count;
}

/** A feature as the features route shows it. */
export interface FeatureRow {
  name: string;
  type: FeatureType;
  missing_count: number;
  distinct_count: number;
}

export async function featuresOf(db: Db, datasetId: string): Promise<FeatureRow[]> {
  return rows<FeatureRow>(db, `SELECT name, type, missing_count, distinct_count FROM dataset_columns WHERE dataset_id = $1 ORDER BY idx`, [
    datasetId,
  ]);
}

/** What a change of types needs to know of a column, without its levels or values. */
export interface ColumnShape {
  idx: number;
  name: string;
  encoding: 'f64' | 'dict';
  distinct_count: number;
}

export async function columnShapes(db: DataSource, datasetId: string, names: string[]): Promise<ColumnShape[]> {
  return rows<ColumnShape>(
    db,
    'SELECT idx, name, encoding, distinct_count FROM dataset_columns WHERE dataset_id = $1 AND name = ANY($2::text[])',
    [datasetId, names],
  );
}

/** Sets the types of the columns `idx`, in one statement. */
export async function setColumnTypes(tx: EntityManager, datasetId: string, idx: number[], types: FeatureType[]): Promise<void> {
  await execute(
    tx,
    `UPDATE dataset_columns c SET type = u.type FROM unnest($2::int[], $3::text[]) AS u(idx, type)
      WHERE c.dataset_id = $1 AND c.idx = u.idx`,
    [datasetId, idx, types],
  );
}

/** Inserts a dataset of `featureCount` columns (its size is set once they are written); its id. */
export async function insertDataset(
  tx: EntityManager,
  d: { projectId: string; name: string; description: string | null; sampleCount: number; featureCount: number },
): Promise<string> {
  const [row] = await rows<{ id: string }>(
    tx,
    `INSERT INTO datasets (project_id, name, description, sample_count, feature_count, size_in_bytes)
     VALUES ($1, $2, $3, $4, $5, 0) RETURNING id`,
    [d.projectId, d.name, d.description, d.sampleCount, d.featureCount],
  );
  return String(row.id);
}

/**
 * Writes a dataset's columns: one binary COPY whose data is `tuples` (column-copy.ts's columnRows: for each
 * column dataset_id, idx, name, type, encoding, data, levels, missing_count, distinct_count). Resolves with
 * the rows written; a failure of `tuples` cancels the COPY, and the transaction must roll back.
 */
export function copyColumns(tx: EntityManager, tuples: AsyncIterable<Uint8Array>): Promise<number> {
  return copyIn(
    clientOf(tx),
    'COPY dataset_columns (dataset_id, idx, name, type, encoding, data, levels, missing_count, distinct_count) FROM STDIN (FORMAT binary)',
    tuples,
  );
}

export async function setDatasetSize(tx: EntityManager, datasetId: string, size: number): Promise<void> {
  await execute(tx, 'UPDATE datasets SET size_in_bytes = $2 WHERE id = $1', [datasetId, size]);
}

/** A stored column's description with the size of its deflated data. */
export interface StoredColumn {
  idx: number;
  name: string;
  type: FeatureType;
  encoding: 'f64' | 'dict';
  bytes: number;
}

/** The named columns' descriptions, in file order; their levels stay in the database. */
export async function storedColumnsNamed(tx: EntityManager, datasetId: string, names: string[]): Promise<StoredColumn[]> {
  return rows<StoredColumn>(
    tx,
    `SELECT idx, name, type, encoding, octet_length(data) AS bytes FROM dataset_columns
      WHERE dataset_id = $1 AND name = ANY($2::text[]) ORDER BY idx`,
    [datasetId, names],
  );
}

/** Every column's description with its levels, in file order (what the engine's load reads before the data). */
export async function storedColumnsWithLevels(
  tx: EntityManager,
  datasetId: string,
): Promise<(StoredColumn & { levels: string[] | null })[]> {
  return rows<StoredColumn & { levels: string[] | null }>(
    tx,
    `SELECT idx, name, type, encoding, levels, octet_length(data) AS bytes FROM dataset_columns WHERE dataset_id = $1 ORDER BY idx`,
    [datasetId],
  );
}

/**
 * The text of a binary COPY of one column's levels as UTF-8 JSON (copy-bytes.ts runs it on a connection of its own:
 * raw bytes, never a string here). The ids are numbers the caller checked.
 */
export function levelsCopy(datasetId: string, idx: number): string {
  return `SELECT convert_to(levels::text, 'UTF8') FROM dataset_columns WHERE dataset_id = ${Number(datasetId)} AND idx = ${Number(idx)}`;
}

/**
 * The text of a binary COPY of a stored file's chunks in order (copy-bytes.ts runs it on a connection of its own:
 * raw bytes). The key is a number the caller checked.
 */
export function fileChunksCopy(filePk: string): string {
  return `SELECT data FROM file_chunks WHERE file_pk = ${Number(filePk)} ORDER BY seq`;
}

/** `length` bytes of one column's deflated data from byte `from` (0-based). */
export async function dataPiece(tx: EntityManager, datasetId: string, idx: number, from: number, length: number): Promise<Buffer> {
  const [row] = await rows<{ piece: Buffer }>(
    tx,
    'SELECT substring(data FROM $3::int FOR $4::int) AS piece FROM dataset_columns WHERE dataset_id = $1 AND idx = $2',
    [datasetId, idx, from + 1, length],
  );
  return row.piece;
}

/** The deflated data of the columns `idx`, in file order. */
export async function columnsData(tx: EntityManager, datasetId: string, idx: number[]): Promise<{ data: Buffer }[]> {
  return rows<{ data: Buffer }>(tx, 'SELECT data FROM dataset_columns WHERE dataset_id = $1 AND idx = ANY($2::int[]) ORDER BY idx', [
    datasetId,
    idx,
  ]);
}

/** A task's status (StatusRow's columns: `columns` is jobs.states.statusColumns(TASK_SUBJECT)) and its kind. */
export async function taskStatusRow(
  db: DataSource,
  columns: string,
  taskId: string,
): Promise<(StatusRow & { id: string; kind: string }) | undefined> {
  const [row] = await prepared<StatusRow & { id: string; kind: string }>(db, `SELECT id, kind, ${columns} FROM tasks WHERE id = $1`, [
    taskId,
  ]);
  return row;
}

/** Inserts a pending task of `kind`; its id. */
export async function insertTask(tx: EntityManager, kind: string, userId: string, projectId: string): Promise<string> {
  const [row] = await rows<{ id: string }>(tx, `INSERT INTO tasks (kind, user_id, project_id) VALUES ($1, $2, $3) RETURNING id`, [
    kind,
    userId,
    projectId,
  ]);
  return String(row.id);
}

/** Keeps the job's payload with its task (what the build reads, what the storage quota counts). */
export async function setTaskPayload(tx: EntityManager, taskId: string, payload: unknown): Promise<void> {
  await execute(tx, 'UPDATE tasks SET payload = $2 WHERE id = $1', [taskId, JSON.stringify(payload)]);
}

/**
 * Takes the user's files lock to the end of `tx`: an upload's end, a file's delete or replacement, a build queued from
 * a file and the storage quota's checks take turns on it.
 */
export async function lockUserFiles(tx: EntityManager, userId: string): Promise<void> {
  await execute(tx, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`files:${userId}`]);
}

/** Whether the uploaded file `filePk` is still stored (not deleted or replaced). */
export async function fileStillStored(tx: EntityManager, filePk: string): Promise<boolean> {
  const found = await rows<{ id: string }>(tx, `SELECT id FROM files WHERE id = $1 AND state = 'stored'`, [filePk]);
  return found.length > 0;
}

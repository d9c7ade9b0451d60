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
 * column dataset_id, idx, name, type, encoding, data, levels, missing_count, distinct_count, pieces). Resolves with
 * the rows written; a failure of `tuples` cancels the COPY, and the transaction must roll back.
 */
export function copyColumns(tx: EntityManager, tuples: AsyncIterable<Uint8Array>): Promise<number> {
  return copyIn(
    clientOf(tx),
    'COPY dataset_columns (dataset_id, idx, name, type, encoding, data, levels, missing_count, distinct_count, pieces) FROM STDIN (FORMAT binary)',
    tuples,
  );
}

export async function setDatasetSize(tx: EntityManager, datasetId: string, size: number): Promise<void> {
  await execute(tx, 'UPDATE datasets SET size_in_bytes = $2 WHERE id = $1', [datasetId, size]);
}

/**
 * A stored column's description with the size of its stored data: `bytes` in all, `pieces` pieces of it in
 * dataset_column_pieces (column-pieces.ts) followed by `dataBytes` in dataset_columns.data.
 */
export interface StoredColumn {
  idx: number;
  name: string;
  type: FeatureType;
  encoding: 'f64' | 'dict';
  bytes: number;
  pieces: number;
  dataBytes: number;
}

/** StoredColumn's fields of dataset_columns `c`. */
const STORED_COLUMN = `c.idx, c.name, c.type, c.encoding, c.pieces, octet_length(c.data) AS "dataBytes",
  octet_length(c.data) + CASE WHEN c.pieces = 0 THEN 0 ELSE (SELECT sum(octet_length(p.data)) FROM dataset_column_pieces p
    WHERE p.dataset_id = c.dataset_id AND p.idx = c.idx)::float8 END AS bytes`;

/** The named columns' descriptions, in file order; their levels stay in the database. */
export async function storedColumnsNamed(tx: EntityManager, datasetId: string, names: string[]): Promise<StoredColumn[]> {
  return rows<StoredColumn>(
    tx,
    `SELECT ${STORED_COLUMN} FROM dataset_columns c WHERE c.dataset_id = $1 AND c.name = ANY($2::text[]) ORDER BY c.idx`,
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
    `SELECT ${STORED_COLUMN}, c.levels FROM dataset_columns c WHERE c.dataset_id = $1 ORDER BY c.idx`,
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

/** Piece `piece` of one column (column-pieces.ts). */
export async function columnPiece(tx: EntityManager, datasetId: string, idx: number, piece: number): Promise<Buffer> {
  const [row] = await rows<{ data: Buffer }>(
    tx,
    'SELECT data FROM dataset_column_pieces WHERE dataset_id = $1 AND idx = $2 AND piece = $3',
    [datasetId, idx, piece],
  );
  if (!row) throw new Error(`piece ${piece} of column ${idx} of dataset ${datasetId} is missing`);
  return row.data;
}

/** `length` bytes of one column's dataset_columns.data from byte `from` (0-based). */
export async function dataPiece(tx: EntityManager, datasetId: string, idx: number, from: number, length: number): Promise<Buffer> {
  const [row] = await rows<{ piece: Buffer }>(
    tx,
    'SELECT substring(data FROM $3::int FOR $4::int) AS piece FROM dataset_columns WHERE dataset_id = $1 AND idx = $2',
    [datasetId, idx, from + 1, length],
  );
  return row.piece;
}

/** The stored data of the columns `idx` (their pieces, then their data), in file order. */
export async function columnsData(tx: EntityManager, datasetId: string, idx: number[]): Promise<{ data: Buffer }[]> {
  return rows<{ data: Buffer }>(
    tx,
    `SELECT CASE WHEN c.pieces = 0 THEN c.data
              ELSE (SELECT string_agg(p.data, ''::bytea ORDER BY p.piece) FROM dataset_column_pieces p
                     WHERE p.dataset_id = c.dataset_id AND p.idx = c.idx) || c.data END AS data
       FROM dataset_columns c WHERE c.dataset_id = $1 AND c.idx = ANY($2::int[]) ORDER BY c.idx`,
    [datasetId, idx],
  );
}

/**
 * Gives the dataset the pieces its build `build` wrote (column-pieces.ts), those its columns count, and deletes its
 * task's other pieces (a column that turned out to hold text, an earlier attempt's). Throws when a piece is missing.
 */
export async function attachPieces(tx: EntityManager, build: string, taskId: string, datasetId: string): Promise<void> {
  const [row] = await rows<{ attached: number; expected: number }>(
    tx,
    `WITH attached AS (
       UPDATE dataset_column_pieces p SET dataset_id = c.dataset_id, task_id = NULL FROM dataset_columns c
        WHERE p.build = $1 AND p.dataset_id IS NULL AND c.dataset_id = $2 AND c.idx = p.idx AND p.piece < c.pieces
       RETURNING 1)
     SELECT (SELECT count(*) FROM attached)::int AS attached,
            (SELECT coalesce(sum(pieces), 0) FROM dataset_columns WHERE dataset_id = $2)::int AS expected`,
    [build, datasetId],
  );
  if (row.attached !== row.expected) throw new Error(`the build's pieces are ${row.attached} where its columns need ${row.expected}`);
  await dropLoosePieces(tx, taskId);
}

/** Deletes the pieces of task `taskId` that no dataset has (an earlier attempt's, a failed build's). */
export async function dropLoosePieces(db: Db, taskId: string): Promise<void> {
  await execute(db, 'DELETE FROM dataset_column_pieces WHERE task_id = $1 AND dataset_id IS NULL', [taskId]);
}

/** Deletes the pieces no dataset has whose task has ended (a build whose writer committed after it was let go). */
export async function deleteEndedBuildsPieces(db: DataSource): Promise<void> {
  await execute(
    db,
    `DELETE FROM dataset_column_pieces p USING tasks t
      WHERE p.task_id = t.id AND p.dataset_id IS NULL AND t.state IN ('finished', 'failed')`,
  );
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
  await prepared(tx, `SELECT ${filesLock('$1::bigint')}`, [userId]);
}

/**
 * SQL: takes the files lock (lockUserFiles) of the user whose id is the bigint expression `userId`, for the rest of the
 * transaction; an image add takes it in the statement that reads its task.
 */
export function filesLock(userId: string): string {
  return `pg_advisory_xact_lock(hashtext('files:' || ${userId}))`;
}

/** Whether the uploaded file `filePk` is still stored (not deleted or replaced). */
export async function fileStillStored(tx: EntityManager, filePk: string): Promise<boolean> {
  const found = await rows<{ id: string }>(tx, `SELECT id FROM files WHERE id = $1 AND state = 'stored'`, [filePk]);
  return found.length > 0;
}

// Uploaded files (files.service.ts) and upload slots (upload-slots.ts)

/**
 * Whether a dataset is being created from the stored file ($1 user, $2 file id): it is then neither deleted
 * nor replaced (conflict-115-5-1). Both check it under the user's files lock, which createDataset takes too.
 */
const IN_USE_BY_ID = `EXISTS (SELECT 1 FROM files f JOIN tasks t ON t.payload->>'filePk' = f.id::text
  WHERE f.user_id = $1 AND f.file_id = $2 AND f.state = 'stored'
    AND t.user_id = f.user_id AND t.kind = 'createDataset' AND t.state IN ('pending', 'running'))`;

/**
 * The bytes user $1 keeps, all counted against USER_STORAGE_QUOTA_BYTES: uploaded files (uploads in progress too,
 * but for the row $3; $2: the id of the stored file an upload replaces, which does not count), the datasets the
 * user's tasks made, the files of their dataset builds still running (each becomes a dataset), the images of their
 * image uploads not yet built (image_upload_bytes, kept by each add) and the images being added to them (reserved on
 * an upload slot live for $4 seconds, until their add commits). A file made into datasets counts once as a file and
 * once per dataset. A function of the database: an image add's reservation (signet_image_add_reserve) counts it too.
 */
const KEPT = `signet_bytes_kept($1, $2, $3, $4)`; // its SQL: migrations/1763801700000-image-add-reserve.ts

/** The bytes the user keeps (KEPT), slots live for `slotSeconds`: `replacing`, the stored file an upload replaces, and `uploadPk`, its own row, left out. */
export async function bytesKept(db: Db, userId: string, slotSeconds: number, replacing?: string, uploadPk?: string): Promise<number> {
  const [{ kept }] = await rows<{ kept: string }>(db, `SELECT ${KEPT} AS kept`, [userId, replacing ?? null, uploadPk ?? null, slotSeconds]);
  return Number(kept);
}

/**
 * Reserves `bytes` of the user's quota on the upload slot `slotId` when what they keep (KEPT, slots live for
 * `slotSeconds`) leaves room for them under `quota`: whether it did (false also when the slot is gone), and what they keep.
 */
export async function reserveOnSlot(
  tx: EntityManager,
  r: { userId: string; slotId: string; bytes: number; quota: number; slotSeconds: number },
): Promise<{ kept: number; reserved: boolean }> {
  // prepared: an image add runs it on every image
  const [{ kept, reserved }] = await prepared<{ kept: string; reserved: boolean }>(
    tx,
    `WITH k AS (SELECT ${KEPT} AS kept),
     r AS (UPDATE upload_slots SET reserved_for = $1, reserved_bytes = $6 FROM k WHERE id = $5 AND k.kept + $6 <= $7 RETURNING id)
     SELECT k.kept, EXISTS (SELECT 1 FROM r) AS reserved FROM k`,
    [r.userId, null, null, r.slotSeconds, r.slotId, r.bytes, r.quota],
  );
  return { kept: Number(kept), reserved };
}

/** A new upload's row, in state 'uploading' (invisible to everything else); its key. */
export async function insertUploadingFile(db: DataSource, userId: string, fileId: string): Promise<string> {
  const [file] = await rows<{ id: string }>(
    db,
    `INSERT INTO files (user_id, file_id, size_in_bytes, chunk_count, state) VALUES ($1, $2, 0, 0, 'uploading') RETURNING id`,
    [userId, fileId],
  );
  return String(file.id);
}

/** Writes the chunk `seq` of the upload `filePk`, which then holds `size` bytes. */
export function writeChunk(db: DataSource, filePk: string, seq: number, data: Buffer, size: number): Promise<void> {
  return execute(
    db,
    `WITH chunk AS (INSERT INTO file_chunks (file_pk, seq, data) VALUES ($1, $2, $3))
     UPDATE files SET size_in_bytes = $4, chunk_count = $2 + 1, touched_at = now() WHERE id = $1`,
    [filePk, seq, data, size],
  );
}

/** Marks the upload's row alive (a slow upload, so it is never taken for a stale one). */
export async function touchFile(db: DataSource, filePk: string): Promise<void> {
  await execute(db, 'UPDATE files SET touched_at = now() WHERE id = $1', [filePk]);
}

export async function deleteFileRow(db: Db, filePk: string): Promise<void> {
  await execute(db, 'DELETE FROM files WHERE id = $1', [filePk]);
}

/** Deletes the rows of uploads untouched for `seconds`: their process was killed. */
export async function deleteStaleUploads(db: DataSource, seconds: number): Promise<void> {
  await execute(db, `DELETE FROM files WHERE state = 'uploading' AND touched_at < now() - make_interval(secs => $1)`, [seconds]);
}

/** Whether a dataset is being created from the user's stored file `fileId` (IN_USE_BY_ID). */
export async function fileInUse(tx: EntityManager, userId: string, fileId: string): Promise<boolean> {
  const [{ in_use }] = await rows<{ in_use: boolean }>(tx, `SELECT ${IN_USE_BY_ID} AS in_use`, [userId, fileId]);
  return in_use;
}

/**
 * The finished upload `filePk` (`size` bytes in `chunkCount` chunks) becomes the user's stored file `fileId`, in place
 * of the one stored before; false when its row is gone (its user was deleted meanwhile).
 */
export async function replaceStoredFile(
  tx: EntityManager,
  f: { userId: string; fileId: string; filePk: string; size: number; chunkCount: number },
): Promise<boolean> {
  await execute(tx, `DELETE FROM files WHERE user_id = $1 AND file_id = $2 AND state = 'stored'`, [f.userId, f.fileId]);
  const done = await rows<{ id: string }>(
    tx,
    `UPDATE files SET state = 'stored', size_in_bytes = $2, chunk_count = $3, touched_at = now() WHERE id = $1 RETURNING id`,
    [f.filePk, f.size, f.chunkCount],
  );
  return done.length > 0;
}

/** An uploaded file as `GET /files/:offset/:count` lists it (size_in_bytes a bigint, as text). */
export interface FileListRow {
  file_id: string;
  size_in_bytes: string;
  created_at: Date;
  used: boolean;
  in_use: boolean;
}

/** paginateSql's description of the user's stored files (FileListRow). */
export function filesOfUser(userId: string): { table: string; columns: string; where: string; params: unknown[] } {
  return {
    table: 'files',
    columns: `file_id, size_in_bytes, created_at,
      EXISTS (SELECT 1 FROM tasks t JOIN datasets d ON d.id = t.dataset_id
               WHERE t.user_id = files.user_id AND t.kind = 'createDataset' AND t.payload->>'filePk' = files.id::text) AS used,
      EXISTS (SELECT 1 FROM tasks t
               WHERE t.user_id = files.user_id AND t.kind = 'createDataset' AND t.payload->>'filePk' = files.id::text
                 AND t.state IN ('pending', 'running')) AS in_use`,
    where: `user_id = $1 AND state = 'stored'`,
    params: [userId],
  };
}

/** The user's stored file `fileId`, locked for a delete, and whether a dataset is being created from it. */
export async function storedFileForDelete(
  tx: EntityManager,
  userId: string,
  fileId: string,
): Promise<{ id: string; size_in_bytes: string; in_use: boolean } | undefined> {
  const [row] = await rows<{ id: string; size_in_bytes: string; in_use: boolean }>(
    tx,
    `SELECT id, size_in_bytes, ${IN_USE_BY_ID} AS in_use
       FROM files WHERE user_id = $1 AND file_id = $2 AND state = 'stored' FOR UPDATE`,
    [userId, fileId],
  );
  return row;
}

/** The user's stored file `fileId` (size_in_bytes a bigint, as text). */
export async function storedFile(
  db: DataSource,
  userId: string,
  fileId: string,
): Promise<{ id: string; size_in_bytes: string; chunk_count: number } | undefined> {
  const [row] = await rows<{ id: string; size_in_bytes: string; chunk_count: number }>(
    db,
    `SELECT id, size_in_bytes, chunk_count FROM files WHERE user_id = $1 AND file_id = $2 AND state = 'stored'`,
    [userId, fileId],
  );
  return row;
}

/** The size of the file `filePk`, or undefined when it is gone. */
export async function fileSize(db: DataSource, filePk: string): Promise<number | undefined> {
  const [row] = await rows<{ size_in_bytes: string }>(db, 'SELECT size_in_bytes FROM files WHERE id = $1', [filePk]);
  return row ? Number(row.size_in_bytes) : undefined;
}

/**
 * Takes the first lane of the user's upload slots free among `lanes`, in that order (one statement; when two uploads
 * take the same lane at once, the key lets one have it): the slot taken (id null: none), and whether a lane looked
 * free. The lanes come as an array, not a range from parameters: PostgreSQL planned a generate_series($1, $2) afresh on
 * every call, its generic plan costed for 1000 rows.
 */
export async function takeSlot(
  db: DataSource,
  userId: string,
  lanes: number[],
): Promise<{ free: boolean; id: string | null; lane: number | null }> {
  // prepared: an image add runs it on every image
  const [row] = await prepared<{ free: boolean; id: string | null; lane: number | null }>(
    db,
    `WITH free AS (
       SELECT l.lane FROM unnest($2::int[]) WITH ORDINALITY AS l(lane, ord)
        WHERE NOT EXISTS (SELECT 1 FROM upload_slots s WHERE s.user_id = $1 AND s.lane = l.lane)
        ORDER BY l.ord LIMIT 1),
     taken AS (
       INSERT INTO upload_slots (user_id, lane) SELECT $1, lane FROM free
       ON CONFLICT (user_id, lane) DO NOTHING RETURNING id, lane)
     SELECT EXISTS (SELECT 1 FROM free) AS free, (SELECT id FROM taken) AS id, (SELECT lane FROM taken) AS lane`,
    [userId, lanes],
  );
  return row;
}

/** Deletes the slots untouched for `seconds`: their process was killed. */
export async function deleteStaleSlots(db: DataSource, seconds: number): Promise<void> {
  await execute(db, 'DELETE FROM upload_slots WHERE touched_at < now() - make_interval(secs => $1)', [seconds]);
}

export async function touchSlot(db: DataSource, id: string): Promise<void> {
  await execute(db, 'UPDATE upload_slots SET touched_at = now() WHERE id = $1', [id]);
}

export async function deleteSlot(db: DataSource, id: string): Promise<void> {
  await prepared(db, 'DELETE FROM upload_slots WHERE id = $1', [id]);
}

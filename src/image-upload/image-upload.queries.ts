import type { DataSource, EntityManager } from 'typeorm';
import { Db, execute, prepared, rows } from '../database/sql';
import type { SubjectError, SubjectState } from '../jobs/job-state';

/** The image-upload module's SQL: image upload tasks, their sample tables, their images and the bytes they count. */

/** An image upload's task as its routes check it. */
export interface ImageTaskRow {
  kind: string;
  state: SubjectState;
  project_id: string;
  user_id: string;
  error: SubjectError | null;
}

/** Opens an image upload: its task (of `kind`, with its payload), its sample table, and a row per sample (no image yet); the task's id. */
export async function insertImageUpload(
  tx: EntityManager,
  task: { kind: string; userId: string; projectId: string; payload: unknown },
  upload: { csv: Buffer; hasFeatureHeaders: boolean; sampleIds: string[] },
): Promise<string> {
  const [row] = await rows<{ id: string }>(
    tx,
    `INSERT INTO tasks (kind, user_id, project_id, payload) VALUES ($1, $2, $3, $4) RETURNING id`,
    [task.kind, task.userId, task.projectId, JSON.stringify(task.payload)],
  );
  const taskId = String(row.id);
  await execute(tx, `INSERT INTO image_uploads (task_id, csv, has_feature_headers) VALUES ($1, $2, $3)`, [
    taskId,
    upload.csv,
    upload.hasFeatureHeaders,
  ]);
  for (let start = 0; start < upload.sampleIds.length; start += 10_000) {
    const ids = upload.sampleIds.slice(start, start + 10_000);
    await execute(
      tx,
      `INSERT INTO image_samples (task_id, idx, sample_id)
       SELECT $1, $2 + ord - 1, sid FROM unnest($3::text[]) WITH ORDINALITY AS u(sid, ord)`,
      [taskId, start, ids],
    );
  }
  return taskId;
}

/** The image an add stores: sample `sampleId` of the task, its bytes and type, on the upload slot `slot` (lane and id). */
export interface AddedImage {
  taskId: string;
  sampleId: string;
  image: Buffer;
  mime: string;
  slot: { id: string; lane: number };
}

/**
 * Stores the image, in one statement that holds no lock a sibling add waits for: only where the task is pending (FOR
 * SHARE: a commit, FOR UPDATE, waits for the adds and they for it) and the sample has no image yet. The image's bytes
 * are counted on the slot's lane of the upload (no other live add of the caller writes that row), and the slot (with
 * its reservation) ends as they are. Whether it was stored. Prepared, as are the add's other statements: parsing and
 * planning them was a third of PostgreSQL's work per add.
 */
export async function storeImage(db: DataSource, a: AddedImage): Promise<boolean> {
  const [{ added }] = await prepared<{ added: number }>(
    db,
    `WITH task AS (SELECT state FROM tasks WHERE id = $1 FOR SHARE),
     added AS (
       UPDATE image_samples SET image = $3, mime = $4, added_at = now()
        WHERE task_id = $1 AND sample_id = $2 AND image IS NULL AND (SELECT state FROM task) = 'pending'
       RETURNING octet_length(image) AS bytes),
     counted AS (
       INSERT INTO image_upload_bytes (task_id, lane, bytes) SELECT $1, $5, bytes FROM added
       ON CONFLICT (task_id, lane) DO UPDATE SET bytes = image_upload_bytes.bytes + excluded.bytes),
     ended AS (DELETE FROM upload_slots WHERE id = $6)
     SELECT count(*)::int AS added FROM added`,
    [a.taskId, a.sampleId, a.image, a.mime, a.slot.lane, a.slot.id],
  );
  return added > 0;
}

/** The task `taskId` and whether its sample `sampleId` has an image (null: no such sample). */
export async function taskWithSample(
  db: Db,
  taskId: string,
  sampleId: string,
): Promise<(ImageTaskRow & { has_image: boolean | null }) | undefined> {
  const [row] = await prepared<ImageTaskRow & { has_image: boolean | null }>(
    db,
    `SELECT kind, state, project_id, user_id, error,
            (SELECT image IS NOT NULL FROM image_samples WHERE task_id = $1 AND sample_id = $2) AS has_image
       FROM tasks WHERE id = $1`,
    [taskId, sampleId],
  );
  return row;
}

/**
 * What an image add checks before it stores the image, in one statement (signet_image_add_reserve, in the migrations):
 * the task `taskId` and whether its sample `sampleId` has an image (null: no such sample), as taskWithSample reads
 * them; and when the task is of `kind`, pending, and the sample has no image yet, the bytes its owner keeps, counted
 * under the owner's files lock, and whether `bytes` were reserved on the upload slot `slotId` (they fit under `quota`).
 * Undefined: no such task.
 */
export async function reserveImageAdd(
  db: DataSource,
  r: { taskId: string; sampleId: string; kind: string; slotId: string; bytes: number; quota: number; slotSeconds: number },
): Promise<(ImageTaskRow & { has_image: boolean | null; kept: number; reserved: boolean }) | undefined> {
  const [row] = await prepared<ImageTaskRow & { has_image: boolean | null; kept: string | null; reserved: boolean }>(
    db,
    'SELECT * FROM signet_image_add_reserve($1, $2, $3, $4, $5, $6, $7)',
    [r.taskId, r.sampleId, r.kind, r.slotId, r.bytes, r.quota, r.slotSeconds],
  );
  return row && { ...row, kept: Number(row.kept ?? 0) };
}

/** The task `taskId`, locked (FOR UPDATE) to the end of `tx`. */
export async function taskForUpdate(tx: EntityManager, taskId: string): Promise<ImageTaskRow | undefined> {
  const [row] = await rows<ImageTaskRow>(tx, 'SELECT kind, state, project_id, user_id, error FROM tasks WHERE id = $1 FOR UPDATE', [
    taskId,
  ]);
  return row;
}

/** The samples of the upload, those without an image, and the first ten of these by the sample table's order. */
export async function missingImages(
  tx: EntityManager,
  taskId: string,
): Promise<{ total: number; missing: number; first: string[] | null }> {
  const [counts] = await rows<{ total: number; missing: number; first: string[] | null }>(
    tx,
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE image IS NULL)::int AS missing,
            (SELECT array_agg(sample_id ORDER BY idx) FROM
               (SELECT sample_id, idx FROM image_samples WHERE task_id = $1 AND image IS NULL ORDER BY idx LIMIT 10) m) AS first
       FROM image_samples WHERE task_id = $1`,
    [taskId],
  );
  return counts;
}

/** Drops what an image upload holds (its sample table, its images and their byte counts); its task's status stays. */
export async function dropUploadedImages(tx: EntityManager, taskId: string): Promise<void> {
  await execute(tx, 'DELETE FROM image_samples WHERE task_id = $1', [taskId]);
  await execute(tx, 'DELETE FROM image_uploads WHERE task_id = $1', [taskId]); // image_upload_bytes goes with it
}

/** What the imageDataset job reads of its task (set at init). */
export async function imageTaskOf<P>(db: DataSource, taskId: string): Promise<{ project_id: string; payload: P } | undefined> {
  const [task] = await rows<{ project_id: string; payload: P }>(db, 'SELECT project_id, payload FROM tasks WHERE id = $1', [taskId]);
  return task;
}

/** The upload's sample table as it was sent. */
export async function sampleTableOf(db: DataSource, taskId: string): Promise<{ csv: Buffer; has_feature_headers: boolean } | undefined> {
  const [upload] = await rows<{ csv: Buffer; has_feature_headers: boolean }>(
    db,
    'SELECT csv, has_feature_headers FROM image_uploads WHERE task_id = $1',
    [taskId],
  );
  return upload;
}

/** Every sample of the upload in the sample table's order, with the size of its image (0: none). */
export async function sampleSizes(db: DataSource, taskId: string): Promise<{ idx: number; sample_id: string; size: number }[]> {
  return rows<{ idx: number; sample_id: string; size: number }>(
    db,
    'SELECT idx, sample_id, coalesce(length(image), 0) AS size FROM image_samples WHERE task_id = $1 ORDER BY idx',
    [taskId],
  );
}

/**
 * Image uploads of `kind` expired after `hours`: pending, opened that long ago, and no image added since. `taskId`:
 * that one only, locked (FOR UPDATE SKIP LOCKED: an add or a commit holding it now leaves it for the next sweep).
 */
export async function expiredUploads(db: Db, kind: string, hours: number, taskId?: string): Promise<string[]> {
  const expired = `t.kind = $1 AND t.state = 'pending' AND t.created_at < now() - make_interval(hours => $2)
     AND NOT EXISTS (SELECT 1 FROM image_samples s WHERE s.task_id = t.id AND s.added_at >= now() - make_interval(hours => $2))`;
  const found =
    taskId === undefined
      ? await rows<{ id: string }>(db, `SELECT t.id FROM tasks t WHERE ${expired} ORDER BY t.id`, [kind, hours])
      : await rows<{ id: string }>(db, `SELECT t.id FROM tasks t WHERE t.id = $3 AND ${expired} FOR UPDATE SKIP LOCKED`, [
          kind,
          hours,
          taskId,
        ]);
  return found.map((r) => String(r.id));
}

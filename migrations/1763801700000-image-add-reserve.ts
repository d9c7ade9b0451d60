import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An image add's checks and quota reservation in one statement (src/image-upload/image-upload.service.ts), where they
 * took four round trips (BEGIN, the task read that takes the owner's files lock, the reservation, COMMIT) with the
 * lock held through all of them, so that the adds of one user waited for one another's trips through the event loop:
 * - signet_bytes_kept(user, replacing file id, upload row, slot seconds): the bytes a user keeps against
 *   USER_STORAGE_QUOTA_BYTES (what datasets.queries.ts's KEPT computed inline; it now calls this);
 * - signet_image_add_reserve(...): reads the image upload task and whether the sample has an image; when the task
 *   (of kind p_kind) is pending and the sample has none, takes the owner's files lock (the key of
 *   datasets.queries.ts's filesLock), then, in a statement of its own (a snapshot taken after the lock), counts what
 *   the owner keeps and reserves p_bytes on the upload slot p_slot when they fit under p_quota. No row: no such task.
 */
export class ImageAddReserve1763801700000 implements MigrationInterface {
  name = 'ImageAddReserve1763801700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION signet_bytes_kept(bigint, text, bigint, double precision) RETURNS numeric LANGUAGE sql STABLE AS $$
        SELECT (SELECT coalesce(sum(size_in_bytes), 0) FROM files
                 WHERE user_id = $1 AND NOT (state = 'stored' AND file_id IS NOT DISTINCT FROM $2) AND id IS DISTINCT FROM $3)
             + (SELECT coalesce(sum(d.size_in_bytes), 0) FROM tasks t JOIN datasets d ON d.id = t.dataset_id WHERE t.user_id = $1)
             + (SELECT coalesce(sum(f.size_in_bytes), 0) FROM tasks t JOIN files f ON f.id = (t.payload->>'filePk')::bigint
                 WHERE t.user_id = $1 AND t.kind = 'createDataset' AND t.state IN ('pending', 'running'))
             + (SELECT coalesce(sum(b.bytes), 0) FROM tasks t JOIN image_upload_bytes b ON b.task_id = t.id
                 WHERE t.user_id = $1 AND t.state IN ('pending', 'running'))
             + (SELECT coalesce(sum(reserved_bytes), 0) FROM upload_slots
                 WHERE reserved_for = $1 AND touched_at >= now() - make_interval(secs => $4))
      $$`);
    await q.query(`
      CREATE FUNCTION signet_image_add_reserve(
        p_task bigint, p_sample text, p_kind text, p_slot bigint, p_bytes bigint, p_quota numeric, p_slot_seconds double precision)
      RETURNS TABLE (kind text, state text, project_id bigint, user_id bigint, error jsonb, has_image boolean, kept numeric, reserved boolean)
      LANGUAGE plpgsql AS $$
      DECLARE
        t record;
      BEGIN
        SELECT k.kind, k.state, k.project_id, k.user_id, k.error,
               (SELECT s.image IS NOT NULL FROM image_samples s WHERE s.task_id = p_task AND s.sample_id = p_sample) AS has_image
          INTO t FROM tasks k WHERE k.id = p_task;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        kind := t.kind;
        state := t.state;
        project_id := t.project_id;
        user_id := t.user_id;
        error := t.error;
        has_image := t.has_image;
        reserved := false;
        IF t.kind = p_kind AND t.state = 'pending' AND t.has_image = false THEN
          PERFORM pg_advisory_xact_lock(hashtext('files:' || t.user_id));
          kept := signet_bytes_kept(t.user_id, NULL, NULL, p_slot_seconds);
          UPDATE upload_slots u SET reserved_for = t.user_id, reserved_bytes = p_bytes
           WHERE u.id = p_slot AND kept + p_bytes <= p_quota;
          reserved := FOUND;
        END IF;
        RETURN NEXT;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION signet_image_add_reserve(bigint, text, text, bigint, bigint, numeric, double precision)`);
    await q.query(`DROP FUNCTION signet_bytes_kept(bigint, text, bigint, double precision)`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Image adds without a user-wide lock held through their commit (src/image-upload/image-upload.service.ts):
 * - upload_slots becomes UNLOGGED: a slot only means "an upload is running in a live process", which no crash
 *   survives, so its rows need no WAL and their commits no flush (PostgreSQL empties the table after a crash). Each
 *   slot gets a lane (0 to MAX_UPLOADS_PER_USER - 1, unique among its user's live slots) and the bytes an image add
 *   has reserved against its task owner's quota until the add commits (reserved_for, reserved_bytes).
 * - image_upload_bytes keeps the bytes of the images of each upload per lane, written in the add's own transaction,
 *   so the quota reads a few counters instead of summing every image, and adds in different lanes never wait for
 *   one another's row. Its rows go with the upload's image_uploads row (when the images are dropped).
 * - image_samples.image is stored uncompressed (STORAGE EXTERNAL): PNG, JPEG and TIFF data is compressed already,
 *   and PostgreSQL's pglz spent about 2 ms of CPU on each 256 x 256 image (40% of the database's work per add) to
 *   store it no smaller. The quota counts an image's own size either way; a BMP now takes its full size on disk until
 *   its upload is built.
 */
export class ImageAddQuota1763801600000 implements MigrationInterface {
  name = 'ImageAddQuota1763801600000';

  async up(q: QueryRunner): Promise<void> {
    // slots of processes running the previous code: their uploads end with the start-up that runs this
    await q.query(`DELETE FROM upload_slots`);
    await q.query(`ALTER TABLE upload_slots SET UNLOGGED`);
    await q.query(`ALTER TABLE image_samples ALTER COLUMN image SET STORAGE EXTERNAL`);
    await q.query(`
      ALTER TABLE upload_slots
        ADD COLUMN lane integer NOT NULL DEFAULT 0,
        ADD COLUMN reserved_for bigint,
        ADD COLUMN reserved_bytes bigint NOT NULL DEFAULT 0;
      DROP INDEX upload_slots_user_idx;
      CREATE UNIQUE INDEX upload_slots_user_lane_idx ON upload_slots(user_id, lane);
      CREATE INDEX upload_slots_reserved_for_idx ON upload_slots(reserved_for) WHERE reserved_for IS NOT NULL;
      CREATE TABLE image_upload_bytes (
        task_id bigint NOT NULL REFERENCES image_uploads(task_id) ON DELETE CASCADE,
        lane integer NOT NULL,
        bytes bigint NOT NULL,
        PRIMARY KEY (task_id, lane)
      );
      INSERT INTO image_upload_bytes (task_id, lane, bytes)
        SELECT s.task_id, 0, sum(octet_length(s.image)) FROM image_samples s JOIN image_uploads u ON u.task_id = s.task_id
         WHERE s.image IS NOT NULL GROUP BY s.task_id;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE image_samples ALTER COLUMN image SET STORAGE EXTENDED`);
    await q.query(`DROP TABLE image_upload_bytes`);
    await q.query(`DELETE FROM upload_slots`);
    await q.query(`
      DROP INDEX upload_slots_reserved_for_idx;
      DROP INDEX upload_slots_user_lane_idx;
      CREATE INDEX upload_slots_user_idx ON upload_slots(user_id);
      ALTER TABLE upload_slots DROP COLUMN lane, DROP COLUMN reserved_for, DROP COLUMN reserved_bytes;
      ALTER TABLE upload_slots SET LOGGED;
    `);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uploads in progress (file uploads, image inits), one row each, so that MAX_UPLOADS_PER_USER holds across every
 * API process (src/datasets/upload-slots.ts). `touched_at` moves while the upload runs: a row left by a killed
 * process stops counting once it is old.
 */
export class UploadSlots1763800900000 implements MigrationInterface {
  name = 'UploadSlots1763800900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE upload_slots (
        id bigserial PRIMARY KEY,
        user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        touched_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX upload_slots_user_idx ON upload_slots(user_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE upload_slots`);
  }
}

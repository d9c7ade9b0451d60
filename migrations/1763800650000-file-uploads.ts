import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uploads written chunk by chunk in short transactions: a file being uploaded is a row in state
 * 'uploading' (invisible to createDataset and lists) beside the stored file of the same id, which it
 * replaces in one short transaction at the end. `touched_at` moves with each chunk, so a row left by a
 * killed process can be told from a live upload and swept.
 */
export class FileUploads1763800650000 implements MigrationInterface {
  name = 'FileUploads1763800650000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE files ADD COLUMN state text NOT NULL DEFAULT 'stored' CHECK (state IN ('uploading','stored'));
      ALTER TABLE files ADD COLUMN touched_at timestamptz NOT NULL DEFAULT now();
      ALTER TABLE files DROP CONSTRAINT files_user_id_file_id_key;
      CREATE UNIQUE INDEX files_stored_idx ON files(user_id, file_id) WHERE state = 'stored';
      CREATE INDEX files_user_idx ON files(user_id, created_at, id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM files WHERE state = 'uploading';
      DROP INDEX files_user_idx;
      DROP INDEX files_stored_idx;
      ALTER TABLE files ADD CONSTRAINT files_user_id_file_id_key UNIQUE (user_id, file_id);
      ALTER TABLE files DROP COLUMN touched_at;
      ALTER TABLE files DROP COLUMN state;
    `);
  }
}

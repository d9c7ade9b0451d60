import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Image dataset uploads: the init file of each upload task and one row per expected sample with its
 * image (null until added). Both go with their task (and so with the project).
 */
export class ImageUpload1763800500000 implements MigrationInterface {
  name = 'ImageUpload1763800500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE image_uploads (
        task_id bigint PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
        csv bytea NOT NULL,
        has_feature_headers boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE image_samples (
        task_id bigint NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        idx integer NOT NULL,
        sample_id text NOT NULL,
        image bytea,
        mime text,
        added_at timestamptz,
        PRIMARY KEY (task_id, sample_id),
        UNIQUE (task_id, idx)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE image_samples; DROP TABLE image_uploads;`);
  }
}

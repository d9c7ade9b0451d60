import { MigrationInterface, QueryRunner } from 'typeorm';

/** Prediction results (one row per prediction; rows as JSON) and the prediction's timing. */
export class Predictions1763800300000 implements MigrationInterface {
  name = 'Predictions1763800300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE predictions ADD COLUMN start_time timestamptz, ADD COLUMN end_time timestamptz;
      CREATE TABLE prediction_results (
        prediction_id bigint PRIMARY KEY REFERENCES predictions(id) ON DELETE CASCADE,
        rows jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE prediction_results; ALTER TABLE predictions DROP COLUMN start_time, DROP COLUMN end_time;`);
  }
}

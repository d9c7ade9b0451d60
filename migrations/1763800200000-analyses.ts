import { MigrationInterface, QueryRunner } from 'typeorm';

/** The result of a finished analysis: models (the API's result), plots and the refitted pipelines. */
export class Analyses1763800200000 implements MigrationInterface {
  name = 'Analyses1763800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE analysis_results (
        analysis_id bigint PRIMARY KEY REFERENCES analyses(id) ON DELETE CASCADE,
        ml_engine text NOT NULL,
        models jsonb NOT NULL,
        plots jsonb NOT NULL,
        pipelines jsonb NOT NULL,
        stats jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE analysis_results;');
  }
}

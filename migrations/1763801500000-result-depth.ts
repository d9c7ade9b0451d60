import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a result keeps beyond models, plots and pipelines: the leaderboard of every configuration evaluated, and the
 * out-of-fold predictions of each model key's configuration (NULL for results stored before); and the times at which
 * a prediction of a survival model gives survival probabilities (NULL: the default times).
 */
export class ResultDepth1763801500000 implements MigrationInterface {
  name = 'ResultDepth1763801500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE analysis_results ADD COLUMN configurations jsonb, ADD COLUMN out_of_fold jsonb`);
    await q.query(`ALTER TABLE predictions ADD COLUMN survival_times jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE predictions DROP COLUMN survival_times`);
    await q.query(`ALTER TABLE analysis_results DROP COLUMN configurations, DROP COLUMN out_of_fold`);
  }
}

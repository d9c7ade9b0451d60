import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each job names the user it works for (its subject's user), so that the runner shares the workers between users:
 * it claims first the queued job of the user with the fewest jobs running (src/jobs/job-runner.ts), and one user's
 * hundreds of queued jobs do not hold everyone else's back. Not a foreign key: the subject's cascade already deletes
 * the job with its user.
 */
export class JobUsers1763801000000 implements MigrationInterface {
  name = 'JobUsers1763801000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE jobs ADD COLUMN user_id bigint;
      UPDATE jobs j SET user_id = coalesce(
        (SELECT user_id FROM tasks WHERE id = j.task_id),
        (SELECT user_id FROM analyses WHERE id = j.analysis_id),
        (SELECT user_id FROM predictions WHERE id = j.prediction_id));
      CREATE INDEX jobs_running_user_idx ON jobs(user_id) WHERE state = 'running';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs DROP COLUMN user_id`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each job was last claimed, so that the runner takes turns between users with as many jobs running: the user
 * served least recently goes first (src/jobs/job-runner.ts). Without it the user with the oldest queued jobs won
 * every tie, and a job that needs more cores than were free was never at the head when they were. The queued jobs
 * of a user are counted at each enqueue (MAX_QUEUED_JOBS_PER_USER).
 */
export class JobClaims1763801100000 implements MigrationInterface {
  name = 'JobClaims1763801100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE jobs ADD COLUMN claimed_at timestamptz;
      CREATE INDEX jobs_user_claimed_idx ON jobs(user_id, claimed_at);
      CREATE INDEX jobs_queued_user_idx ON jobs(user_id) WHERE state = 'queued';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs DROP COLUMN claimed_at`);
  }
}

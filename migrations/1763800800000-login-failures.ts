import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed logins, for the login policy (src/auth/login-throttle.ts): shared by every API process, kept across
 * restarts. `key` is `user:<lower-cased name>` or `address:<client address or IPv6 /64>`.
 */
export class LoginFailures1763800800000 implements MigrationInterface {
  name = 'LoginFailures1763800800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE login_failures (key text NOT NULL, failed_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE INDEX login_failures_key ON login_failures (key, failed_at)`);
    await q.query(`CREATE INDEX login_failures_failed_at ON login_failures (failed_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE login_failures`);
  }
}

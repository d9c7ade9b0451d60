import { MigrationInterface, QueryRunner } from 'typeorm';

/** When each token was last used (to the minute), for `cli tokens list`. */
export class TokenLastUsed1763801450000 implements MigrationInterface {
  name = 'TokenLastUsed1763801450000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tokens ADD COLUMN last_used_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tokens DROP COLUMN last_used_at`);
  }
}

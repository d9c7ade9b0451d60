import { MigrationInterface, QueryRunner } from 'typeorm';

/** Users can be disabled by an operator (`cli users disable`): no login, and their tokens stop working. */
export class UserDisabled1763800700000 implements MigrationInterface {
  name = 'UserDisabled1763800700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN disabled_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN disabled_at`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleting a user keeps their work in projects they do not own: UsersService.deleteUser passes those tasks,
 * analyses and predictions to the project's owner first. Their user_id no longer cascades: a user still named by
 * such a row cannot be deleted at all (NO ACTION, checked at the end of the statement, so the rows of the user's own
 * projects, which the same delete removes, do not stand in its way).
 */
export class KeptWork1763801300000 implements MigrationInterface {
  name = 'KeptWork1763801300000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['tasks', 'analyses', 'predictions']) {
      await q.query(`
        ALTER TABLE ${table} DROP CONSTRAINT ${table}_user_id_fkey;
        ALTER TABLE ${table} ADD CONSTRAINT ${table}_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE NO ACTION;
      `);
    }
    // the analyses of one user in a project, for the hand-over (predictions have no project: they go by their analysis)
    await q.query(`CREATE INDEX predictions_user_idx ON predictions(user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX predictions_user_idx`);
    for (const table of ['tasks', 'analyses', 'predictions']) {
      await q.query(`
        ALTER TABLE ${table} DROP CONSTRAINT ${table}_user_id_fkey;
        ALTER TABLE ${table} ADD CONSTRAINT ${table}_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
      `);
    }
  }
}

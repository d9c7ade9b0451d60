import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's tasks by user: the storage quota (src/datasets/files.service.ts, bytesKept) counts the datasets a user's
 * tasks made, their builds in progress and the images of their open image uploads at every upload, dataset
 * creation and image add.
 */
export class TaskUsers1763801200000 implements MigrationInterface {
  name = 'TaskUsers1763801200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX tasks_user_idx ON tasks(user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX tasks_user_idx`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Whether a prediction explains its rows (`explain: true` in the predict body): each row then carries an explanation. */
export class PredictionExplain1763801900000 implements MigrationInterface {
  name = 'PredictionExplain1763801900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE predictions ADD COLUMN explain boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE predictions DROP COLUMN explain`);
  }
}

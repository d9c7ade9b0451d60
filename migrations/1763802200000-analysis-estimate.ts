import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The estimate of an analysis's running time and peak memory made when it is created (issue 40): its status shows it
 * until its measured progress takes over, and its result beside the actual time. Null for analyses created before.
 */
export class AnalysisEstimate1763802200000 implements MigrationInterface {
  name = 'AnalysisEstimate1763802200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE analyses ADD COLUMN estimate jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE analyses DROP COLUMN estimate`);
  }
}

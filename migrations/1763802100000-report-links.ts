import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Report links: a URL that opens an analysis's report without a bearer header. Only the SHA-256 of the link's token
 * is kept; the link goes with its analysis (and so with its dataset and project) and with the user who made it.
 */
export class ReportLinks1763802100000 implements MigrationInterface {
  name = 'ReportLinks1763802100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE report_links (
        id bigserial PRIMARY KEY,
        analysis_id bigint NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX report_links_analysis_idx ON report_links(analysis_id, created_at, id);
      CREATE INDEX report_links_user_idx ON report_links(user_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE report_links`);
  }
}

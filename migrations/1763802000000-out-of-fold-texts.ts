import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * out_of_fold_texts: the out-of-fold predictions of one model key of a finished analysis as the API answers them, the
 * JSON array of its rows and its CSV (and, once asked for with explain=true, the rows with their explanations), written
 * (UTF-8 bytes) by an engine process the first time they are asked for
 * (src/analyses/out-of-fold.worker.ts) and read back as they are: a result never changes, and parsing and writing
 * 200,000 rows on the API's event loop held it up to 0.85 s a request. They go with their analysis.
 */
export class OutOfFoldTexts1763802000000 implements MigrationInterface {
  name = 'OutOfFoldTexts1763802000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE out_of_fold_texts (
        id bigserial PRIMARY KEY,
        analysis_id bigint NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
        model_key text NOT NULL,
        rows_json bytea NOT NULL,
        csv bytea NOT NULL,
        explained_json bytea,
        UNIQUE (analysis_id, model_key)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE out_of_fold_texts`);
  }
}

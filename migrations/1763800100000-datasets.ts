import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uploaded files (streamed into 1 MiB bytea chunks, private to their user) and the typed, compressed
 * columns of datasets.
 */
export class Datasets1763800100000 implements MigrationInterface {
  name = 'Datasets1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files (
        id bigserial PRIMARY KEY,
        user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        file_id text NOT NULL,
        size_in_bytes bigint NOT NULL,
        chunk_count integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, file_id)
      );
      CREATE TABLE file_chunks (
        file_pk bigint NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        seq integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (file_pk, seq)
      );
      ALTER TABLE file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE TABLE dataset_columns (
        dataset_id bigint NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        idx integer NOT NULL,
        name text NOT NULL,
        type text NOT NULL CHECK (type IN ('numerical','categorical','identifier','event','timeToEvent')),
        -- 'f64': deflated Float64Array (NaN = missing); 'dict': deflated Int32Array codes (-1 = missing) + levels
        encoding text NOT NULL CHECK (encoding IN ('f64','dict')),
        data bytea NOT NULL,
        levels jsonb,
        missing_count integer NOT NULL,
        distinct_count integer NOT NULL,
        PRIMARY KEY (dataset_id, idx)
      );
      ALTER TABLE dataset_columns ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE INDEX datasets_project_idx ON datasets(project_id, created_at, id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX datasets_project_idx; DROP TABLE dataset_columns; DROP TABLE file_chunks; DROP TABLE files;`);
  }
}

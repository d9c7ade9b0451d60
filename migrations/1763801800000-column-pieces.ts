import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A long number column may be stored in pieces, written while the rest of its file is still being parsed
 * (src/datasets/column-pieces.ts), so that a build's writes overlap its parse:
 * - dataset_column_pieces: piece `piece` (0, 1, ...) of column `idx`: deflate stored blocks, none of them final; the
 *   column's stored data is its pieces in order followed by dataset_columns.data. A build writes them before its
 *   dataset exists, under its `build` key and its task (`dataset_id` NULL: seen by no reader), and the transaction that
 *   writes the dataset attaches them (sets `dataset_id`, drops `task_id`); a dataset's delete takes them with it, and so
 *   does the delete of the task of a build that never finished. Stored uncompressed, as the columns are.
 * - dataset_columns.pieces: how many pieces the column has (0: its data is all in `data`).
 */
export class ColumnPieces1763801800000 implements MigrationInterface {
  name = 'ColumnPieces1763801800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dataset_column_pieces (
        build uuid NOT NULL,
        task_id bigint REFERENCES tasks(id) ON DELETE CASCADE,
        dataset_id bigint REFERENCES datasets(id) ON DELETE CASCADE,
        idx integer NOT NULL,
        piece integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (build, idx, piece),
        CHECK (task_id IS NOT NULL OR dataset_id IS NOT NULL)
      );
      ALTER TABLE dataset_column_pieces ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE INDEX dataset_column_pieces_dataset_idx ON dataset_column_pieces(dataset_id, idx, piece);
      CREATE INDEX dataset_column_pieces_task_idx ON dataset_column_pieces(task_id);
      ALTER TABLE dataset_columns ADD COLUMN pieces integer NOT NULL DEFAULT 0;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE dataset_columns DROP COLUMN pieces; DROP TABLE dataset_column_pieces;`);
  }
}

import type { Pool, PoolClient } from 'pg';
import { copyIn } from '../database/copy-in';
import { storedFrames, storedSize } from './column-codec';
import type { RowCuts } from './table-parser';

/**
 * Long number columns are written in pieces while their file is still being parsed, so that the database's work
 * (most of it splitting each stored value into TOAST chunks) runs beside the parse instead of after it: a
 * 438 MB CSV's columns took 3.6 s to write after a 5 s parse. Each piece holds PIECE_ROWS values (1 MiB) as
 * deflate stored blocks, none marked final; the rest of the column is packed as before and stored in
 * dataset_columns.data after them, so the pieces and the data in order are one deflate stream: readers
 * concatenate them (datasets.queries.ts). A build writes its pieces under a key of its own (`build`) and its
 * task, seen by no reader, each piece committed on its own; the transaction that writes the dataset attaches
 * them (attachPieces), and a failed or repeated build's are deleted (dropLoosePieces).
 */
export const PIECE_ROWS = 131072;

/** Where a build's pieces go: its own key (a UUID) and its task. */
export interface PieceTarget {
  build: string;
  taskId: string;
}

/** A piece's stored size: PIECE_ROWS doubles as stored blocks. */
const PIECE_BYTES = storedSize(PIECE_ROWS * 8);

/** PostgreSQL's binary COPY header and trailer. */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
const TRAILER = Buffer.from([0xff, 0xff]);

/**
 * Writes a build's pieces (RowCuts for parseTable) over a connection of its own, one COPY per cut of the rows,
 * one after the other, while the parse goes on; `done` waits for them and rejects with the first failure.
 */
export class PieceWriter {
  private client: Promise<PoolClient> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failure: Error | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly target: PieceTarget,
  ) {
    if (!/^\d+$/.test(target.taskId)) throw new Error(`not a task key: ${target.taskId}`);
  }

  /** The cuts to give parseTable. */
  cuts(): RowCuts {
    return {
      rows: PIECE_ROWS,
      take: (piece, columns) => this.write(piece, columns),
      pieceBytes: (count) => count * PIECE_BYTES,
    };
  }

  private write(piece: number, columns: { idx: number; values: Float64Array }[]): void {
    if (this.failure) return;
    this.writing = this.writing
      .then(async () => {
        this.client ??= this.pool.connect();
        const client = await this.client;
        await copyIn(
          client,
          'COPY dataset_column_pieces (build, task_id, idx, piece, data) FROM STDIN (FORMAT binary)',
          this.tuples(piece, columns),
        );
      })
      .catch((e: Error) => {
        this.failure ??= e;
      });
  }

  private async *tuples(piece: number, columns: { idx: number; values: Float64Array }[]): AsyncGenerator<Uint8Array> {
    yield HEADER;
    const build = Buffer.from(this.target.build.replace(/-/g, ''), 'hex');
    for (const { idx, values } of columns) {
      const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
      const head = Buffer.allocUnsafe(2 + 4 + 16 + 4 + 8 + 4 + 4 + 4 + 4 + 4);
      let at = head.writeInt16BE(5, 0);
      at = head.writeInt32BE(16, at);
      at += build.copy(head, at);
      at = head.writeInt32BE(8, at);
      at = head.writeBigInt64BE(BigInt(this.target.taskId), at);
      at = head.writeInt32BE(4, at);
      at = head.writeInt32BE(idx, at);
      at = head.writeInt32BE(4, at);
      at = head.writeInt32BE(piece, at);
      head.writeInt32BE(storedSize(bytes.length), at);
      yield head;
      yield* storedFrames([bytes], bytes.length, false);
    }
    yield TRAILER;
  }

  /** Waits for every piece to be written; rejects with the first failure. Lets the connection go. */
  async done(): Promise<void> {
    await this.writing;
    const client = this.client;
    this.client = undefined;
    if (client) (await client.catch(() => undefined))?.release(this.failure);
    if (this.failure) throw this.failure;
  }
}

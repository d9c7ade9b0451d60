import { Worker } from 'node:worker_threads';
import type { Pool, PoolClient } from 'pg';
import { workerScript } from '../common/worker-script';
import { buffersOf } from '../common/worker-thread';
import { copyIn } from '../database/copy-in';
import { deflatesWell, packPiece } from './column-codec';
import { COPY_HEADER, COPY_TRAILER } from './column-copy';
import type { RowCuts } from './table-parser';

/**
 * Long number columns are written in pieces while their file is still being parsed, so that the database's work
 * (most of it splitting each stored value into TOAST chunks) runs beside the parse instead of after it: a
 * 438 MB CSV's columns took 3.6 s to write after a 5 s parse. Each piece holds PIECE_ROWS values (1 MiB; the
 * last one the rest), deflated or raw as the column's first piece shows (packPiece), none of its blocks marked
 * final; the column's dataset_columns.data is then packed from no values (an empty final block), so the pieces
 * and the data in order are one deflate stream: readers concatenate them (datasets.queries.ts). A build writes its pieces from a thread of its own
 * (PieceThread) under a key of its own (`build`) and its task, seen by no reader, each cut committed on its own;
 * the transaction that writes the dataset attaches them (attachPieces), and a failed or repeated build's are
 * deleted (dropLoosePieces). A file of fewer rows is never cut: its columns are written as before.
 */
export const PIECE_ROWS = 131072;

/** Where a build's pieces go: its own key (a UUID) and its task. */
export interface PieceTarget {
  build: string;
  taskId: string;
}

const SCRIPT = workerScript(__dirname, __filename, 'column-pieces.worker');

/**
 * A cut of the rows as sent to the writing thread: each column's `length` values at `offset` bytes of `buffer`, the
 * parse's own memory when it is shared (read in place), else a copy of its own (handed back once written).
 */
export interface PieceMessage {
  piece: number;
  columns: { idx: number; buffer: ArrayBuffer | SharedArrayBuffer; offset: number; length: number }[];
}

/**
 * Writes a build's pieces over a connection of its own, one COPY per cut of the rows, one after the other;
 * `written` is called once each is in. `done` waits for them all and rejects with the first failure.
 */
export class PieceWriter {
  private client: Promise<PoolClient> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private readonly build: Buffer;
  /** Whether each column's pieces are deflated (decided on its first), and their stored bytes so far. */
  private readonly deflated = new Map<number, boolean>();
  private readonly bytes = new Map<number, number>();

  constructor(
    private readonly pool: Pool,
    private readonly target: PieceTarget,
  ) {
    if (!/^\d+$/.test(target.taskId)) throw new Error(`not a task key: ${target.taskId}`);
    this.build = Buffer.from(target.build.replace(/-/g, ''), 'hex');
  }

  write(piece: number, columns: { idx: number; values: Float64Array }[], written: () => void): void {
    this.writing = this.writing
      .then(async () => {
        if (this.failure) return;
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
      })
      .finally(written);
  }

  private async *tuples(piece: number, columns: { idx: number; values: Float64Array }[]): AsyncGenerator<Uint8Array | Uint8Array[]> {
    yield COPY_HEADER;
    for (const { idx, values } of columns) {
      const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
      // deflated or raw as the column's first piece shows (packColumn's rule): measurements with many digits barely shrink
      let deflated = this.deflated.get(idx);
      if (deflated === undefined) this.deflated.set(idx, (deflated = deflatesWell(bytes)));
      const stored = packPiece(bytes, deflated);
      const size = stored.reduce((n, p) => n + p.length, 0);
      this.bytes.set(idx, (this.bytes.get(idx) ?? 0) + size);
      const head = Buffer.allocUnsafe(2 + 4 + 16 + 4 + 8 + 4 + 4 + 4 + 4 + 4);
      let at = head.writeInt16BE(5, 0);
      at = head.writeInt32BE(16, at);
      at += this.build.copy(head, at);
      at = head.writeInt32BE(8, at);
      at = head.writeBigInt64BE(BigInt(this.target.taskId), at);
      at = head.writeInt32BE(4, at);
      at = head.writeInt32BE(idx, at);
      at = head.writeInt32BE(4, at);
      at = head.writeInt32BE(piece, at);
      head.writeInt32BE(size, at);
      // one message a tuple, its parts written in one go (views of the values where they are raw, not copied)
      yield [head, ...stored];
    }
    yield COPY_TRAILER;
  }

  /** Waits for every piece to be written, then gives each column's stored bytes; rejects with the first failure. Lets the connection go. */
  async done(): Promise<Map<number, number>> {
    await this.writing;
    const client = this.client;
    this.client = undefined;
    if (client) (await client.catch(() => undefined))?.release(this.failure);
    if (this.failure) throw this.failure;
    return this.bytes;
  }
}

/** Cuts sent to the writing thread and not yet written: bounds the writing behind the parse (and the copies held, of arrays not in shared memory). */
const IN_FLIGHT = 3;

/** What the writing thread posts: the copies it is done with (after each cut), then its outcome once told the parse is over. */
export type PieceThreadOutput = { free: ArrayBuffer[] } | { ok: true; bytes: [number, number][] } | { ok: false; message: string };

/**
 * The RowCuts of a build, written by a thread of their own (column-pieces.worker.ts, a PieceWriter): the parse
 * thread goes on parsing while the database takes each cut. Columns whose values are in shared memory (the
 * parser's, table-parser.ts) are read in place by the writer: the rows of a cut are never written again, and the
 * parse only adds rows after them (copying them into buffers the writer handed back cost the parse thread
 * 0.36 s and ~140 MB for a 438 MB file); other arrays are copied. take() waits only when IN_FLIGHT cuts are not
 * written yet. The thread starts at the first cut: a short file's build starts none.
 */
export class PieceThread {
  /** The thread and its outcome, from the first cut on: a file that is never cut starts no thread. */
  private started: { worker: Worker; outcome: Promise<Map<number, number>> } | undefined;
  private free: ArrayBuffer[] = [];
  private inFlight = 0;
  private room: (() => void) | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly target: PieceTarget,
  ) {}

  private start(): { worker: Worker; outcome: Promise<Map<number, number>> } {
    const worker = new Worker(SCRIPT, { workerData: { databaseUrl: this.databaseUrl, target: this.target } });
    const outcome = new Promise<Map<number, number>>((resolve, reject) => {
      worker.on('message', (m: PieceThreadOutput) => {
        if ('free' in m) {
          this.free.push(...m.free);
          this.inFlight--;
          this.room?.();
        } else if (m.ok) resolve(new Map(m.bytes));
        else reject(new Error(m.message));
      });
      worker.once('error', reject);
      worker.once('exit', (code: number) => reject(new Error(`the piece writer exited with code ${code}`)));
    });
    outcome.catch(() => this.room?.()); // raised by done(); a waiting take() goes on
    return { worker, outcome };
  }

  cuts(): RowCuts {
    return {
      rows: PIECE_ROWS,
      take: (piece, columns) => this.take(piece, columns),
    };
  }

  private async take(piece: number, columns: { idx: number; values: Float64Array }[]): Promise<void> {
    const { worker, outcome } = (this.started ??= this.start());
    const sent = columns.map(({ idx, values }) => {
      if (values.buffer instanceof SharedArrayBuffer)
        return { idx, buffer: values.buffer, offset: values.byteOffset, length: values.length };
      let buffer = this.free.pop();
      if (!buffer || buffer.byteLength < values.byteLength) buffer = new ArrayBuffer(PIECE_ROWS * 8);
      new Float64Array(buffer).set(values);
      return { idx, buffer, offset: 0, length: values.length };
    });
    this.inFlight++;
    worker.postMessage({ piece, columns: sent } satisfies PieceMessage, buffersOf(sent.map((c) => new Uint8Array(c.buffer))));
    while (this.inFlight >= IN_FLIGHT) {
      const failed = await Promise.race([
        outcome.then(
          () => false,
          () => true,
        ),
        new Promise<boolean>((r) => (this.room = () => r(false))),
      ]);
      this.room = undefined;
      if (failed) return;
    }
  }

  /**
   * Waits for every piece to be written (rejects with the writer's failure), then ends the thread; resolves with
   * each column's stored bytes (by idx).
   */
  async done(): Promise<Map<number, number>> {
    if (!this.started) return new Map();
    const { worker, outcome } = this.started;
    worker.postMessage({ end: true });
    try {
      return await outcome;
    } finally {
      await worker.terminate();
    }
  }
}

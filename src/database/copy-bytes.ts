import type { Pool, PoolClient } from 'pg';

/**
 * The bytes of a one-column bytea query, values concatenated in order, read with
 * `COPY (query) TO STDOUT (FORMAT binary)` on a connection of its own. A plain SELECT returns bytea as hex
 * text (node-postgres decodes every DataRow field as UTF-8 text, and its `binary: true` result mode does
 * the same, which would mangle bytes that are not UTF-8): twice the bytes on the wire, a string of twice
 * the chunk's size on the heap, then decoded. A COPY's CopyData messages reach the client as raw bytes.
 *
 * The pieces are copied into buffers of `pieceBytes` (the last one shorter), each yielded once full; the
 * connection's socket is paused while `aheadPieces` wait unread, so memory stays bounded whatever the size.
 * A caller done with a full piece may put it in `spare`: it is filled again rather than a new one allocated
 * (each new large buffer counts towards V8's external memory, and GCs follow).
 * `query` must be fixed SQL with its values written in (COPY takes no parameters). Stopping the iteration
 * early, or a failure, closes the connection (a COPY cannot be stopped halfway otherwise).
 */
export async function* copyBytes(
  pool: Pool,
  query: string,
  pieceBytes: number,
  aheadPieces = 2,
  spare: Buffer[] = [],
): AsyncGenerator<Buffer> {
  const client = await pool.connect();
  const copy = new CopyOut(`COPY (${query}) TO STDOUT (FORMAT binary)`, pieceBytes, spare);
  const stream = (client as PoolClient & { connection: { stream: NodeJS.ReadableStream } }).connection.stream;
  let wake: (() => void) | undefined;
  copy.onProgress = () => {
    if (copy.ready.length >= aheadPieces) stream.pause();
    wake?.();
    wake = undefined;
  };
  let clean = false;
  try {
    void client.query(copy as never);
    for (;;) {
      while (!copy.ready.length && !copy.done && !copy.failure) await new Promise<void>((r) => (wake = r));
      if (copy.failure) throw copy.failure;
      const piece = copy.ready.shift();
      if (piece) {
        if (copy.ready.length < aheadPieces) stream.resume();
        yield piece;
      } else if (copy.done) break;
    }
    clean = true;
  } finally {
    if (!clean) stream.resume();
    // a COPY left halfway (or a failed one) leaves the connection unusable: it is closed, not pooled again
    client.release(clean ? undefined : (copy.failure ?? new Error('COPY stopped early')));
  }
}

/** PostgreSQL's binary COPY header: signature, flags, header extension length. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = SIGNATURE.length + 8;

/**
 * A node-postgres Submittable that runs a binary COPY TO STDOUT of one bytea column and unpacks its tuples
 * (int16 field count, int32 length, the bytes) as the CopyData messages arrive, whatever their boundaries.
 */
export class CopyOut {
  readonly ready: Buffer[] = [];
  done = false;
  failure: Error | undefined;
  onProgress: () => void = () => undefined;

  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerFill = 0;
  private skip = 0;
  /** The current tuple's field count and length, as they arrive. */
  private readonly tuple = Buffer.alloc(6);
  private tupleFill = 0;
  /** Bytes of the current value still to come. */
  private remaining = 0;
  private trailer = false;
  private piece: Buffer | undefined;
  private pieceFill = 0;

  constructor(
    private readonly text: string,
    private readonly pieceBytes: number,
    /** Full pieces the caller is done with, to fill again. */
    private readonly spare: Buffer[] = [],
  ) {}

  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }

  handleCopyData(msg: { chunk: Buffer }): void {
    if (this.failure) return;
    try {
      this.unpack(msg.chunk);
    } catch (e) {
      this.failure = e as Error;
    }
    this.onProgress();
  }

  handleCommandComplete(): void {
    if (!this.failure && (!this.trailer || this.remaining > 0 || this.tupleFill > 0)) this.failure = new Error('the COPY ended early');
    if (this.piece && this.pieceFill > 0) this.ready.push(this.piece.subarray(0, this.pieceFill));
    this.piece = undefined;
  }

  handleReadyForQuery(): void {
    this.done = true;
    this.onProgress();
  }

  handleError(e: Error): void {
    this.failure ??= e;
    this.onProgress();
  }

  // not part of a COPY: answered as the failures they would be
  handleRowDescription(): void {
    this.failure ??= new Error('not a COPY');
  }
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {
    this.failure ??= new Error('not a COPY TO');
  }

  private unpack(data: Buffer): void {
    let i = 0;
    while (i < data.length) {
      if (this.headerFill < HEADER_BYTES) {
        const take = Math.min(HEADER_BYTES - this.headerFill, data.length - i);
        data.copy(this.header, this.headerFill, i, i + take);
        this.headerFill += take;
        i += take;
        if (this.headerFill === HEADER_BYTES) {
          if (!this.header.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error('not a binary COPY');
          this.skip = this.header.readUInt32BE(SIGNATURE.length + 4);
        }
      } else if (this.skip > 0) {
        const take = Math.min(this.skip, data.length - i);
        this.skip -= take;
        i += take;
      } else if (this.remaining > 0) {
        const take = Math.min(this.remaining, data.length - i);
        this.put(data, i, take);
        this.remaining -= take;
        i += take;
      } else if (this.trailer) {
        throw new Error('data after the end of the COPY');
      } else {
        this.tuple[this.tupleFill++] = data[i++];
        if (this.tupleFill === 2) {
          const fields = this.tuple.readInt16BE(0);
          if (fields === -1) {
            this.trailer = true;
            this.tupleFill = 0;
          } else if (fields !== 1) throw new Error(`a COPY tuple of ${fields} fields, not 1`);
        } else if (this.tupleFill === 6) {
          const length = this.tuple.readInt32BE(2);
          if (length < 0) throw new Error('a NULL value in the COPY');
          this.remaining = length;
          this.tupleFill = 0;
        }
      }
    }
  }

  /** Copies bytes into the current piece (the message's buffer is the driver's, reused after this call). */
  private put(data: Buffer, from: number, length: number): void {
    while (length > 0) {
      this.piece ??= this.spare.pop() ?? Buffer.allocUnsafeSlow(this.pieceBytes);
      const take = Math.min(length, this.pieceBytes - this.pieceFill);
      data.copy(this.piece, this.pieceFill, from, from + take);
      this.pieceFill += take;
      from += take;
      length -= take;
      if (this.pieceFill === this.pieceBytes) {
        this.ready.push(this.piece);
        this.piece = undefined;
        this.pieceFill = 0;
      }
    }
  }
}

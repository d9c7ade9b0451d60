import type { ClientBase } from 'pg';
import type { Writable } from 'node:stream';
import { drainedOrClosed } from '../common/drained';

/** Largest CopyData message sent: a longer piece goes as several (views, not copies). */
const MESSAGE_BYTES = 1 << 20;

/** The part of node-postgres's Connection a COPY FROM STDIN writes to. */
interface CopyConnection {
  stream: Writable;
  query(text: string): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

/**
 * Runs `sql`, a `COPY ... FROM STDIN`, on `client` (inside its transaction when it is in one) with the bytes
 * of `source` as its data, in order: each piece goes to the socket as it is (a CopyData message's header is
 * written before it, the piece itself is not copied; a list of pieces is one message, written in one go, for the
 * caller to keep modest), and the next is taken once the socket has room. A
 * failure of `source` cancels the COPY (CopyFail): it rejects with that error, the connection stays usable,
 * and its transaction must roll back. Resolves with the rows copied.
 */
export function copyIn(client: ClientBase, sql: string, source: AsyncIterable<Uint8Array | readonly Uint8Array[]>): Promise<number> {
  const copy = new CopyIn(sql, source);
  void client.query(copy as never);
  return copy.result;
}

/**
 * A node-postgres Submittable for COPY FROM STDIN. It settles only once its writer has stopped, so that no
 * CopyData of it can follow a later query on the connection.
 */
class CopyIn {
  readonly result: Promise<number>;
  private settle!: { resolve: (rows: number) => void; reject: (e: Error) => void };
  private writing: Promise<void> = Promise.resolve();
  /** The server's error (the COPY failed there, or the connection broke): the writer stops sending. */
  private serverFailure: Error | undefined;
  /** The source's error: the COPY was cancelled with it. */
  private sourceFailure: Error | undefined;
  private rows = 0;
  private settled = false;
  /** Aborted once the server failed the COPY: a writer waiting for room stops waiting. */
  private readonly stopped = new AbortController();

  constructor(
    private readonly text: string,
    private readonly source: AsyncIterable<Uint8Array | readonly Uint8Array[]>,
  ) {
    this.result = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    this.writing = this.write(connection);
  }

  handleCommandComplete(msg: { text?: string }): void {
    this.rows = Number(/(\d+)$/.exec(msg.text ?? '')?.[1] ?? 0);
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  handleError(e: Error): void {
    this.serverFailure ??= e;
    this.stopped.abort();
    // the server answers an error in a COPY with ReadyForQuery, a broken connection never does: either way
    // this settles once the writer has stopped
    this.finish();
  }

  // not part of a COPY FROM: answered as the failures they would be
  handleRowDescription(): void {
    this.serverFailure ??= new Error('not a COPY FROM');
  }
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {
    this.serverFailure ??= new Error('not a COPY FROM');
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    void this.writing.then(() => {
      const failure = this.sourceFailure ?? this.serverFailure;
      if (failure) this.settle.reject(failure);
      else this.settle.resolve(this.rows);
    });
  }

  private async write(connection: CopyConnection): Promise<void> {
    const stream = connection.stream;
    try {
      for await (const piece of this.source) {
        if (piece instanceof Uint8Array) {
          for (let from = 0; from < piece.length && !this.serverFailure; from += MESSAGE_BYTES) {
            const part = piece.subarray(from, from + MESSAGE_BYTES);
            this.send(stream, [part]);
            await this.room(stream);
          }
        } else {
          // a list of pieces: one message whatever its length (a tuple and its parts, none copied into one buffer)
          this.send(stream, piece);
          await this.room(stream);
        }
        if (this.serverFailure) return; // it drops whatever else comes for this COPY
      }
      connection.endCopyFrom();
    } catch (e) {
      this.sourceFailure = e instanceof Error ? e : new Error(String(e));
      // the server logs this text: the reason stays here
      if (!this.serverFailure) connection.sendCopyFail('the data source failed');
    }
  }

  /** One CopyData message of `parts`, written in one go. */
  private send(stream: Writable, parts: readonly Uint8Array[]): void {
    const header = Buffer.allocUnsafe(5);
    header[0] = 0x64; // 'd', CopyData
    header.writeInt32BE(
      parts.reduce((n, p) => n + p.length, 4),
      1,
    );
    stream.cork();
    stream.write(header);
    for (const part of parts) stream.write(part);
    stream.uncork();
  }

  /** Waits until `stream` can take more, or the COPY cannot go on; notes a socket that closed. */
  private async room(stream: Writable): Promise<void> {
    if (stream.writableNeedDrain) await drainedOrClosed(stream, this.stopped.signal);
    if (stream.destroyed) this.serverFailure ??= new Error('the connection closed during a COPY');
  }
}

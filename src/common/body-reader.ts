import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-error';
import { Codes } from './error-codes';

const ABANDON_GRACE_MS = 2000;

/**
 * Reads a request body piece by piece. Waiting more than `idleMs` for the next piece fails with
 * badRequest-1-0-8, a client that goes away with badRequest-1-0-4. The clock runs only while this
 * waits on the client, never while the caller stores what it got.
 *
 * Unlike `for await (… of req)`, a failure does not destroy the request (which would destroy the socket
 * before the error envelope is written): `abandon()` asks Node to close the connection after the answer.
 */
export class BodyReader {
  private failure: Error | undefined;
  private ended = false;
  private wake: (() => void) | undefined;
  private readonly onReadable: () => void;

  constructor(
    private readonly req: IncomingMessage,
    private readonly idleMs: number,
  ) {
    const wake = () => this.wake?.();
    this.onReadable = wake;
    req.on('readable', wake);
    req.on('end', () => {
      this.ended = true;
      wake();
    });
    const aborted = () => {
      if (this.ended) return;
      this.failure ??= new ApiError(Codes.MalformedBody, 'the upload was interrupted');
      wake();
    };
    req.on('error', aborted);
    req.on('aborted', aborted);
    req.on('close', aborted);
  }

  /** The next piece of the body, or null at its end. */
  async next(): Promise<Buffer | null> {
    for (;;) {
      if (this.failure) throw this.failure;
      const piece = this.req.read() as Buffer | null;
      if (piece !== null) return piece;
      if (this.ended) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.failure ??= new ApiError(
            Codes.BodyStalled,
            `nothing was received for ${Math.round(this.idleMs / 1000)} s: the upload is cut`,
          );
          resolve();
        }, this.idleMs);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  /**
   * The rest of the body will not be read: the answer closes the connection, and Node discards what
   * still arrives until then (bounded by the socket, never buffered whole).
   */
  abandon(): void {
    const res = (this.req as IncomingMessage & { res?: ServerResponse }).res;
    if (res && !res.headersSent) res.setHeader('Connection', 'close');
    // a client that keeps sending after the answer is cut off a little later (time to read the answer)
    res?.once('finish', () => setTimeout(() => this.req.socket?.destroy(), ABANDON_GRACE_MS).unref());
    this.req.off('readable', this.onReadable); // resume() does nothing while a 'readable' listener is attached
    this.req.resume();
  }
}

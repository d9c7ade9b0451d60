import type * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { ApiError } from '../common/api-error';
import { BodyReader } from '../common/body-reader';
import { Codes } from '../common/error-codes';

/** The part of busboy's interface used here (the package ships no types; @types/busboy is not installed). */
export interface FileStream extends Readable {
  truncated?: boolean;
}
export type Busboy = Writable & {
  on(event: 'field', listener: (name: string, value: string, info: { valueTruncated: boolean }) => void): Busboy;
  on(event: 'file', listener: (name: string, stream: FileStream, info: { filename?: string }) => void): Busboy;
  on(event: 'filesLimit' | 'fieldsLimit' | 'partsLimit' | 'close', listener: () => void): Busboy;
  on(event: 'error', listener: (e: unknown) => void): Busboy;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const busboy = require('busboy') as (config: {
  headers: IncomingMessage['headers'];
  limits: { files: number; fields: number; fieldSize: number; parts: number; fileSize: number };
}) => Busboy;

/** A busboy parser of `req`'s body (badRequest-1-0-4 when it is not multipart with a boundary). */
export function openMultipart(
  req: IncomingMessage,
  limits: { files: number; fields: number; fieldSize: number; parts: number; fileSize: number },
): Busboy {
  try {
    return busboy({ headers: req.headers, limits });
  } catch {
    throw new ApiError(Codes.MalformedBody, 'the body must be multipart/form-data with a boundary');
  }
}

/**
 * What the image forms share while busboy reads a body: the cut of a body silent for `idleMs`
 * (badRequest-1-0-8), and `fail`, which ends the read once: it stops the parser, closes the file part's spool
 * stream if it has one (never finished: the caller removes the file), lets the rest of the body drain and rejects.
 */
export class MultipartRead {
  /** the file part once it has started, and its spool stream once it has one */
  streams?: { part: FileStream; out?: fs.WriteStream };
  private idle?: NodeJS.Timeout;
  private failed = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly parser: Busboy,
    private readonly idleMs: number,
    private readonly reject: (e: Error) => void,
  ) {}

  readonly resetIdle = (): void => {
    clearTimeout(this.idle);
    this.idle = setTimeout(
      () => this.fail(new ApiError(Codes.BodyStalled, `nothing was received for ${Math.round(this.idleMs / 1000)} s: the upload is cut`)),
      this.idleMs,
    );
  };

  readonly fail = (e: unknown): void => {
    if (this.failed) return;
    this.failed = true;
    this.stop();
    this.req.unpipe(this.parser);
    this.parser.removeAllListeners('file');
    this.parser.removeAllListeners('field');
    this.streams?.part.unpipe();
    this.streams?.part.removeAllListeners('data');
    this.streams?.part.resume();
    this.streams?.out?.destroy();
    new BodyReader(this.req, this.idleMs).abandon();
    this.reject(e instanceof Error ? e : new Error(String(e)));
  };

  /** Starts the read: the idle cut, an interrupted upload, and the body piped into the parser. */
  start(): void {
    this.req.on('data', this.resetIdle);
    this.req.on('aborted', () => this.fail(new ApiError(Codes.MalformedBody, 'the upload was interrupted')));
    this.resetIdle();
    this.req.pipe(this.parser);
  }

  /** Ends the idle cut (the body is complete, or the read failed). */
  stop(): void {
    clearTimeout(this.idle);
  }

  /**
   * Ends the spool file's stream, if one was opened, and resolves once the file is closed: a stream destroyed while
   * its file is still being opened creates the file after that, so a removal must wait for this.
   */
  async release(): Promise<void> {
    const out = this.streams?.out;
    if (!out || out.closed) return;
    const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
    out.destroy();
    await closed;
  }
}

import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { spoolFailure, spoolPath } from '../common/spool';
import { FileStream, MultipartRead, openMultipart } from './multipart';

const MAX_FIELD_BYTES = 64 * 1024;

/**
 * An image of up to this many bytes is kept in memory as it arrives; the bytes of a larger one go to a spool file
 * from the first byte past it. Writing, reading back and removing a spool file cost an add of a 256 x 256 image more
 * CPU than its database writes; a stalled body holds at most this much memory, under the user's upload slots.
 */
export const IN_MEMORY_IMAGE_BYTES = 1024 * 1024;

export interface AddFormOptions {
  /** Bytes the `file` part may have (badRequest-1-0-3 beyond). */
  fileLimit: number;
  /** A body that sends nothing for this long is cut (badRequest-1-0-8). */
  idleMs: number;
  /** Where a file part over IN_MEMORY_IMAGE_BYTES is spooled while the body arrives. */
  spoolDir: string;
}

/** The fields of the form, and its file part, in memory or spooled to disk (remove the spool file with `discard`). */
export interface AddForm {
  fields: Record<string, string>;
  file?: { name: string; read: () => Promise<Buffer> };
  discard: () => Promise<void>;
}

/** The spool file of the part could not be written: `error` is what the request answers (spoolFailure). */
class SpoolFault extends Error {
  constructor(readonly error: Error) {
    super(error.message);
  }
}

/** busboy's own words for a broken body, in ours. */
function busboyFault(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  if (/Unexpected end of (form|file)/.test(text)) return 'the multipart body ended before its closing boundary';
  if (/Malformed part header/.test(text)) return 'a multipart part header is malformed';
  return 'malformed multipart body';
}

/**
 * The file part as it arrives: in memory up to IN_MEMORY_IMAGE_BYTES, then in the spool file `spool` (the bytes
 * held so far written first, the part paused while the file catches up). `done` settles when the part has ended and
 * its bytes are all held or written.
 */
class FilePart {
  size = 0;
  out?: fs.WriteStream;
  readonly done: Promise<void>;
  private chunks: Buffer[] = [];

  constructor(
    part: FileStream,
    private readonly spool: string,
    onSpool: (out: fs.WriteStream) => void,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      part.on('error', reject);
      part.on('data', (d: Buffer) => {
        this.size += d.length;
        if (!this.out && this.size <= IN_MEMORY_IMAGE_BYTES) {
          this.chunks.push(d);
          return;
        }
        if (!this.out) {
          this.out = fs.createWriteStream(spool, { flags: 'wx', mode: 0o600 });
          this.out.on('error', (e) => reject(new SpoolFault(spoolFailure(e, spool))));
          onSpool(this.out);
          for (const held of this.chunks) this.out.write(held);
          this.chunks = [];
        }
        if (!this.out.write(d)) {
          part.pause();
          this.out.once('drain', () => part.resume());
        }
      });
      part.on('end', () => {
        if (!this.out) return resolve();
        this.out.on('finish', resolve);
        this.out.end();
      });
    });
  }

  read(): Promise<Buffer> {
    if (this.out) return fs.promises.readFile(this.spool);
    return Promise.resolve(this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size));
  }
}

/**
 * Reads the multipart body of `POST /image/:taskId/add` (busboy, as readInitForm does): its fields in memory
 * (64 KiB each at most), its file part in memory up to IN_MEMORY_IMAGE_BYTES and streamed to a spool file beyond,
 * so a large image is never held in memory while it arrives; a body silent for `idleMs` is cut, a file over
 * `fileLimit` refused as it streams. The caller reads the image once the body is complete, and removes a spool
 * file with `discard`.
 */
export async function readAddForm(req: IncomingMessage, options: AddFormOptions): Promise<AddForm> {
  const parser = openMultipart(req, { files: 1, fields: 4, fieldSize: MAX_FIELD_BYTES, parts: 6, fileSize: options.fileLimit });
  const spool = spoolPath(options.spoolDir, 'add');
  let part: FilePart | undefined;
  const discard = async () => {
    if (!part?.out) return;
    await read.release();
    await fs.promises.rm(spool, { force: true });
  };
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let file: AddForm['file'];
  let read!: MultipartRead;
  const parsed = new Promise<void>((resolve, reject) => {
    read = new MultipartRead(req, parser, options.idleMs, reject);
    const fail = read.fail;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new ApiError(Codes.MalformedBody, 'a multipart field value is over 64 KiB'));
      if (Object.hasOwn(fields, name)) return fail(new ApiError(Codes.MalformedBody, `the field ${name.slice(0, 40)} was sent twice`));
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        stream.resume();
        return fail(new ApiError(Codes.MalformedBody, 'a file part must be named file'));
      }
      if (part) {
        stream.resume();
        return fail(new ApiError(Codes.MalformedBody, 'send one file part only'));
      }
      stream.on('limit', () => fail(new ApiError(Codes.BodyTooLarge, `the image is larger than ${options.fileLimit} bytes`)));
      read.streams = { part: stream };
      const held = new FilePart(stream, spool, (out) => (read.streams = { part: stream, out }));
      part = held;
      file = { name: info?.filename ?? 'image', read: () => held.read() };
      // the spool file's failure as it is (spoolFailure); the part's own, a broken body
      held.done.catch((e: unknown) => fail(e instanceof SpoolFault ? e.error : new ApiError(Codes.MalformedBody, busboyFault(e))));
    });
    parser.on('filesLimit', () => fail(new ApiError(Codes.MalformedBody, 'send one file part only')));
    parser.on('fieldsLimit', () => fail(new ApiError(Codes.MalformedBody, 'the multipart body has too many fields')));
    parser.on('partsLimit', () => fail(new ApiError(Codes.MalformedBody, 'the multipart body has too many parts')));
    parser.on('error', (e) => fail(new ApiError(Codes.MalformedBody, busboyFault(e))));
    parser.on('close', resolve);
    read.start();
  });
  try {
    await parsed;
    if (part) await part.done;
    return { fields, file, discard };
  } catch (e) {
    await discard();
    throw e instanceof SpoolFault ? e.error : e;
  } finally {
    read.stop();
  }
}

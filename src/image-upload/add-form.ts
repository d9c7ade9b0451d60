import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { spoolPath } from '../common/spool';
import { MultipartRead, openMultipart } from './multipart';

const MAX_FIELD_BYTES = 64 * 1024;

export interface AddFormOptions {
  /** Bytes the `file` part may have (badRequest-1-0-3 beyond). */
  fileLimit: number;
  /** A body that sends nothing for this long is cut (badRequest-1-0-8). */
  idleMs: number;
  /** Where the file part is spooled while the body arrives. */
  spoolDir: string;
}

/** The fields of the form, and its file part spooled to disk (remove it with `discard`). */
export interface AddForm {
  fields: Record<string, string>;
  file?: { path: string; name: string; size: number };
  discard: () => Promise<void>;
}

/** busboy's own words for a broken body, in ours. */
function busboyFault(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  if (/Unexpected end of (form|file)/.test(text)) return 'the multipart body ended before its closing boundary';
  if (/Malformed part header/.test(text)) return 'a multipart part header is malformed';
  return 'malformed multipart body';
}

/**
 * Reads the multipart body of `POST /image/:taskId/add` (busboy, as readInitForm does): its fields in memory
 * (64 KiB each at most), its file part streamed to a spool file, so an image is never held in memory while it
 * arrives; a body silent for `idleMs` is cut, a file over `fileLimit` refused as it streams. The caller reads
 * the spool file once the body is complete, and removes it with `discard`.
 */
export async function readAddForm(req: IncomingMessage, options: AddFormOptions): Promise<AddForm> {
  const parser = openMultipart(req, { files: 1, fields: 4, fieldSize: MAX_FIELD_BYTES, parts: 6, fileSize: options.fileLimit });
  const spool = spoolPath(options.spoolDir, 'add');
  const discard = () => fs.promises.rm(spool, { force: true });
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let file: AddForm['file'];
  let spooled: Promise<void> | undefined;
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
      if (spooled) {
        stream.resume();
        return fail(new ApiError(Codes.MalformedBody, 'send one file part only'));
      }
      stream.on('limit', () => fail(new ApiError(Codes.BodyTooLarge, `the image is larger than ${options.fileLimit} bytes`)));
      const out = fs.createWriteStream(spool, { flags: 'wx', mode: 0o600 });
      read.streams = { part: stream, out };
      file = { path: spool, name: info?.filename ?? 'image', size: 0 };
      stream.on('data', (d: Buffer) => (file!.size += d.length));
      spooled = new Promise<void>((done, broke) => {
        out.on('finish', done);
        out.on('error', broke);
        stream.on('error', broke);
      });
      spooled.catch((e: unknown) => fail(new ApiError(Codes.MalformedBody, busboyFault(e))));
      stream.pipe(out);
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
    if (spooled) await spooled;
    return { fields, file, discard };
  } catch (e) {
    await discard();
    throw e;
  } finally {
    read.stop();
  }
}

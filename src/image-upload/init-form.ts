import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { spoolFailure, spoolPath } from '../common/spool';
import { MultipartRead, openMultipart } from './multipart';

export interface InitFormOptions<T> {
  /** Bytes the `file` part may have (badRequest-1-0-3 beyond). */
  fileLimit: number;
  /** A body that sends nothing for this long is cut (badRequest-1-0-8). */
  idleMs: number;
  /** Where the file part is spooled while the rest of the body arrives (removed before this returns). */
  spoolDir: string;
  /**
   * Called with the `attributes` field as soon as it has arrived, while the body is still being read:
   * a refusal (it throws) answers at once and reads no more of the body.
   */
  checkAttributes: (raw: string) => Promise<T>;
}

const MAX_ATTRIBUTES_BYTES = 64 * 1024;

/**
 * Reads the multipart body of `POST /image/initUpload` with busboy (multer's own parser, used directly
 * because multer hands the handler the body only once all of it has been read: a caller without
 * permission could make the service read, and hold, any number of large bodies). The file part streams
 * to a spool file on disk, so memory stays bounded whatever the body and whatever the order of the
 * parts; permission is checked as soon as the attributes are known, and a refusal ends the request.
 * Gives the checked attributes and the file's bytes (at most `fileLimit`, read once all is accepted).
 */
export async function readInitForm<T>(req: IncomingMessage, options: InitFormOptions<T>): Promise<{ checked: T; file: Buffer }> {
  const parser = openMultipart(req, { files: 1, fields: 4, fieldSize: MAX_ATTRIBUTES_BYTES, parts: 6, fileSize: options.fileLimit });
  const spool = spoolPath(options.spoolDir, 'init');
  let spooled: Promise<void> | undefined;
  let checking: Promise<T> | undefined;
  let read!: MultipartRead;
  const parsed = new Promise<void>((resolve, reject) => {
    read = new MultipartRead(req, parser, options.idleMs, reject);
    const fail = read.fail;
    parser.on('field', (name, value, info) => {
      if (name !== 'attributes') return fail(new ApiError(Codes.UnknownField, `unknown form field: ${name.slice(0, 40)}`));
      if (checking) return fail(new ApiError(Codes.MalformedBody, 'the attributes part was sent twice'));
      if (info.valueTruncated)
        return fail(new ApiError(Codes.BodyTooLarge, `the attributes part is larger than ${MAX_ATTRIBUTES_BYTES} bytes`));
      checking = options.checkAttributes(value);
      checking.catch(fail);
    });
    parser.on('file', (name, stream) => {
      if (name !== 'file' || spooled) {
        stream.resume();
        return fail(new ApiError(Codes.MalformedBody, `unexpected file part "${name.slice(0, 40)}": send one part named file`));
      }
      stream.on('limit', () => fail(new ApiError(Codes.BodyTooLarge, `the init file is larger than ${options.fileLimit} bytes`)));
      const out = fs.createWriteStream(spool, { flags: 'wx', mode: 0o600 });
      read.streams = { part: stream, out };
      spooled = new Promise<void>((done, broke) => {
        out.on('finish', done);
        out.on('error', (e) => broke(spoolFailure(e, spool)));
        stream.on('error', () => broke(new ApiError(Codes.MalformedBody, 'the file part could not be read')));
      });
      spooled.catch(fail);
      stream.pipe(out);
    });
    parser.on('filesLimit', () => fail(new ApiError(Codes.MalformedBody, 'only one file part may be sent')));
    parser.on('fieldsLimit', () => fail(new ApiError(Codes.UnknownField, 'too many form fields')));
    parser.on('partsLimit', () => fail(new ApiError(Codes.MalformedBody, 'too many form parts')));
    parser.on('error', () => fail(new ApiError(Codes.MalformedBody, 'malformed multipart body')));
    parser.on('close', resolve);
    read.start();
  });

  try {
    await parsed;
    read.stop();
    if (!checking) throw new ApiError(Codes.MissingField, 'the attributes part is required');
    const checked = await checking;
    if (!spooled) throw new ApiError(Codes.MissingField, 'the file part (the sample table, CSV) is required');
    await spooled;
    return { checked, file: await fs.promises.readFile(spool) };
  } finally {
    read.stop();
    await read.release();
    await fs.promises.rm(spool, { force: true });
  }
}

import { Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { ApiError } from '../common/api-error';
import { IN_MEMORY_IMAGE_BYTES, readAddForm } from './add-form';
import { readInitForm } from './init-form';

/**
 * Issue 41, finding 10: a spool disk with no room left answered badRequest-1-0-4 ("malformed multipart body") and
 * logged nothing. The disk's refusal is the service's: unavailable-1-0-1 to the client, an error line for the operator.
 * The disk is made full by a write stream that fails as a full disk does (ENOSPC): the form readers are driven by a
 * request of their own, no HTTP.
 */

const BOUNDARY = 'spoolboundary';

/** A multipart request of `fields` and one file part of `fileBytes` bytes. */
function request(fields: Record<string, string>, fileBytes: number): IncomingMessage {
  const body = new PassThrough();
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f.png"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  body.end(Buffer.concat([Buffer.from(parts.join('') + head), Buffer.alloc(fileBytes, 7), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]));
  return Object.assign(body, { headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } }) as unknown as IncomingMessage;
}

/** A write stream that fails as a full disk does. */
function fullDisk(): fs.WriteStream {
  const out = new Writable({
    write: (_chunk, _encoding, done) => done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })),
  });
  return out as unknown as fs.WriteStream;
}

describe('a spool disk with no room left', () => {
  let dir: string;
  let logged: unknown[];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-spool-'));
    logged = [];
    // the module itself (the form readers' `fs` reads its properties when called)
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    jest.spyOn(require('node:fs') as typeof fs, 'createWriteStream').mockImplementation(fullDisk);
    jest.spyOn(Logger.prototype, 'error').mockImplementation((m: unknown) => void logged.push(m));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const refusal = async (reading: Promise<unknown>) => {
    const e = await reading.then(
      () => undefined,
      (err: unknown) => err,
    );
    return e instanceof ApiError ? { code: e.code, message: e.message } : e;
  };

  it("refuses an image add's spooled image with unavailable-1-0-1 and logs it", async () => {
    const answer = await refusal(
      readAddForm(request({ sampleId: 's1' }, IN_MEMORY_IMAGE_BYTES + 1000), { fileLimit: 10 * 1048576, idleMs: 5000, spoolDir: dir }),
    );
    expect(answer).toEqual({ code: 'unavailable-1-0-1', message: 'the service has no room to receive the upload now: try again later' });
    expect(logged).toEqual([expect.objectContaining({ event: 'upload.spoolFailed', code: 'ENOSPC' })]);
  });

  it("refuses an image init's spooled file with unavailable-1-0-1 and logs it", async () => {
    const answer = await refusal(
      readInitForm(request({ attributes: '{}' }, 2000), {
        fileLimit: 10 * 1048576,
        idleMs: 5000,
        spoolDir: dir,
        checkAttributes: () => Promise.resolve({ projectId: '1', dto: {} as never }),
      }),
    );
    expect(answer).toEqual({ code: 'unavailable-1-0-1', message: 'the service has no room to receive the upload now: try again later' });
    expect(logged).toEqual([expect.objectContaining({ event: 'upload.spoolFailed', code: 'ENOSPC' })]);
  });
});

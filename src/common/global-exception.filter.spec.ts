import {
  ArgumentsHost,
  BadRequestException,
  ForbiddenException,
  Logger,
  NotFoundException,
  PayloadTooLargeException,
} from '@nestjs/common';
import { ApiError } from './api-error';
import { GlobalExceptionFilter } from './global-exception.filter';

function host() {
  const res = {
    statusCode: 0,
    body: undefined as unknown,
    headersSent: false,
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    json(body: unknown) {
      this.body = body;
      return this;
    },
    end() {
      return this;
    },
  };
  const req = { method: 'GET', path: '/api/public/v1/x' };
  const h = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => req }) } as unknown as ArgumentsHost;
  return { h, res };
}

describe('GlobalExceptionFilter', () => {
  const filter = new GlobalExceptionFilter();

  it('turns an ApiError into the error envelope with HTTP 200', () => {
    const { h, res } = host();
    filter.catch(new ApiError('notFound-100-1-1', 'unknown project'), h);
    expect([res.statusCode, res.body]).toEqual([200, { code: 'notFound-100-1-1', message: 'unknown project', status: 'error' }]);
  });

  it('keeps 403 and 404 for authorization failures and unknown routes', () => {
    const a = host();
    filter.catch(new ForbiddenException(), a.h);
    expect(a.res.statusCode).toBe(403);
    const b = host();
    filter.catch(new NotFoundException('Cannot GET /x'), b.h);
    expect(b.res.statusCode).toBe(404);
  });

  it('maps too-large bodies to badRequest-1-0-3', () => {
    const { h, res } = host();
    filter.catch(new PayloadTooLargeException(), h);
    expect([res.statusCode, (res.body as { code: string }).code]).toEqual([200, 'badRequest-1-0-3']);
  });

  it("answers a 400 from multer or busboy in our words, and any other 400 without the library's text", () => {
    const answer = (e: Error) => {
      const { h, res } = host();
      filter.catch(e, h);
      return [res.statusCode, res.body];
    };
    const envelope = (message: string) => [200, { code: 'badRequest-1-0-4', message, status: 'error' }];
    expect(answer(new BadRequestException('Unexpected file field'))).toEqual(envelope('a file part must be named file'));
    expect(answer(new BadRequestException('Multipart: Boundary not found'))).toEqual(
      envelope('the body must be multipart/form-data with a boundary'),
    );
    expect(answer(new BadRequestException('Unexpected end of form'))).toEqual(
      envelope('the multipart body ended before its closing boundary'),
    );
    expect(answer(new BadRequestException('Validation failed (numeric string is expected)'))).toEqual(envelope('malformed request'));
  });

  it('answers a deadlock or serialization failure PostgreSQL undid as service busy (retry), not 500', () => {
    const spy = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    for (const code of ['40P01', '40001']) {
      const { h, res } = host();
      filter.catch(Object.assign(new Error('deadlock detected'), { code }), h);
      expect([res.statusCode, res.body]).toEqual([
        200,
        { code: 'unavailable-1-0-1', message: 'the service is busy: try again shortly', status: 'error' },
      ]);
    }
    spy.mockRestore();
  });

  it('answers a database it cannot reach (pool wait, connect timeout, a cut connection, a server stopping) unavailable-1-0-1 with a log line, never 500', () => {
    const logged: unknown[] = [];
    const spy = jest.spyOn(Logger.prototype, 'warn').mockImplementation((m: unknown) => void logged.push(m));
    const faults = [
      new Error('timeout exceeded when trying to connect'),
      // a new connection slower than DB_POOL_WAIT_MS (the review's HTTP 500 in reserveImageAdd, its event loop held)
      new Error('Connection terminated due to connection timeout'),
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:54329'), { code: 'ECONNREFUSED', syscall: 'connect' }),
      Object.assign(new Error('connect ENOENT /data/pg/.s.PGSQL.54329'), { code: 'ENOENT', syscall: 'connect' }),
      Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      // TypeORM's QueryFailedError keeps the driver's error
      Object.assign(new Error('Query failed'), { driverError: Object.assign(new Error('x'), { code: '57P02' }) }),
    ];
    for (const fault of faults) {
      const { h, res } = host();
      filter.catch(fault, h);
      expect([fault.message, res.statusCode, (res.body as { code: string }).code]).toEqual([fault.message, 200, 'unavailable-1-0-1']);
    }
    spy.mockRestore();
    expect(logged).toHaveLength(faults.length);
    expect(logged[1]).toEqual({
      msg: 'database unavailable',
      method: 'GET',
      path: '/api/public/v1/x',
      error: 'Connection terminated due to connection timeout',
    });
    // a missing file is no database's fault
    const { h, res } = host();
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    filter.catch(Object.assign(new Error("ENOENT: no such file or directory, open '/x'"), { code: 'ENOENT', syscall: 'open' }), h);
    errors.mockRestore();
    expect(res.statusCode).toBe(500);
  });

  it('answers an unknown fault with 500 and a correlation id, logging the cause but not sending it', () => {
    const logged: unknown[] = [];
    const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation((m: unknown) => void logged.push(m));
    const { h, res } = host();
    filter.catch(new Error('relation "secret_table" does not exist'), h);
    spy.mockRestore();
    const body = res.body as { correlationId: string };
    expect(res.statusCode).toBe(500);
    expect(body).toEqual({
      statusCode: 500,
      message: 'Internal Server Error',
      correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
    });
    expect(JSON.stringify(body)).not.toContain('secret_table');
    expect(logged).toEqual([
      expect.objectContaining({ correlationId: body.correlationId, error: 'relation "secret_table" does not exist' }),
    ]);
  });
});

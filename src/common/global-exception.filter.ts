import { ArgumentsHost, Catch, ExceptionFilter, ForbiddenException, HttpException, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { ApiError } from './api-error';
import { Codes } from './error-codes';
import { API_PREFIX } from './api-prefix';
import { isDatabaseUnavailable } from './database-errors';

/** pg-pool's message when no connection came free within connectionTimeoutMillis. */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/**
 * The messages multer and busboy raise (Nest passes them on as 400s), in our words: a client reads what to send,
 * never a library's text. Anything else Nest refuses as 400 is a malformed request.
 */
const MULTIPART_FAULTS: Record<string, string> = {
  'Too many parts': 'the multipart body has too many parts',
  'Too many files': 'send one file part only',
  'Field name too long': 'a multipart field name is too long',
  'Field value too long': 'a multipart field value is over 64 KiB',
  'Too many fields': 'the multipart body has too many fields',
  'Unexpected file field': 'a file part must be named file',
  'Unexpected field': 'a file part must be named file',
  'Field name missing': 'a multipart part has no name',
  'Field name nesting too deep': 'a multipart field name is not valid',
  'Field name array index too large': 'a multipart field name is not valid',
  'Invalid field name': 'a multipart field name is not valid',
  'Multipart: Boundary not found': 'the body must be multipart/form-data with a boundary',
  'Malformed part header': 'a multipart part header is malformed',
  'Unexpected end of form': 'the multipart body ended before its closing boundary',
  'Unexpected end of file': 'the multipart body ended before its closing boundary',
};

/** SQLSTATEs of a transaction PostgreSQL undid and that succeeds when retried: deadlock_detected, serialization_failure. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);

interface BodyParserError {
  type?: string;
  status?: number;
  statusCode?: number;
}

/**
 * Turns every exception into the API's answer: ApiError -> error envelope with HTTP 200; authorization
 * failures -> 403; unknown routes -> 404; body-parser faults -> their error codes (HTTP 200);
 * anything else -> 500 with a correlation id in the log and nothing internal in the body.
 */
@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    if (res.headersSent) {
      res.end();
      return;
    }
    if (exception instanceof ApiError) {
      res.status(200).json({ code: exception.code, message: exception.message, status: 'error' });
      return;
    }
    if (exception instanceof Error && RETRYABLE_SQLSTATES.has((exception as { code?: unknown }).code as string)) {
      // PostgreSQL chose this transaction to undo (a deadlock, a serialization failure): the request may be retried
      this.logger.warn({ msg: 'transaction undone by PostgreSQL', method: req.method, path: req.path, error: exception.message });
      res.status(200).json({ code: Codes.ServiceBusy, message: 'the service is busy: try again shortly', status: 'error' });
      return;
    }
    if (isDatabaseUnavailable(exception)) {
      // every pooled connection stayed busy for DB_POOL_WAIT_MS, or the database could not be reached (down, restarting,
      // the connection cut): the request may be tried again, and the operator reads why
      const error = (exception as Error).message;
      this.logger.warn({ msg: 'database unavailable', method: req.method, path: req.path, error });
      const busy = error === POOL_WAIT_TIMEOUT;
      const message = busy ? 'the service is busy: try again shortly' : 'the service cannot reach its database: try again shortly';
      res.status(200).json({ code: Codes.ServiceBusy, message, status: 'error' });
      return;
    }
    const parserError = this.fromBodyParser(exception);
    if (parserError) {
      res.status(200).json({ code: parserError.code, message: parserError.message, status: 'error' });
      return;
    }
    if (exception instanceof HttpException && exception.getStatus() === 400 && /^Failed to decode param/.test(exception.message)) {
      // Nest could not percent-decode a path parameter (`/project/%`): as any other malformed path parameter
      const fileRoute = req.path.startsWith(`/${API_PREFIX}/file/`);
      const code = fileRoute ? Codes.BadFileId : Codes.MalformedId;
      res.status(200).json({ code, message: 'a path segment is not valid percent-encoding', status: 'error' });
      return;
    }
    if (exception instanceof ForbiddenException) {
      res.status(403).json({ statusCode: 403, message: 'Forbidden' });
      return;
    }
    if (exception instanceof HttpException && exception.getStatus() === 404) {
      res.status(404).json({ statusCode: 404, message: 'Not Found' });
      return;
    }
    if (exception instanceof HttpException && exception.getStatus() === 413) {
      res
        .status(200)
        .json({ code: Codes.BodyTooLarge, message: 'the image is over the size limit of the service (MAX_IMAGE_BYTES)', status: 'error' });
      return;
    }
    if (exception instanceof HttpException && exception.getStatus() === 400) {
      // Nest words them "<multer's message> - <field>" and "Multipart: <busboy's message>"
      const said = this.messageOf(exception).replace(/ - [^]*$/, '');
      const message = MULTIPART_FAULTS[said] ?? MULTIPART_FAULTS[said.replace(/^Multipart: /, '')] ?? 'malformed request';
      res.status(200).json({ code: Codes.MalformedBody, message, status: 'error' });
      return;
    }
    const correlationId = randomUUID();
    const err = exception instanceof Error ? exception : new Error(String(exception));
    this.logger.error({ msg: 'unhandled error', correlationId, method: req.method, path: req.path, error: err.message }, err.stack);
    res.status(500).json({ statusCode: 500, message: 'Internal Server Error', correlationId });
  }

  private fromBodyParser(exception: unknown): ApiError | undefined {
    const e = (exception instanceof HttpException ? exception.cause : exception) as BodyParserError | undefined;
    const type = e?.type;
    if (type === 'entity.too.large') return new ApiError(Codes.BodyTooLarge, 'request body too large');
    if (type === 'entity.parse.failed') return new ApiError(Codes.MalformedBody, 'malformed JSON body');
    if (type && (type.startsWith('encoding.') || type === 'charset.unsupported' || type === 'request.aborted')) {
      return new ApiError(Codes.MalformedBody, `unreadable body (${type})`);
    }
    return undefined;
  }

  private messageOf(exception: HttpException): string {
    const r = exception.getResponse();
    if (typeof r === 'string') return r;
    const m = (r as { message?: unknown }).message;
    return Array.isArray(m) ? m.join('; ') : typeof m === 'string' ? m : exception.message;
  }
}

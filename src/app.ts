import { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import express, { NextFunction, Request, Response } from 'express';
import pino from 'pino';
import { AppModule, AppModuleOptions, appControllers } from './app.module';
import { isUtf8 } from 'node:buffer';
import { httpLogging } from './common/logger';
import { Metrics } from './metrics/metrics.service';
import { httpMetrics, metricsRoute } from './metrics/metrics-http';
import { answerClientErrors } from './common/client-error';
import { ApiError } from './common/api-error';
import { Codes, ErrorCode } from './common/error-codes';
import { assertSafeJson, duplicateJsonKey, duplicateKeyMessage, jsonDepthExceeds, MAX_JSON_DEPTH, parseQueryString } from './common/text';
import { UsersService } from './auth/users.service';
import type { AuthedRequest } from './auth/auth-context';

import { API_PREFIX } from './common/api-prefix';
import { apiRoutes } from './openapi/routes';
import { buildOpenApiDocument } from './openapi/document';
import { checkDeclaredCodes, ResponseCheck } from './openapi/check-codes';

export { API_PREFIX };
const RAW_UPLOAD = /^\/api\/public\/v1\/file\/[^/]+\/upload$/;

/** A body refused before it is parsed, with the code and message it is answered with. */
class RefusedBody extends Error {
  constructor(
    readonly type: 'signet.refused',
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Checks the raw bytes before JSON.parse sees them: nesting deeper than MAX_JSON_DEPTH (which would
 * overflow the stack in validation) and a key given twice in one object (JSON.parse keeps the last silently) are
 * malformed; bytes that are not UTF-8 break the text rule.
 */
function verifyJsonBytes(_req: Request, _res: Response, buf: Buffer, encoding: string): void {
  if (jsonDepthExceeds(buf)) {
    throw new RefusedBody('signet.refused', Codes.MalformedBody, `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  const twice = duplicateJsonKey(buf);
  if (twice !== undefined) throw new RefusedBody('signet.refused', Codes.MalformedBody, duplicateKeyMessage('the JSON body', twice));
  if (/^utf-?8$/i.test(encoding) && !isUtf8(buf)) {
    throw new RefusedBody('signet.refused', Codes.WrongType, 'the JSON body is not valid UTF-8');
  }
}

/**
 * JSON body parsing whose faults become error envelopes (malformed or too deep: badRequest-1-0-4, too
 * large: -3), and the text rule on every string of the body and query (NUL, lone surrogate, length:
 * -1-0-6). A fault is not answered here but kept on the request for the AccessGuard, which answers it
 * after the token check (without a valid token: 403, as for any other request).
 */
function jsonBodies(limit: number, idleMs: number) {
  const parse = express.json({ limit, strict: true, verify: verifyJsonBytes });
  return (req: AuthedRequest, res: Response, next: NextFunction) => {
    const fault = (code: ErrorCode, message: string) => {
      req.bodyFault = new ApiError(code, message);
      req.body = undefined;
      next();
    };
    // A file upload's body is the file, whatever Content-Type the client sent: never parse it here.
    if (RAW_UPLOAD.test(req.path)) return next();
    let stalled = false;
    const idle = new IdleCut(idleMs, () => {
      // a body trickled a byte at a time held its socket for Node's 5 minutes: cut as uploads are
      stalled = true;
      res.status(200).set('Connection', 'close');
      res.json({
        code: Codes.BodyStalled,
        message: `nothing was received for ${Math.round(idleMs / 1000)} s: the request is cut`,
        status: 'error',
      });
      res.on('finish', () => req.socket.destroy());
    });
    parse(req, res, (err?: { type?: string; code?: ErrorCode; message?: string }) => {
      idle.stop(req);
      if (stalled) return;
      if (!err) {
        try {
          assertSafeJson(req.body);
          assertSafeJson(req.query, 'query');
        } catch (e) {
          if (e instanceof ApiError) return fault(e.code, e.message);
          throw e;
        }
        return next();
      }
      if (err.type === 'signet.refused' && err.code) return fault(err.code, err.message ?? '');
      if (err.type === 'entity.too.large') return fault(Codes.BodyTooLarge, `JSON body over ${limit} bytes`);
      return fault(Codes.MalformedBody, 'malformed JSON body');
    });
    // the parser reads the body from now on (it set the stream flowing in this tick), or it does not read it at all
    if (req.readableFlowing && !req.complete) idle.watch(req);
  };
}

/** Calls `onIdle` when a request body sends nothing for `ms`; each piece received starts the wait again. */
class IdleCut {
  private timer: NodeJS.Timeout | undefined;
  private readonly arm = () => {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onIdle, this.ms);
  };

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  watch(req: Request): void {
    req.on('data', this.arm);
    this.arm();
  }

  stop(req: Request): void {
    clearTimeout(this.timer);
    req.off('data', this.arm);
  }
}

export interface AppOptions extends AppModuleOptions {
  /** Tests: an error code not declared for its route answers HTTP 500 (src/openapi/check-codes.ts). */
  checkErrorCodes?: boolean;
  /** Tests, with checkErrorCodes: makes the check of every JSON answer against the document (HTTP 500 when it fails). */
  checkResponses?: (document: OpenAPIObject) => ResponseCheck;
}

/** Builds the HTTP application (not listening yet): middleware, global prefix, OpenAPI document and page. */
export async function createApp(options: AppOptions, logger?: LoggerService): Promise<INestApplication> {
  // Without a logger (tests) requests still get their id, and nothing is written.
  const root = options.logger ?? pino({ level: 'silent' });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ ...options, logger: root, http: true }), {
    bodyParser: false,
    logger: logger ?? false,
  });
  app.disable('x-powered-by');
  const server = app.getHttpServer();
  answerClientErrors(server);
  // beyond it Node closes new connections at once: idle sockets by the ten thousand exhausted the process's
  // file descriptors (then every request, PostgreSQL connections and spool files failed)
  server.maxConnections = options.config.maxConnections;
  app.set('query parser', parseQueryString);
  // req.ip: the connection's peer, or with TRUST_PROXY the client that trusted proxies name in X-Forwarded-For
  app.set('trust proxy', options.config.trustProxy);
  // First: every request gets its id and access line, including those refused by body parsing.
  app.use(httpLogging(root));
  if (options.config.metrics) {
    const metrics = app.get(Metrics);
    app.use(httpMetrics(metrics));
    // on the API's port only behind a token: the public port shows nothing of the service's insides to anyone
    if (options.config.metricsToken) app.use(metricsRoute(metrics, options.config.metricsToken));
  }
  const routes = apiRoutes(appControllers());
  // the answers' check needs the document, which is built below from the routes registered after this
  let checkResponse: ResponseCheck | undefined;
  if (options.checkErrorCodes) app.use(checkDeclaredCodes(routes, () => checkResponse));
  app.use(jsonBodies(options.config.maxJsonBodyBytes, options.config.uploadIdleSeconds * 1000));
  app.setGlobalPrefix(API_PREFIX);

  const document = buildOpenApiDocument(app, routes);
  if (options.checkErrorCodes && options.checkResponses) checkResponse = options.checkResponses(document);
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    yamlDocumentUrl: `${API_PREFIX}/openapi.yaml`,
  });
  await app.init();
  await app.get(UsersService).bootstrapAdmin();
  return app;
}

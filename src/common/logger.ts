import { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import pino from 'pino';
import { pinoHttp } from 'pino-http';

/**
 * Logs: pino underneath (JSON lines), nestjs-pino so that Nest's `Logger` writes through it and, inside a
 * request, carries that request's id. LOG_FORMAT=text prints the same lines readably (a tiny formatter:
 * pino-pretty would bring a dozen packages for this).
 */

type NestLevel = 'error' | 'warn' | 'log' | 'debug' | 'verbose';

/** LOG_LEVEL keeps Nest's names; pino calls `log` info and `verbose` trace. */
const PINO_LEVEL: Record<NestLevel, pino.Level> = { error: 'error', warn: 'warn', log: 'info', debug: 'debug', verbose: 'trace' };

/** A log field as text: strings and numbers as they are, anything else as JSON. */
function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** One readable line per JSON record: `time LEVEL [context] (reqId) message key=value ...`. */
export function textLine(record: Record<string, unknown>): string {
  const { time, level, context, reqId, msg, pid: _pid, hostname: _host, ...rest } = record;
  const head = [
    text(time),
    text(level).toUpperCase().padEnd(5),
    context ? `[${text(context)}]` : '',
    reqId ? `(${text(reqId)})` : '',
    text(msg),
  ].filter(Boolean);
  const tail = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [...head, ...tail].join(' ') + '\n';
}

/** A pino destination that turns each JSON line into a text line on stdout. */
function textDestination(out: NodeJS.WritableStream = process.stdout): pino.DestinationStream {
  return {
    write(line: string) {
      try {
        out.write(textLine(JSON.parse(line) as Record<string, unknown>));
      } catch {
        out.write(line);
      }
    },
  };
}

/**
 * The process's root logger. `destination` is for tests (JSON lines into memory); otherwise stdout,
 * written synchronously so that the lines of a process that exits are not lost.
 */
export function createRootLogger(format: 'json' | 'text', level: NestLevel, destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    level: PINO_LEVEL[level],
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // The level as its name ("info"), not pino's number: what people and most collectors expect.
    formatters: { level: (label) => ({ level: label }) },
  };
  const out = destination ?? (format === 'text' ? textDestination() : pino.destination({ dest: 1, sync: true }));
  return pino(options, out);
}

/**
 * Nest's own start-up chatter: a line per controller, per route (44 of them) and per module. Useful when
 * debugging the routing, noise in every start's log: written at `debug` instead of `info`.
 */
export const ROUTINE_NEST_CONTEXTS: ReadonlySet<string> = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader']);

/** Nest's LoggerService writing through `root` (and, inside a request, through that request's logger). */
export function nestLogger(root: pino.Logger): LoggerService {
  const params = { pinoHttp: { logger: root } };
  return routineAtDebug(new NestPinoLogger(new PinoLogger(params), params));
}

/** `inner`, with the `log` lines of ROUTINE_NEST_CONTEXTS written as `debug`. */
export function routineAtDebug(inner: LoggerService): LoggerService {
  // Nest calls log(message, context): the context is the last argument
  const routine = (params: unknown[]) => {
    const context = params[params.length - 1];
    return typeof context === 'string' && ROUTINE_NEST_CONTEXTS.has(context);
  };
  const pass =
    (level: 'error' | 'warn' | 'debug' | 'verbose' | 'fatal') =>
    (message: unknown, ...rest: unknown[]): unknown =>
      (inner[level] ?? inner.log).call(inner, message, ...rest);
  return {
    log: (message: unknown, ...rest: unknown[]): unknown =>
      routine(rest) && inner.debug ? inner.debug(message, ...rest) : inner.log(message, ...rest),
    error: pass('error'),
    warn: pass('warn'),
    debug: pass('debug'),
    verbose: pass('verbose'),
    fatal: pass('fatal'),
  };
}

/** X-Request-Id taken from the client when it is a sane token; anything else is replaced by a new id. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** The code of each error envelope sent, by response, for its access line. */
const ERROR_CODES = new WeakMap<ServerResponse, string>();

/**
 * Notes the code of the error envelope (HTTP 200) the response sends, whoever sends it (the exception filter,
 * the body parser's stall cut ...), for the access line.
 */
function noteErrorCode(res: Response): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const b = body as { status?: unknown; code?: unknown } | null;
    if (b && typeof b === 'object' && b.status === 'error' && typeof b.code === 'string') ERROR_CODES.set(res, b.code);
    return json(body);
  };
}

/**
 * The routes clients and orchestrators ask again and again (a task's, analysis' or prediction's status while it runs,
 * the health probes): their successful answers' access lines are written at `debug`, or a short run's log is mostly
 * polls (276 of its lines in one). An error answer still gets its `info` line.
 */
const POLLED_ROUTES = /\/status$|\/health\/(live|ready)$/;

function polled(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'GET' || res.statusCode >= 400 || ERROR_CODES.has(res)) return false;
  const route = routePattern(req);
  return route !== undefined && POLLED_ROUTES.test(route);
}

/**
 * The HTTP middleware: gives every request an id (from X-Request-Id when sane, else a new UUID), returns
 * it in the X-Request-Id response header, binds it to every line logged for that request (`reqId`), and
 * writes one access line when the response ends: method, route, status, duration, user, and an error
 * answer's code (at `debug` for the polled routes' successful answers).
 */
export function httpLogging(root: pino.Logger): (req: Request, res: Response, next: NextFunction) => void {
  const log = pinoHttp({
    logger: root,
    quietReqLogger: true,
    quietResLogger: true,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (req, res, err) => (err || res.statusCode >= 500 ? 'error' : polled(req, res) ? 'debug' : 'info'),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customSuccessObject: (req, res, val: { responseTime: number }) => accessLine(req, res, val.responseTime),
    customErrorObject: (req, res, _err, val: { responseTime: number }) => accessLine(req, res, val.responseTime),
  });
  return (req, res, next) => {
    noteErrorCode(res);
    log(req, res, next);
  };
}

/** What the access line reads of a request: Express's route and URL, and the caller the AccessGuard set (src/auth). */
interface LoggedRequest extends IncomingMessage {
  route?: { path?: string };
  originalUrl?: string;
  auth?: { userId: string };
}

/**
 * The route pattern a request matched (`/api/public/v1/task/:taskId/status`), which groups requests without naming
 * what they asked for; undefined when it matched none. The logging middleware's own catch-all (`{*path}`) is no route.
 */
export function routePattern(req: IncomingMessage): string | undefined {
  const matched = (req as LoggedRequest).route?.path;
  return matched && !matched.includes('*') ? matched : undefined;
}

function accessLine(req: IncomingMessage, res: ServerResponse, durationMs: number): Record<string, unknown> {
  const r = req as LoggedRequest;
  // the path only when no route matched
  const route = routePattern(req);
  return {
    context: 'Access',
    method: req.method,
    route: route ?? null,
    ...(route ? {} : { path: (r.originalUrl ?? req.url ?? '').split('?')[0].slice(0, 200) }),
    status: res.statusCode,
    ...(ERROR_CODES.has(res) ? { code: ERROR_CODES.get(res) } : {}),
    durationMs,
    userId: r.auth?.userId ?? null,
  };
}

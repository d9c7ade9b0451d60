import { timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../config/config';
import { routePattern } from '../common/logger';
import { Metrics } from './metrics.service';

/** Where Prometheus reads the metrics, on the API's port (with METRICS_TOKEN) and on METRICS_PORT. */
export const METRICS_PATH = '/metrics';

/**
 * The HTTP middleware that times every request into signet_http_request_duration_seconds, labelled by the route
 * pattern it matched (never its path: ids and names stay out of labels), its method and status. A request whose
 * client went away before the answer ended counts with status "aborted".
 */
export function httpMetrics(metrics: Metrics): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const began = performance.now();
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : 'aborted';
      const route = routePattern(req) ?? (req.path === METRICS_PATH ? METRICS_PATH : 'unmatched');
      metrics.observeRequest(req.method, route, status, (performance.now() - began) / 1000);
    });
    next();
  };
}

/** Whether `header` is `Bearer <token>` (compared in constant time); with no token configured, everyone may read. */
function allowed(header: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Answers a scrape: the text exposition, or 403 (no body of interest) without the token. */
async function answer(metrics: Metrics, token: string | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!allowed(req.headers.authorization, token)) {
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('forbidden: send Authorization: Bearer <METRICS_TOKEN>\n');
    return;
  }
  const text = await metrics.render();
  res.writeHead(200, { 'Content-Type': metrics.contentType, 'Cache-Control': 'no-store' }).end(text);
}

/** GET /metrics on the API's port, for Express (used when METRICS_TOKEN is set). */
export function metricsRoute(metrics: Metrics, token: string | undefined): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    if (req.method !== 'GET' || req.path !== METRICS_PATH) return next();
    answer(metrics, token, req, res).catch(next);
  };
}

/**
 * The metrics' own listener on METRICS_PORT (API and worker processes): GET /metrics, 404 for anything else.
 * Resolves once it listens, or with undefined when the port is taken (another Signet process on this host: an API
 * and `npm run worker` side by side), after a warning naming the setting: the process serves all the same.
 */
export async function listenMetrics(
  metrics: Metrics,
  config: AppConfig,
  warn: (message: string) => void = () => undefined,
): Promise<http.Server | undefined> {
  try {
    return await listen(metrics, config);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    warn(`metrics not served: port ${config.metricsPort} is in use (another Signet process here?); give this process its own METRICS_PORT`);
    return undefined;
  }
}

function listen(metrics: Metrics, config: AppConfig): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== METRICS_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`not found: metrics are at ${METRICS_PATH}\n`);
      return;
    }
    answer(metrics, config.metricsToken, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('the metrics could not be collected\n');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.metricsPort, config.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Closes the listener, ending its idle keep-alive connections (a scraper's) so that the close does not wait for them. */
export function closeMetrics(server: http.Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

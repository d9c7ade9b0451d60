import { Logger, LoggerService } from '@nestjs/common';
import * as v8 from 'node:v8';
import { AppConfig, ConfigError, loadConfig } from './config/config';
import type { Logger as Pino } from 'pino';
import { createRootLogger, nestLogger } from './common/logger';
import { ResolvedDatabase, resolveDatabase, runMigrations } from './database/database';

/**
 * How far the V8 heap of a service process may grow past what a full collection left before the next one starts: 150%
 * more (2.5 times), where V8 picks between 10% and 300% by its own measures (about 70% for the API's 33 MB). The
 * Buffers of requests (an image add's body, its PNG's data inflated, the database driver's copies: about 0.5 MB an
 * add) count against that room until a collection frees them; young-generation collections free them once 32 MB are
 * held, but with 70% the room (about 24 MB) ran out first, and every ~40 image adds ended in a collection of the whole
 * heap (13 in 500 adds at load 6-7, a fifth of the service's CPU with the compiler threads' marking). With 150%:
 * 2 in 500 adds, 0.7-1 ms less CPU per add. The bound of the heap (--max-old-space-size) is unchanged.
 */
export const HEAP_GROWING_PERCENT = 150;

/** What both entry points (API and worker) do first: the heap's growth, config, logger, database, migrations. */
export async function prepare(
  name: string,
  overrides: Partial<AppConfig> = {},
): Promise<{ config: AppConfig; logger: LoggerService; root: Pino; log: Logger; db: ResolvedDatabase }> {
  // read by V8 each time it sets the heap's next limit, so it holds from the next collection on
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  let config: AppConfig;
  try {
    config = { ...loadConfig(), ...overrides };
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`configuration error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const root = createRootLogger(config.logFormat, config.logLevel);
  const logger = nestLogger(root);
  Logger.overrideLogger(logger);
  const log = new Logger(name);
  const db = await resolveDatabase(config, (m) => log.log(m), { fault: (m) => log.error(m) });
  const applied = await runMigrations(db.url);
  if (applied.length) log.log(`applied migrations: ${applied.join(', ')}`);
  return { config, logger, root, log, db };
}

/**
 * How long a stop may take before the process exits anyway (code 1). A container's stop grace period must be
 * longer (compose.yaml), or Docker's SIGKILL comes first and nothing is logged of the hand-back.
 */
export const FORCED_EXIT_MS = 20_000;

/**
 * SIGINT/SIGTERM: close the application (jobs handed back), then the embedded PostgreSQL, then exit. A second
 * signal while that runs (npm forwards the one it gets; Ctrl-C reaches every process of the terminal's group) is
 * ignored rather than killing the process halfway, with its PostgreSQL still running.
 */
export function onShutdown(log: Logger, close: () => Promise<void>, db: ResolvedDatabase): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return log.log(`${signal}: already shutting down`);
    closing = true;
    const began = Date.now();
    log.log(`${signal}: shutting down; running jobs are handed back to the queue`);
    const force = setTimeout(() => {
      log.error({ event: 'service.stopped', forced: true }, `stopped: the shutdown took over ${FORCED_EXIT_MS / 1000} s`);
      process.exit(1);
    }, FORCED_EXIT_MS);
    force.unref();
    try {
      await close();
    } finally {
      await db.embedded?.stop();
      // the last line of every clean stop: what an operator (or a log collector) reads to know the process ended
      log.log({ event: 'service.stopped', signal, durationMs: Date.now() - began }, `stopped (${signal}) in ${Date.now() - began} ms`);
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

export function fatal(what: string) {
  return (e: unknown) => {
    process.stderr.write(`${what} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  };
}

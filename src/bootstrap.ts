import { Logger, LoggerService } from '@nestjs/common';
import { AppConfig, ConfigError, loadConfig } from './config/config';
import type { Logger as Pino } from 'pino';
import { createRootLogger, nestLogger } from './common/logger';
import { ResolvedDatabase, resolveDatabase, runMigrations } from './database/database';

/** What both entry points (API and worker) do first: config, logger, database, migrations. */
export async function prepare(
  name: string,
  overrides: Partial<AppConfig> = {},
): Promise<{ config: AppConfig; logger: LoggerService; root: Pino; log: Logger; db: ResolvedDatabase }> {
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
  const db = await resolveDatabase(config, (m) => log.log(m));
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
    log.log(`${signal}: shutting down; running jobs are handed back to the queue`);
    const force = setTimeout(() => process.exit(1), FORCED_EXIT_MS);
    force.unref();
    try {
      await close();
    } finally {
      await db.embedded?.stop();
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

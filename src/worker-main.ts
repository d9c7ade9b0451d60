import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError, loadConfig } from './config/config';
import { resolveDatabase, runMigrations } from './database/database';
import { createLogger } from './common/logger';
import { AppModule } from './app.module';

/** `npm run worker`: job workers only, no HTTP. Run as many as you like against one database. */
async function main(): Promise<void> {
  let config;
  try {
    config = { ...loadConfig(), runWorkers: true };
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`configuration error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const logger = createLogger(config.logFormat, config.logLevel);
  Logger.overrideLogger(logger);
  const log = new Logger('Worker');
  const db = await resolveDatabase(config, (m) => log.log(m));
  await runMigrations(db.url);
  const ctx = await NestFactory.createApplicationContext(
    AppModule.forRoot({ config, databaseUrl: db.url, http: false }),
    { logger },
  );
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.log(`${signal}: finishing; running jobs are handed back to the queue`);
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    try {
      await ctx.close();
    } finally {
      await db.embedded?.stop();
      process.exit(0);
    }
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  log.log(`worker started with ${config.workerCores} cores`);
}

main().catch((e) => {
  process.stderr.write(`worker start-up failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

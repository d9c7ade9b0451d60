import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from './config/config';
import { resolveDatabase, runMigrations } from './database/database';
import { createLogger } from './common/logger';
import { createApp } from './app';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`configuration error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const logger = createLogger(config.logFormat, config.logLevel);
  Logger.overrideLogger(logger);
  const log = new Logger('Main');
  const db = await resolveDatabase(config, (m) => log.log(m));
  const applied = await runMigrations(db.url);
  if (applied.length) log.log(`applied migrations: ${applied.join(', ')}`);
  const app = await createApp({ config, databaseUrl: db.url, http: true }, logger);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.log(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    try {
      await app.close();
    } finally {
      await db.embedded?.stop();
      process.exit(0);
    }
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen(config.port, config.host);
  log.log(`Signet listening on http://${config.host}:${config.port}/api/public/v1 (docs at /api/public/v1/docs)`);
  log.log(`admin credentials (first start only): ${config.dataDir}/admin-credentials.json`);
}

main().catch((e) => {
  process.stderr.write(`start-up failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

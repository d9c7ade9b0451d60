import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { fatal, onShutdown, prepare } from './bootstrap';

/** `npm run worker`: job workers only, no HTTP. Run as many as you like against one database. */
async function main(): Promise<void> {
  const { config, logger, log, db } = await prepare('Worker', { runWorkers: true });
  const ctx = await NestFactory.createApplicationContext(AppModule.forRoot({ config, databaseUrl: db.url, http: false }), {
    logger,
  });
  onShutdown(log, () => ctx.close(), db);
  log.log(`worker started with ${config.workerCores} cores`);
}

main().catch(fatal('worker start-up'));

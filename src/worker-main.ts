import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { fatal, onShutdown, prepare } from './bootstrap';
import { closeMetrics, listenMetrics, METRICS_PATH } from './metrics/metrics-http';
import { Metrics } from './metrics/metrics.service';

/** `npm run worker`: job workers only, no HTTP. Run as many as you like against one database. */
async function main(): Promise<void> {
  const { config, logger, log, db } = await prepare('Worker', { runWorkers: true });
  const ctx = await NestFactory.createApplicationContext(AppModule.forRoot({ config, databaseUrl: db.url, http: false }), {
    logger,
  });
  const metrics = config.metrics && config.metricsPort ? await listenMetrics(ctx.get(Metrics), config, (m) => log.warn(m)) : undefined;
  onShutdown(log, () => Promise.all([closeMetrics(metrics), ctx.close()]).then(() => undefined), db);
  log.log(`worker started with ${config.workerCores} cores`);
  if (metrics) log.log(`metrics at http://${config.host}:${config.metricsPort}${METRICS_PATH}`);
}

main().catch(fatal('worker start-up'));

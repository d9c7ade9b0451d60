import 'reflect-metadata';
import { createApp } from './app';
import { fatal, onShutdown, prepare } from './bootstrap';
import { closeMetrics, listenMetrics, METRICS_PATH } from './metrics/metrics-http';
import { Metrics } from './metrics/metrics.service';

/** `npm start`: the HTTP API (and, unless RUN_WORKERS=false, the job workers). */
async function main(): Promise<void> {
  const { config, logger, root, log, db } = await prepare('Main');
  const app = await createApp({ config, databaseUrl: db.url, http: true, logger: root }, logger);
  const metrics = config.metrics && config.metricsPort ? await listenMetrics(app.get(Metrics), config, (m) => log.warn(m)) : undefined;
  onShutdown(log, () => Promise.all([closeMetrics(metrics), app.close()]).then(() => undefined), db);
  await app.listen(config.port, config.host);
  log.log(`Signet listening on http://${config.host}:${config.port}/api/public/v1 (docs at /api/public/v1/docs)`);
  if (metrics) log.log(`metrics at http://${config.host}:${config.metricsPort}${METRICS_PATH}`);
  log.log(`admin credentials (first start only): ${config.dataDir}/admin-credentials.json`);
}

main().catch(fatal('start-up'));

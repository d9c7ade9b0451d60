import 'reflect-metadata';
import { createApp } from './app';
import { fatal, onShutdown, prepare } from './bootstrap';

/** `npm start`: the HTTP API (and, unless RUN_WORKERS=false, the job workers). */
async function main(): Promise<void> {
  const { config, logger, root, log, db } = await prepare('Main');
  const app = await createApp({ config, databaseUrl: db.url, http: true, logger: root }, logger);
  onShutdown(log, () => app.close(), db);
  await app.listen(config.port, config.host);
  log.log(`Signet listening on http://${config.host}:${config.port}/api/public/v1 (docs at /api/public/v1/docs)`);
  log.log(`admin credentials (first start only): ${config.dataDir}/admin-credentials.json`);
}

main().catch(fatal('start-up'));

import * as fs from 'node:fs';
import { freePort } from './free-port';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';

/** One embedded PostgreSQL for the whole run; each test file creates its own database on it. */
export default async function globalSetup(): Promise<void> {
  // the services the tests start (node dist/src/main.js, npm start) open no metrics listener: on one fixed port,
  // those running at once would take it from each other (test/metrics.e2e-spec.ts starts one on a free port)
  process.env.METRICS_PORT ??= '0';
  if (process.env.TEST_DATABASE_URL) {
    process.env.SIGNET_TEST_ADMIN_URL = process.env.TEST_DATABASE_URL;
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-test-'));
  fs.chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres(dir, await freePort());
  process.env.SIGNET_TEST_ADMIN_URL = server.url('postgres');
  (globalThis as { __signetPg?: { stop: () => Promise<void>; dir: string } }).__signetPg = {
    stop: server.stop,
    dir,
  };
}

/**
 * What /metrics costs the API's event loop (issue 45): the HTTP histogram's observation that every request makes, and
 * a scrape's rendering of the whole registry, both timed in this process on the service's own Metrics class (its
 * database, queue and health read by stubs that answer at once: their queries run on PostgreSQL, not on the loop).
 *   npm run bench:metrics [-- --observations 1000000 --renders 200]
 * The per-request figure is to be read beside the service's CPU per request that `npm run bench:load` prints.
 */
import type { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config';
import type { DatabaseHealth } from '../src/health/database-health';
import type { JobRunner } from '../src/jobs/job-runner';
import type { JobsService } from '../src/jobs/jobs.service';
import { Metrics } from '../src/metrics/metrics.service';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};

/** The API's route patterns as the histogram sees them: 50, as many as the service has (and a few statuses each). */
const ROUTES = Array.from({ length: 50 }, (_, i) => `/api/public/v1/resource${i}/:id/status`);

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  const observations = arg('observations', 1_000_000);
  const renders = arg('renders', 200);
  const kinds = ['createDataset', 'imageDataset', 'analysis', 'prediction'];
  const metrics = new Metrics(
    loadConfig({}),
    { isInitialized: false, query: () => Promise.resolve([]) } as unknown as DataSource,
    { kindNames: () => kinds } as unknown as JobsService,
    { onJobEnded: () => () => undefined, runningCount: () => 0 } as unknown as JobRunner,
    { ready: () => Promise.resolve(true) } as unknown as DatabaseHealth,
  );

  // every route with GET and POST and three statuses, as a long-running service's histogram holds them
  for (const route of ROUTES)
    for (const method of ['GET', 'POST']) for (const status of [200, 403, 404]) metrics.observeRequest(method, route, status, 0.01);
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const began = process.hrtime.bigint();
    for (let i = 0; i < observations; i++)
      metrics.observeRequest(i & 1 ? 'GET' : 'POST', ROUTES[i % ROUTES.length], 200, (i % 1000) / 10_000);
    rounds.push(Number(process.hrtime.bigint() - began) / observations);
  }
  const renderMs: number[] = [];
  let bytes = 0;
  for (let i = 0; i < renders; i++) {
    const began = process.hrtime.bigint();
    bytes = (await metrics.render()).length;
    renderMs.push(Number(process.hrtime.bigint() - began) / 1e6);
  }
  process.stdout.write(
    `one request's observation (histogram by method, route, status): median ${median(rounds).toFixed(0)} ns over 5 rounds of ${observations}` +
      ` (${rounds.map((r) => r.toFixed(0)).join(', ')} ns)\n` +
      `a scrape's rendering (${ROUTES.length} routes x 2 methods x 3 statuses, ${bytes} bytes): median ${median(renderMs).toFixed(2)} ms,` +
      ` max ${Math.max(...renderMs).toFixed(2)} ms over ${renders}\n`,
  );
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(1);
  },
);

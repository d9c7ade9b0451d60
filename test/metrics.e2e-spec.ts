import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { closeMetrics, listenMetrics } from '../src/metrics/metrics-http';
import { Metrics } from '../src/metrics/metrics.service';
import { API, createProject, createTestApp, createUser, expectSuccess, pollUntil, TestApp } from './utils';

/**
 * GET /metrics (Prometheus text format): on METRICS_PORT's own listener, and on the API's port only with
 * METRICS_TOKEN. The queue (jobs by kind and state) is read from the database at each scrape; request durations
 * are labelled by route pattern, never by what a request named.
 */
const TOKEN = randomBytes(16).toString('hex');

/** The value of one sample (`name{labels} value`) in a scrape, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function scrape(t: TestApp): Promise<string> {
  const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

describe('metrics', () => {
  let api: TestApp;
  let worker: TestApp | undefined;

  beforeAll(async () => {
    // an API without workers: a job stays queued until the worker below starts
    api = await createTestApp({ RUN_WORKERS: 'false', METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
  });

  it('answers 403 without the token, and the public port serves no metrics when there is none', async () => {
    expect((await api.http().get('/metrics')).status).toBe(403);
    expect((await api.http().get('/metrics').set('Authorization', 'Bearer wrong')).status).toBe(403);
    expect((await api.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}x`)).status).toBe(403);
    const open = await createTestApp({});
    try {
      expect((await open.http().get('/metrics')).status).toBe(404);
    } finally {
      await open.close();
    }
  });

  it('shows a queued job, then its run in the worker that took it, with request durations by route pattern', async () => {
    const { auth } = await createUser(api);
    const projectId = await createProject(api, auth, 'secret-project-name');
    const before = await scrape(api);
    expect(sample(before, 'signet_jobs', { kind: 'createDataset', state: 'queued' })).toBe(0);
    expect(sample(before, 'signet_jobs', { kind: 'analysis', state: 'running' })).toBe(0);
    expect(sample(before, 'signet_database_up')).toBe(1);
    expect(sample(before, 'signet_worker_cores')).toBe(0);

    const fileId = `f${randomBytes(6).toString('hex')}`;
    const body = 'x,y\n1,2\n3,4\n5,6\n';
    expectSuccess(
      await api
        .http()
        .post(`${API}/file/${fileId}/upload`)
        .set('Authorization', auth)
        .set('Content-Type', 'application/octet-stream')
        .send(body),
    );
    const { taskId } = expectSuccess<{ taskId: string }>(
      await api
        .http()
        .post(`${API}/file/${fileId}/createDataset`)
        .set('Authorization', auth)
        .send({ projectId, name: 'patients-of-dr-x', fileSizeInBytes: body.length }),
    );
    expectSuccess(await api.http().get(`${API}/task/${taskId}/status`).set('Authorization', auth));

    const queued = await scrape(api);
    expect(sample(queued, 'signet_jobs', { kind: 'createDataset', state: 'queued' })).toBe(1);
    expect(sample(queued, 'signet_jobs_oldest_queued_seconds', { kind: 'createDataset' })).toBeGreaterThanOrEqual(0);
    const route = `${API}/task/:taskId/status`;
    expect(sample(queued, 'signet_http_request_duration_seconds_count', { method: 'GET', route, status: '200' })).toBe(1);
    expect(
      sample(queued, 'signet_http_request_duration_seconds_count', { method: 'POST', route: `${API}/file/:fileId/upload`, status: '200' }),
    ).toBe(1);
    // the scrapes count under their own path
    expect(sample(queued, 'signet_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status: '200' })).toBe(1);
    // no id, name or path a user sent is in a label
    for (const userData of [fileId, 'secret-project-name', 'patients-of-dr-x', auth.slice(7)]) expect(queued).not.toContain(userData);
    // (the buckets' bounds, `le`, are numbers of ours)
    const labelValues = [...queued.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].filter((m) => m[1] !== 'le').map((m) => m[2]);
    expect(labelValues).not.toContain(taskId);
    expect(labelValues).not.toContain(projectId);
    expect(labelValues.filter((v) => v.includes('/') && !v.startsWith(API) && v !== '/metrics')).toEqual([]);

    // a worker on the same database takes the job
    worker = await createTestApp({ METRICS_TOKEN: TOKEN }, api.databaseUrl);
    await pollUntil(api, auth, `/task/${taskId}/status`, (p: { state: string }) => p.state === 'finished');
    const after = await scrape(worker);
    expect(sample(after, 'signet_jobs', { kind: 'createDataset', state: 'queued' })).toBe(0);
    expect(sample(after, 'signet_job_duration_seconds_count', { kind: 'createDataset', outcome: 'finished' })).toBe(1);
    expect(sample(after, 'signet_worker_cores')).toBe(worker.config.workerCores);
    expect(sample(after, 'signet_engine_process_failures_total', { reason: 'killed' })).toBe(0);
    expect(sample(after, 'signet_db_pool_size')).toBe(worker.config.dbPoolSize);
    expect(sample(after, 'signet_db_pool_connections', { state: 'waiting' })).toEqual(expect.any(Number));
    // a request no route matched is counted as such, without its path
    await api.http().get(`${API}/no/such/${fileId}`);
    const unmatched = await scrape(api);
    expect(sample(unmatched, 'signet_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(unmatched).not.toContain(fileId);
  });

  it('serves GET /metrics alone on its own port (METRICS_PORT), without the token when none is set', async () => {
    const open = await createTestApp({});
    let server: Server | undefined;
    try {
      server = await listenMetrics(open.app.get(Metrics), { ...open.config, host: '127.0.0.1', metricsPort: 0 });
      if (!server) throw new Error('no listener');
      const res = await request(server).get('/metrics');
      expect(res.status).toBe(200);
      expect(sample(res.text, 'signet_jobs', { kind: 'prediction', state: 'queued' })).toBe(0);
      expect((await request(server).get('/')).status).toBe(404);
      expect((await request(server).post('/metrics')).status).toBe(404);
      // a port already taken (an API and a worker side by side on one host): a warning, and the process goes on
      const taken = (server.address() as AddressInfo).port;
      const warnings: string[] = [];
      const second = await listenMetrics(open.app.get(Metrics), { ...open.config, host: '127.0.0.1', metricsPort: taken }, (m) =>
        warnings.push(m),
      );
      expect(second).toBeUndefined();
      expect(warnings).toEqual([expect.stringContaining(`port ${taken} is in use`)]);
    } finally {
      await closeMetrics(server);
      await open.close();
    }
  });

  it('is off with METRICS=false, token or not', async () => {
    const off = await createTestApp({ METRICS: 'false', METRICS_TOKEN: TOKEN });
    try {
      expect((await off.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

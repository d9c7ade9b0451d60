import { INestApplication, Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config/config';
import express from 'express';
import { createRootLogger, httpLogging, nestLogger, routineAtDebug, textLine } from '../src/common/logger';
import { UsersService } from '../src/auth/users.service';
import { API, freshDatabase, pollUntil, TEST_DATA, TestApp, uploadDataset } from './utils';

/** The real app logging JSON lines into memory, as it writes them to stdout in production. */
describe('logs', () => {
  let app: INestApplication;
  let dataDir: string;
  const lines: Record<string, unknown>[] = [];
  const http = () => request(app.getHttpServer());
  const linesOf = (reqId: string) => lines.filter((l) => l.reqId === reqId);

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-logs-'));
    const config = loadConfig({ DATA_DIR: dataDir, LOG_FORMAT: 'json', LOG_LEVEL: 'log', JOB_POLL_MS: '50' });
    const root = createRootLogger('json', 'log', { write: (line: string) => void lines.push(JSON.parse(line)) });
    const logger = nestLogger(root);
    Logger.overrideLogger(logger);
    app = await createApp({ config, databaseUrl: await freshDatabase(), http: true, logger: root }, logger);
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a failed login: the warning and the access line share the request id, which the response returns', async () => {
    await app.get(UsersService).createUser({ username: 'lena', password: 'lena-password' });
    const res = await http()
      .post(`${API}/login`)
      .set('X-Request-Id', 'login-attempt-1')
      .send({ usernameOrEmail: 'lena', password: 'wrong-password-123' });
    expect(res.body.code).toBe('auth-10-3');
    expect(res.headers['x-request-id']).toBe('login-attempt-1');

    const mine = linesOf('login-attempt-1');
    expect(mine.map((l) => [l.level, l.context, l.msg])).toEqual([
      ['warn', 'Auth', 'failed login'],
      ['info', 'Access', 'request completed'],
    ]);
    expect(mine[0]).toMatchObject({ event: 'login.failed', username: 'lena', address: expect.stringMatching(/127\.0\.0\.1/) });
    expect(mine[1]).toMatchObject({ method: 'POST', route: '/api/public/v1/login', status: 200, userId: null });
    expect(typeof mine[1].durationMs).toBe('number');
    // the password is in no line
    expect(JSON.stringify(lines)).not.toContain('wrong-password-123');
  });

  it('an authenticated request: one access line with the user id and the route pattern; a made id when none is sent', async () => {
    const { userId, token } = await app.get(UsersService).createUser({ username: 'mira', password: 'mira-password' });
    const res = await http().get(`${API}/projects/owned/0/5`).set('Authorization', `Bearer ${token}`);
    expect(res.body.status).toBe('success');
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(linesOf(id)).toEqual([
      expect.objectContaining({
        context: 'Access',
        method: 'GET',
        route: '/api/public/v1/projects/owned/:offset/:count',
        status: 200,
        userId,
      }),
    ]);
  });

  it("an error answer's access line carries its code, and the user when the token was valid (refused by the guard, by the service, or by body parsing)", async () => {
    const { userId, token } = await app.get(UsersService).createUser({ username: 'ines', password: 'ines-password' });
    const auth = `Bearer ${token}`;
    const owner = await app.get(UsersService).createUser({ username: 'ivo', password: 'ivo-password' });
    const theirs = (await http().post(`${API}/createProject`).set('Authorization', `Bearer ${owner.token}`).send({ name: 'ivo' })).body
      .payload.projectId;

    const cases: [string, request.Test, string | undefined, number][] = [
      // the access guard: an id the user cannot see, and a malformed id
      ['unknown-project', http().get(`${API}/project/987654`), 'notFound-100-1-1', 200],
      ['malformed-id', http().get(`${API}/project/abc`), 'badRequest-1-0-2', 200],
      // the service
      ['bad-name', http().post(`${API}/createProject`).send({ name: '' }), 'badRequest-100-0-1', 200],
      // body parsing, answered after the token check
      ['bad-json', http().post(`${API}/createProject`).set('Content-Type', 'application/json').send('{nope'), 'badRequest-1-0-4', 200],
    ];
    for (const [reqId, req, code, status] of cases) {
      const res = await req.set('Authorization', auth).set('X-Request-Id', reqId);
      expect([reqId, res.status, res.body.code]).toEqual([reqId, status, code]);
      expect(linesOf(reqId)).toEqual([expect.objectContaining({ context: 'Access', level: 'info', status, code, userId })]);
    }
    // without a valid token: the code, and no user
    const login = await http()
      .post(`${API}/login`)
      .set('X-Request-Id', 'bad-login')
      .send({ usernameOrEmail: 'ines', password: 'x-wrong-x' });
    expect(login.body.code).toBe('auth-10-3');
    expect(linesOf('bad-login').filter((l) => l.context === 'Access')).toEqual([
      expect.objectContaining({ code: 'auth-10-3', userId: null }),
    ]);
    // a success carries no code
    await http().get(`${API}/project/${theirs}`).set('Authorization', `Bearer ${owner.token}`).set('X-Request-Id', 'fine');
    expect(linesOf('fine')).toEqual([expect.objectContaining({ status: 200, userId: owner.userId })]);
    expect(linesOf('fine')[0]).not.toHaveProperty('code');
    // a 403 for a valid token without the permission (another user's project) names the user; HTTP 403 has no code
    const forbidden = await http().get(`${API}/project/${theirs}`).set('Authorization', auth).set('X-Request-Id', 'not-owner');
    expect(forbidden.status).toBe(403);
    expect(linesOf('not-owner')).toEqual([expect.objectContaining({ status: 403, userId })]);
    expect(linesOf('not-owner')[0]).not.toHaveProperty('code');
  });

  it("Nest's route-mapping lines are written at debug level, not in a start's info lines", () => {
    expect(lines.filter((l) => ['RouterExplorer', 'RoutesResolver', 'InstanceLoader'].includes(String(l.context)))).toEqual([]);
    expect(lines.some((l) => l.context === 'NestApplication' && l.level === 'info')).toBe(true);
    const seen: unknown[][] = [];
    const record = (level: string) => (message: unknown, context: unknown) => void seen.push([level, message, context]);
    const logger = routineAtDebug({ log: record('log'), error: record('error'), warn: record('warn'), debug: record('debug') });
    logger.log('Mapped {/api/public/v1/version, GET} route', 'RouterExplorer');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.warn('careful', 'RouterExplorer');
    expect(seen).toEqual([
      ['debug', 'Mapped {/api/public/v1/version, GET} route', 'RouterExplorer'],
      ['debug', 'AppModule dependencies initialized', 'InstanceLoader'],
      ['log', 'Nest application successfully started', 'NestApplication'],
      ['warn', 'careful', 'RouterExplorer'],
    ]);
  });

  it('an X-Request-Id that is not a sane token is replaced', async () => {
    const res = await http()
      .get(`${API}/version`)
      .set('X-Request-Id', 'two words "quoted" ' + 'x'.repeat(200));
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(linesOf(id)).toHaveLength(1);
  });

  it('a request refused by body parsing, and one that matches no route, still get an id and an access line', async () => {
    const bad = await http().post(`${API}/login`).set('X-Request-Id', 'bad-body').set('Content-Type', 'application/json').send('{nope');
    expect(bad.body.code).toBe('badRequest-1-0-4');
    // the refusal waits for the route's token check (050ad67), so its line names the route
    expect(linesOf('bad-body')).toEqual([
      expect.objectContaining({
        context: 'Access',
        method: 'POST',
        route: '/api/public/v1/login',
        status: 200,
      }),
    ]);
    await http().get(`${API}/no/such/route?secret=1`).set('X-Request-Id', 'no-route');
    expect(linesOf('no-route')).toEqual([expect.objectContaining({ route: null, path: '/api/public/v1/no/such/route', status: 404 })]);
  });

  it("an analysis' job: started and finished lines (with the analysis id and duration); the dataset build's too", async () => {
    const { token } = await app.get(UsersService).createUser({ username: 'nora', password: 'nora-password' });
    const auth = `Bearer ${token}`;
    const t = { http } as unknown as TestApp;
    const projectId = (await http().post(`${API}/createProject`).set('Authorization', auth).send({ name: 'logs' })).body.payload.projectId;
    const datasetId = await uploadDataset(t, auth, projectId, fs.readFileSync(path.join(TEST_DATA, 'iris.csv')));
    const started = await http()
      .post(`${API}/dataset/${datasetId}/analyze`)
      .set('Authorization', auth)
      .send({ outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'logged' });
    const { analysisId } = started.body.payload;
    await pollUntil(t, auth, `/analysis/${analysisId}/status`, (p: { state: string }) => p.state === 'finished', 120_000);
    await new Promise((r) => setTimeout(r, 200)); // the finished line follows the state change
    const jobLines = lines.filter((l) => typeof l.event === 'string' && l.event.startsWith('job.'));
    const ofAnalysis = jobLines.filter((l) => l.analysisId === analysisId);
    expect(ofAnalysis.map((l) => [l.event, l.kind, l.level])).toEqual([
      ['job.started', 'analysis', 'info'],
      ['job.finished', 'analysis', 'info'],
    ]);
    expect(typeof ofAnalysis[1].durationMs).toBe('number');
    expect(jobLines.filter((l) => l.kind === 'createDataset').map((l) => l.event)).toEqual(['job.started', 'job.finished']);
  }, 150_000);

  it('an analysis deleted while it runs: a cancellation line', async () => {
    const { token } = await app.get(UsersService).createUser({ username: 'olga', password: 'olga-password' });
    const auth = `Bearer ${token}`;
    const t = { http } as unknown as TestApp;
    const projectId = (await http().post(`${API}/createProject`).set('Authorization', auth).send({ name: 'cancel' })).body.payload
      .projectId;
    const datasetId = await uploadDataset(t, auth, projectId, fs.readFileSync(path.join(TEST_DATA, 'breast_cancer.csv')));
    const started = await http()
      .post(`${API}/dataset/${datasetId}/analyze`)
      .set('Authorization', auth)
      .send({ outcome: { classification: 'diagnosis' }, thoroughness: 'extensive', coreCount: 1, name: 'to cancel' });
    const { analysisId } = started.body.payload;
    await pollUntil(t, auth, `/analysis/${analysisId}/status`, (p: { state: string }) => p.state === 'running', 60_000);
    await http().post(`${API}/analysis/${analysisId}/delete`).set('Authorization', auth).expect(200);
    const end = Date.now() + 15_000;
    while (!lines.some((l) => l.event === 'analysis.cancelled' && l.analysisId === analysisId) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(lines.filter((l) => l.analysisId === analysisId).map((l) => l.event)).toEqual(
      expect.arrayContaining(['job.started', 'analysis.cancelled']),
    );
  }, 120_000);

  it("a status poll's access line is written at debug, not info; an error answer's at info", async () => {
    const { token } = await app.get(UsersService).createUser({ username: 'pia', password: 'pia-password' });
    const auth = `Bearer ${token}`;
    const projectId = (await http().post(`${API}/createProject`).set('Authorization', auth).send({ name: 'polls' })).body.payload.projectId;
    const t = { http } as unknown as TestApp;
    await uploadDataset(t, auth, projectId, 'a,b\n1,2\n3,4\n');
    const polls = await http().get(`${API}/health/ready`).set('X-Request-Id', 'probe-1');
    expect(polls.status).toBe(200);
    expect(linesOf('probe-1')).toEqual([]);
    const unknown = await http().get(`${API}/task/999999/status`).set('Authorization', auth).set('X-Request-Id', 'poll-unknown');
    expect(unknown.body.code).toBe('notFound-115-1-1');
    expect(linesOf('poll-unknown')).toEqual([
      expect.objectContaining({ level: 'info', route: `${API}/task/:taskId/status`, code: 'notFound-115-1-1' }),
    ]);
    // uploadDataset polled the task's status: none of those lines at info
    expect(lines.filter((l) => l.context === 'Access' && l.route === `${API}/task/:taskId/status` && l.status === 200 && !l.code)).toEqual(
      [],
    );

    // at LOG_LEVEL=debug they are there
    const debugLines: Record<string, unknown>[] = [];
    const debugRoot = createRootLogger('json', 'debug', { write: (line: string) => void debugLines.push(JSON.parse(line)) });
    const probe = express();
    probe.use(httpLogging(debugRoot));
    probe.get(`${API}/task/:taskId/status`, (_req, res) => void res.json({ status: 'success', payload: {} }));
    await request(probe).get(`${API}/task/7/status`).set('X-Request-Id', 'debug-poll');
    expect(debugLines.filter((l) => l.reqId === 'debug-poll')).toEqual([
      expect.objectContaining({ level: 'debug', context: 'Access', route: `${API}/task/:taskId/status`, status: 200 }),
    ]);
  });

  it('LOG_FORMAT=text prints the same record on one readable line', () => {
    expect(
      textLine({
        level: 'warn',
        time: '2026-11-23T05:00:00.000Z',
        pid: 1,
        context: 'Auth',
        reqId: 'r1',
        msg: 'failed login',
        username: 'lena',
      }),
    ).toBe('2026-11-23T05:00:00.000Z WARN  [Auth] (r1) failed login username=lena\n');
  });
});

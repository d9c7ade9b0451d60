import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  API,
  createProject,
  createTestApp,
  createUser,
  expectError,
  expectSuccess,
  pollAll,
  pollUntil,
  TEST_DATA,
  TestApp,
  uploadDataset,
} from './utils';
import { JobRunner } from '../src/jobs/job-runner';

let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
let projectId: string;
const datasets: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2' });
  owner = await createUser(t);
  projectId = await createProject(t, owner.auth, 'analyses');
  for (const f of ['iris', 'diabetes', 'lung']) {
    datasets[f] = await uploadDataset(t, owner.auth, projectId, fs.readFileSync(path.join(TEST_DATA, `${f}.csv`)), { name: f });
  }
  const change = await t
    .http()
    .post(`${API}/dataset/${datasets.lung}/changeFeatureTypes`)
    .set('Authorization', owner.auth)
    .send({ featureTypes: { status: 'event', time: 'timeToEvent' } });
  expectSuccess(change);
});
afterAll(async () => {
  await t.close();
});

interface Status {
  state: string;
  progress?: number;
  startTime?: string;
  executionTimeInSeconds?: number;
}

/** Polls status until the analysis ends, recording every status seen. */
const follow = (analysisId: string): Promise<Status[]> =>
  pollAll<Status>(t, owner.auth, `/analysis/${analysisId}/status`, (s) => s.state === 'finished' || s.state === 'failed', 180_000);

function checkPresenceRules(seen: Status[]) {
  let last = -1;
  for (const s of seen) {
    expect(['pending', 'running', 'finished']).toContain(s.state);
    if (s.state === 'running') {
      expect(typeof s.progress).toBe('number');
      expect(s.progress).toBeGreaterThanOrEqual(Math.max(0, last));
      expect(s.progress).toBeLessThanOrEqual(1);
      last = s.progress as number;
    } else {
      expect(s.progress).toBeUndefined();
    }
    if (s.state === 'pending') expect([s.startTime, s.executionTimeInSeconds]).toEqual([undefined, undefined]);
    else {
      expect(new Date(s.startTime as string).toISOString()).toBe(s.startTime);
      expect(s.executionTimeInSeconds).toBeGreaterThanOrEqual(0);
    }
  }
  const order = seen.map((s) => s.state).filter((s, i, a) => i === 0 || a[i - 1] !== s);
  expect(['pending,running,finished', 'running,finished', 'pending,finished', 'finished']).toContain(order.join(','));
}

describe('a full session', () => {
  it.each([
    ['iris', { classification: 'species' }, 'Mean Area Under the ROC Curve'],
    ['diabetes', { regression: 'progression' }, 'R Squared'],
    ['lung', { survival: { event: 'status', timeToEvent: 'time' } }, 'Concordance Index'],
  ])(
    '%s: analyze, follow status, read result and plots, delete',
    async (name, outcome, metric) => {
      const params = { outcome, thoroughness: 'preliminary', coreCount: 1, name: `${name} analysis` };
      const { analysisId } = expectSuccess(
        await t.http().post(`${API}/dataset/${datasets[name]}/analyze`).set('Authorization', owner.auth).send(params),
      );
      const expectedParameters = {
        datasetId: datasets[name],
        outcome,
        thoroughness: 'preliminary',
        coreCount: 1,
        name: `${name} analysis`,
        modelsConsidered: 'all',
        featureSelection: 'mostRelevant',
        maxSignatureSize: 25,
        maxVisualizedSignatureCount: 5,
      };
      const seen = await follow(analysisId);
      checkPresenceRules(seen);
      expect(seen[seen.length - 1].state).toBe('finished');

      const a = expectSuccess(await t.http().get(`${API}/analysis/${analysisId}`).set('Authorization', owner.auth));
      expect(a).toEqual({ analysisId, projectId, parameters: expectedParameters, state: 'finished' });

      const result = expectSuccess(await t.http().get(`${API}/analysis/${analysisId}/result`).set('Authorization', owner.auth));
      // api-v1's fields, and the additions of docs/api-guide.md (the estimate made at creation, what the search tried)
      expect(Object.keys(result).sort()).toEqual([
        'analysisId',
        'estimate',
        'executionTimeInSeconds',
        'mlEngine',
        'models',
        'parameters',
        'search',
        'startTime',
      ]);
      expect(result.mlEngine).toMatch(/^signet-engine \d+\.\d+\.\d+/);
      expect(result.parameters).toEqual(expectedParameters);
      const best = result.models.best;
      expect(typeof best.preprocessing).toBe('string');
      expect(typeof best.featureSelection).toBe('string');
      expect(typeof best.model).toBe('string');
      expect(best.signatures.length).toBeGreaterThanOrEqual(1);
      expect(best.signatures[0].length).toBeGreaterThanOrEqual(1);
      expect(typeof best.performance[metric]).toBe('number');
      const [lo, hi] = best.performanceCis[metric];
      expect(lo).toBeLessThanOrEqual(hi);

      const avail = expectSuccess(
        await t.http().get(`${API}/analysis/${analysisId}/availablePlots`).query({ modelKey: 'best' }).set('Authorization', owner.auth),
      );
      expect(avail.analysisId).toBe(analysisId);
      expect(avail.modelKey).toBe('best');
      expect(avail.plots).toEqual(expect.arrayContaining(['Feature Importance']));
      const byPost = expectSuccess(
        await t.http().post(`${API}/analysis/${analysisId}/availablePlots`).send({ modelKey: 'best' }).set('Authorization', owner.auth),
      );
      expect(byPost).toEqual(avail);
      const plot = expectSuccess(
        await t
          .http()
          .get(`${API}/analysis/${analysisId}/getPlot`)
          .query({ modelKey: 'best', plotKey: 'Feature Importance' })
          .set('Authorization', owner.auth),
      );
      const fi = plot.plot['Feature Importance'];
      expect(Array.isArray(fi)).toBe(true);
      for (const e of fi) {
        expect(typeof e.name).toBe('string');
        expect(typeof e.value).toBe('number');
        expect(e.cis).toHaveLength(2);
      }
      const plots = expectSuccess(
        await t.http().post(`${API}/analysis/${analysisId}/getPlots`).send({ modelKey: 'best' }).set('Authorization', owner.auth),
      );
      expect(plots.plots.map((p: object) => Object.keys(p)[0])).toEqual(avail.plots);
      expectError(
        await t
          .http()
          .get(`${API}/analysis/${analysisId}/getPlot`)
          .query({ modelKey: 'nope', plotKey: 'Feature Importance' })
          .set('Authorization', owner.auth),
        'notFound-140-1-1',
      );
      expectError(
        await t
          .http()
          .get(`${API}/analysis/${analysisId}/getPlot`)
          .query({ modelKey: 'best', plotKey: 'Nope' })
          .set('Authorization', owner.auth),
        'notFound-140-1-2',
      );
      expectError(
        await t.http().post(`${API}/analysis/${analysisId}/getPlots`).send({}).set('Authorization', owner.auth),
        'badRequest-1-0-5',
      );
      // the plot parameters are read by one DTO, from the body or the query string alike
      const plotsBy = {
        body: (body: object) => t.http().post(`${API}/analysis/${analysisId}/getPlots`).send(body).set('Authorization', owner.auth),
        query: (query: string) => t.http().get(`${API}/analysis/${analysisId}/getPlots?${query}`).set('Authorization', owner.auth),
      };
      expectError(await plotsBy.body({ modelKey: 'best', colour: 'red' }), 'badRequest-1-0-7');
      expectError(await plotsBy.query('modelKey=best&colour=red'), 'badRequest-1-0-7');
      expectError(await plotsBy.body({ modelKey: 7 }), 'badRequest-1-0-6');
      expectError(await plotsBy.body({ modelKey: ['best'] }), 'badRequest-1-0-6');
      expectError(await plotsBy.query('modelKey=best&modelKey=best'), 'badRequest-1-0-6');
      expectError(await plotsBy.query('modelKey[a]=best'), 'badRequest-1-0-7'); // a name of its own: the query parser is 'simple'
      expectError(await plotsBy.query('modelKey='), 'notFound-140-1-1');
      expectError(
        await t.http().get(`${API}/analysis/${analysisId}/getPlot?modelKey=best`).set('Authorization', owner.auth),
        'badRequest-1-0-5',
      );
      expectError(
        await t
          .http()
          .post(`${API}/analysis/${analysisId}/getPlot`)
          .send({ modelKey: 'best', plotKey: 1 })
          .set('Authorization', owner.auth),
        'badRequest-1-0-6',
      );

      const deleted = expectSuccess(await t.http().post(`${API}/analysis/${analysisId}/delete`).set('Authorization', owner.auth));
      expect(deleted).toEqual({ analysisId, projectId, parameters: expectedParameters, state: 'finished' });
      expectError(await t.http().get(`${API}/analysis/${analysisId}/result`).set('Authorization', owner.auth), 'notFound-120-2-1');
      expectError(await t.http().get(`${API}/analysis/${analysisId}/status`).set('Authorization', owner.auth), 'notFound-120-1-1');
      const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM analysis_results WHERE analysis_id = $1', [analysisId]);
      expect(n).toBe(0);
    },
    240_000,
  );
});

describe('deleting a running analysis', () => {
  it('stops its computation within 2 seconds and frees its cores', async () => {
    const quota = await createUser(t, undefined, 1);
    const p = await createProject(t, quota.auth, 'quota');
    const ds = await uploadDataset(t, quota.auth, p, fs.readFileSync(path.join(TEST_DATA, 'breast_cancer.csv')));
    const body = { outcome: { classification: 'diagnosis' }, thoroughness: 'extensive', coreCount: 1, name: 'long' };
    const { analysisId } = expectSuccess(await t.http().post(`${API}/dataset/${ds}/analyze`).set('Authorization', quota.auth).send(body));
    // the user's single core is taken
    expectError(await t.http().post(`${API}/dataset/${ds}/analyze`).set('Authorization', quota.auth).send(body), 'badRequest-120-1-7');
    await pollUntil<{ state: string }>(t, quota.auth, `/analysis/${analysisId}/status`, (s) => s.state === 'running', 60_000);
    const runner = t.app.get(JobRunner);
    expect(runner.runningCount()).toBe(1);

    const deleted = expectSuccess(await t.http().post(`${API}/analysis/${analysisId}/delete`).set('Authorization', quota.auth));
    expect(deleted.state).toBe('running');
    const start = Date.now();
    while (runner.runningCount() > 0 && Date.now() - start < 5000) await new Promise((r) => setTimeout(r, 20));
    expect(runner.runningCount()).toBe(0);
    expect(Date.now() - start).toBeLessThan(2000);
    // the core is free again at once
    const again = expectSuccess(
      await t
        .http()
        .post(`${API}/dataset/${ds}/analyze`)
        .set('Authorization', quota.auth)
        .send({ ...body, thoroughness: 'preliminary' }),
    );
    expect(again.analysisId).toMatch(/^\d+$/);
  }, 120_000);
});

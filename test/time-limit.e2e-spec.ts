import { API, appWithDatasets, createUser, expectError, expectSuccess, pollAll, TestApp } from './utils';

/**
 * The running time an analysis states before it starts and corrects while it runs, and the optional timeLimitSeconds
 * (docs/api-guide.md, "Running time and time limit"): additions to api-v1, through HTTP into the real app.
 */
let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
let datasets: Record<string, string>;

beforeAll(async () => {
  ({ t, owner, datasets } = await appWithDatasets(['iris', 'breast_cancer'], { WORKER_CORES: '2' }));
});
afterAll(async () => {
  await t.close();
});

interface Interval {
  expected: number;
  low: number;
  high: number;
}
interface Estimate {
  basis: 'shape' | 'measured';
  executionTimeInSeconds: Interval;
  peakMemoryInBytes: Interval;
}
interface Status {
  state: string;
  progress?: number;
  executionTimeInSeconds?: number;
  estimate?: Estimate;
}

const analyze = (name: string, body: object) =>
  t.http().post(`${API}/dataset/${datasets[name]}/analyze`).set('Authorization', owner.auth).send(body);

/** Every status seen until the analysis ends. */
const follow = (analysisId: string): Promise<Status[]> =>
  pollAll<Status>(t, owner.auth, `/analysis/${analysisId}/status`, (s) => s.state === 'finished' || s.state === 'failed', 120_000);

function expectInterval(i: Interval) {
  expect(i.low).toBeGreaterThan(0);
  expect(i.low).toBeLessThanOrEqual(i.expected);
  expect(i.expected).toBeLessThanOrEqual(i.high);
}

describe('the estimate of running time and peak memory', () => {
  it('is in the answer to analyze, from the shape; in the status, measured once progress reaches 0.05; in the result', async () => {
    const created = expectSuccess(
      await analyze('iris', { outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'estimated' }),
    );
    const estimate = created.estimate as Estimate;
    expect(estimate.basis).toBe('shape');
    expectInterval(estimate.executionTimeInSeconds);
    expectInterval(estimate.peakMemoryInBytes);
    expect(estimate.peakMemoryInBytes.expected).toBeGreaterThan(2 ** 20);

    const seen = await follow(created.analysisId as string);
    expect(seen[seen.length - 1].state).toBe('finished');
    for (const s of seen) {
      const e = s.estimate as Estimate;
      expectInterval(e.executionTimeInSeconds);
      expect(e.peakMemoryInBytes).toEqual(estimate.peakMemoryInBytes);
      if (s.state === 'running' && (s.progress as number) >= 0.05 && (s.executionTimeInSeconds as number) > 0) {
        expect(e.basis).toBe('measured');
        // from 0.3 of the work on: the time so far over the fraction done, to the tenth of a second
        const expected = (s.executionTimeInSeconds as number) / (s.progress as number);
        if ((s.progress as number) >= 0.3) expect(Math.abs(e.executionTimeInSeconds.expected - expected)).toBeLessThanOrEqual(0.06);
        expect(e.executionTimeInSeconds.low).toBeGreaterThanOrEqual((s.executionTimeInSeconds as number) - 0.05);
      } else {
        // pending, finished, or too little done: the estimate made at creation
        expect(e).toEqual(estimate);
      }
    }
    // the analysis runs for seconds, its status read every 50 ms: some reads came after 0.05 of the work
    expect(seen.some((s) => s.estimate?.basis === 'measured')).toBe(true);
    const result = expectSuccess(await t.http().get(`${API}/analysis/${created.analysisId}/result`).set('Authorization', owner.auth));
    expect(result.estimate).toEqual(estimate);
    expect(result.search.stoppedAtTimeLimit).toBe(false);
    expect(result.search.configurationsTried).toBe(result.search.configurationsPlanned);
    expect(result.parameters).not.toHaveProperty('timeLimitSeconds');
  });
});

describe('timeLimitSeconds', () => {
  it.each([
    ['zero', 0],
    ['under 10', 9],
    ['negative', -30],
    ['not an integer', 60.5],
    ['a string', '60'],
    ['null', null],
    ['over seven days', 604801],
    ['an object', { seconds: 60 }],
  ])('%s: the error envelope badRequest-120-0-14 (HTTP 200), nothing started', async (_name, timeLimitSeconds) => {
    const body = { outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'limited', timeLimitSeconds };
    const res = await analyze('iris', body);
    expect(res.status).toBe(200);
    expectError(res, 'badRequest-120-0-14');
    expect(res.body.message).toMatch(/timeLimitSeconds/);
    const check = expectSuccess(
      await t.http().post(`${API}/check/dataset/${datasets.iris}/analyze`).set('Authorization', owner.auth).send(body),
    );
    expect(check.errors.map((e: { code: string }) => e.code)).toEqual(['badRequest-120-0-14']);
  });

  it('stops a search that takes longer at the limit: fewer configurations than planned, the result and leaderboard over those tried', async () => {
    // breast_cancer at extensive on one core: far more than 10 s of search on any machine
    const body = {
      outcome: { classification: 'diagnosis' },
      thoroughness: 'extensive',
      coreCount: 1,
      name: 'ten seconds',
      timeLimitSeconds: 10,
    };
    const created = expectSuccess(await analyze('breast_cancer', body));
    expect(created.estimate.executionTimeInSeconds.high).toBeLessThanOrEqual(10);
    const seen = await follow(created.analysisId as string);
    expect(seen[seen.length - 1].state).toBe('finished');
    for (const s of seen.filter((x) => x.state === 'running')) {
      expect((s.estimate as Estimate).executionTimeInSeconds.high).toBeLessThanOrEqual(
        Math.max(10, s.executionTimeInSeconds as number) + 0.1,
      );
    }
    const id = created.analysisId as string;
    const result = expectSuccess(await t.http().get(`${API}/analysis/${id}/result`).set('Authorization', owner.auth));
    expect(result.parameters.timeLimitSeconds).toBe(10);
    expect(result.search).toMatchObject({ stoppedAtTimeLimit: true, timeLimitSeconds: 10 });
    expect(result.search.configurationsTried).toBeGreaterThan(0);
    expect(result.search.configurationsTried).toBeLessThan(result.search.configurationsPlanned);
    expect(result.models.best.performance['Area Under the ROC Curve']).toBeGreaterThan(0.9);
    const [lo, hi] = result.models.best.performanceCis['Area Under the ROC Curve'];
    expect(lo).toBeLessThan(hi);

    const rows: { modelKey?: string }[] = [];
    for (let offset = 0; offset === 0 || offset < result.search.configurationsTried; offset += 100) {
      const page = expectSuccess(await t.http().get(`${API}/analysis/${id}/configurations/${offset}/100`).set('Authorization', owner.auth));
      expect(page.totalCount).toBe(result.search.configurationsTried);
      rows.push(...(page.data as { modelKey?: string }[]));
    }
    expect(rows).toHaveLength(result.search.configurationsTried);
    expect(rows.filter((c) => c.modelKey === 'best')).toHaveLength(1);

    const report = await t.http().get(`${API}/analysis/${id}/report`).set('Authorization', owner.auth);
    expect(report.status).toBe(200);
    expect(report.text).toContain(
      `stopped at its time limit of 10 s: ${result.search.configurationsTried} of ${result.search.configurationsPlanned} configurations tried`,
    );
  });
});

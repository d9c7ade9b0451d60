import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  API,
  createProject,
  createTestApp,
  createUser,
  expectError,
  expectSuccess,
  pollUntil,
  TEST_DATA,
  TestApp,
  uploadDataset,
} from './utils';

let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
let projectId: string;
let analysisId: string;
let trainId: string;
let heldOut: string[];
let header: string;

/** iris split in two: every 5th row held out, with an id column for sample ids. */
function split(): { train: string; test: string } {
  const lines = fs.readFileSync(path.join(TEST_DATA, 'iris.csv'), 'utf8').trim().split('\n');
  header = `id,${lines[0]}`;
  const rows = lines.slice(1).map((l, i) => `s${i + 1},${l}`);
  heldOut = rows.filter((_, i) => i % 5 === 0);
  return { train: [header, ...rows.filter((_, i) => i % 5 !== 0)].join('\n'), test: [header, ...heldOut].join('\n') };
}

async function finished(id: string) {
  return pollUntil<{ state: string }>(t, owner.auth, `/prediction/${id}/status`, (s) => s.state === 'finished' || s.state === 'failed');
}

beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2' });
  owner = await createUser(t);
  projectId = await createProject(t, owner.auth, 'predictions');
  const { train } = split();
  trainId = await uploadDataset(t, owner.auth, projectId, train, { name: 'iris-train', hasSampleHeaders: true });
  analysisId = expectSuccess(
    await t
      .http()
      .post(`${API}/dataset/${trainId}/analyze`)
      .set('Authorization', owner.auth)
      .send({ outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'iris model' }),
  ).analysisId;
  await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${analysisId}/status`, (s) => s.state === 'finished', 120_000);
});
afterAll(async () => {
  await t.close();
});

describe('predictions', () => {
  it('applies the best model to a held-out dataset, as JSON and CSV', async () => {
    const testId = await uploadDataset(t, owner.auth, projectId, split().test, { name: 'iris-test', hasSampleHeaders: true });
    const { predictionId } = expectSuccess(
      await t.http().post(`${API}/analysis/${analysisId}/predict/${testId}`).set('Authorization', owner.auth).send({ modelKey: 'best' }),
    );
    expect((await finished(predictionId)).state).toBe('finished');
    const result = expectSuccess(await t.http().get(`${API}/prediction/${predictionId}/result`).set('Authorization', owner.auth));
    expect({ ...result, predictions: undefined }).toEqual({
      predictionId,
      analysisId,
      datasetId: testId,
      modelKey: 'best',
      predictions: undefined,
    });
    expect(result.predictions).toHaveLength(heldOut.length);
    let correct = 0;
    result.predictions.forEach(
      (p: { row: number; sampleId: string; prediction: string; probabilities: Record<string, number> }, i: number) => {
        const cells = heldOut[i].split(',');
        expect(p.row).toBe(i);
        expect(p.sampleId).toBe(cells[0]);
        const total = Object.values(p.probabilities).reduce((a, b) => a + b, 0);
        expect(total).toBeCloseTo(1, 6);
        expect(Object.keys(p.probabilities).sort()).toEqual(['setosa', 'versicolor', 'virginica']);
        if (p.prediction === cells[cells.length - 1]) correct++;
      },
    );
    expect(correct / heldOut.length).toBeGreaterThan(0.85);

    const csv = await t.http().get(`${API}/prediction/${predictionId}/result`).query({ format: 'csv' }).set('Authorization', owner.auth);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('row,sampleId,prediction,probability:setosa,probability:versicolor,probability:virginica');
    expect(lines).toHaveLength(heldOut.length + 1);
    expect(lines[1].split(',').slice(0, 3)).toEqual(['0', result.predictions[0].sampleId, result.predictions[0].prediction]);
    expectError(
      await t.http().get(`${API}/prediction/${predictionId}/result`).query({ format: 'xml' }).set('Authorization', owner.auth),
      'badRequest-150-0-2',
    );
    // any other parameter, a bracketed one among them, is refused (format[]=csv answered JSON)
    for (const q of ['format[]=csv', 'format[a]=csv', 'fromat=csv', 'modelKey=best']) {
      expectError(await t.http().get(`${API}/prediction/${predictionId}/result?${q}`).set('Authorization', owner.auth), 'badRequest-1-0-7');
    }

    const list = expectSuccess(await t.http().get(`${API}/analysis/${analysisId}/predictions/0/10`).set('Authorization', owner.auth));
    expect(list.totalCount).toBeGreaterThanOrEqual(1);
    expect(list.data.map((p: { predictionId: string }) => p.predictionId)).toContain(predictionId);

    expect(
      expectSuccess(await t.http().post(`${API}/prediction/${predictionId}/delete`).set('Authorization', owner.auth)).predictionId,
    ).toBe(predictionId);
    expectError(await t.http().get(`${API}/prediction/${predictionId}/status`).set('Authorization', owner.auth), 'notFound-150-1-1');
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM prediction_results WHERE prediction_id = $1', [predictionId]);
    expect(n).toBe(0);
  });

  it('ignores extra columns and the outcome, and rejects a dataset missing a used column', async () => {
    const withoutOutcome = [
      'a,sepal_length_cm,sepal_width_cm,petal_length_cm,petal_width_cm,extra',
      '1,5.1,3.5,1.4,0.2,x',
      '2,6.7,3.0,5.2,2.3,y',
    ].join('\n');
    const ok = await uploadDataset(t, owner.auth, projectId, withoutOutcome, { name: 'no-outcome' });
    const { predictionId } = expectSuccess(
      await t.http().post(`${API}/analysis/${analysisId}/predict/${ok}`).set('Authorization', owner.auth).send({ modelKey: 'best' }),
    );
    expect((await finished(predictionId)).state).toBe('finished');
    const r = expectSuccess(await t.http().get(`${API}/prediction/${predictionId}/result`).set('Authorization', owner.auth));
    expect(r.predictions.map((p: { prediction: string }) => p.prediction)).toEqual(['setosa', 'virginica']);
    expect(r.predictions[0].sampleId).toBeUndefined();

    const sig: string[] = expectSuccess(await t.http().get(`${API}/analysis/${analysisId}/result`).set('Authorization', owner.auth)).models
      .best.signatures[0];
    const missing = await uploadDataset(t, owner.auth, projectId, 'x,y\n1,2\n3,4\n', { name: 'unrelated' });
    const res = await t
      .http()
      .post(`${API}/analysis/${analysisId}/predict/${missing}`)
      .set('Authorization', owner.auth)
      .send({ modelKey: 'best' });
    expectError(res, 'badRequest-150-3-1');
    expect(res.body.message).toContain(sig[0]);
  });

  it('validates the request and checks permissions on both sides', async () => {
    const post = (body: object, a = analysisId, d = trainId, auth = owner.auth) =>
      t.http().post(`${API}/analysis/${a}/predict/${d}`).set('Authorization', auth).send(body);
    expectError(await post({}), 'badRequest-1-0-5');
    expectError(await post({ modelKey: 'nope' }), 'notFound-140-1-1');
    expectError(await post({ modelKey: 'best', signatureIndex: 3 }), 'badRequest-150-0-1');
    expectError(await post({ modelKey: 'best', signatureIndex: -1 }), 'badRequest-1-0-6');
    expectError(await post({ modelKey: 'best' }, '999999'), 'notFound-120-1-1');
    expectError(await post({ modelKey: 'best' }, analysisId, '999999'), 'notFound-110-1-1');
    expectError(await post({ modelKey: 'best' }, 'x'), 'badRequest-1-0-2');
    const stranger = await createUser(t);
    expect((await post({ modelKey: 'best' }, analysisId, trainId, stranger.auth)).status).toBe(403);
    // the stranger's own dataset cannot be used with our analysis, nor ours with theirs
    const theirProject = await createProject(t, stranger.auth, 'theirs');
    const theirs = await uploadDataset(t, stranger.auth, theirProject, 'a,b\n1,2\n3,4\n');
    expect((await post({ modelKey: 'best' }, analysisId, theirs)).status).toBe(403);
    // an unfinished analysis has no model
    const pending = expectSuccess(
      await t
        .http()
        .post(`${API}/dataset/${trainId}/analyze`)
        .set('Authorization', owner.auth)
        .send({ outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'later' }),
    ).analysisId;
    const early = await post({ modelKey: 'best' }, pending);
    if (early.body.status === 'error') expect(early.body.code).toBe('notFound-120-2-3');
    expectError(await t.http().get(`${API}/prediction/999999/result`).set('Authorization', owner.auth), 'notFound-150-1-1');
  });

  it('goes when its analysis or dataset is deleted', async () => {
    const testId = await uploadDataset(t, owner.auth, projectId, split().test, { name: 'iris-test-2', hasSampleHeaders: true });
    const { predictionId } = expectSuccess(
      await t.http().post(`${API}/analysis/${analysisId}/predict/${testId}`).set('Authorization', owner.auth).send({ modelKey: 'best' }),
    );
    await finished(predictionId);
    expectSuccess(await t.http().post(`${API}/dataset/${testId}/delete`).set('Authorization', owner.auth));
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM predictions WHERE id = $1', [predictionId]);
    expect(n).toBe(0);
  });

  it('answers notFound-110-1-1 or success, never HTTP 500 or a column complaint, when its dataset is deleted at that moment', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const testId = await uploadDataset(t, owner.auth, projectId, split().test, { name: `race-${i}`, hasSampleHeaders: true });
      const [predict, deletion] = await Promise.all([
        t.http().post(`${API}/analysis/${analysisId}/predict/${testId}`).set('Authorization', owner.auth).send({ modelKey: 'best' }),
        t.http().post(`${API}/dataset/${testId}/delete`).set('Authorization', owner.auth),
      ]);
      expectSuccess(deletion);
      seen.add(predict.status === 200 ? (predict.body.status === 'success' ? 'success' : predict.body.code) : `HTTP ${predict.status}`);
    }
    expect([...seen].filter((o) => o !== 'success' && o !== 'notFound-110-1-1')).toEqual([]);
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM predictions p LEFT JOIN datasets d ON d.id = p.dataset_id WHERE d.id IS NULL',
    );
    expect(n).toBe(0);
  });
});

import * as fs from 'node:fs';
import * as path from 'node:path';
import { maxDifference, OnnxColumn, runOnnx } from '../bench/onnx-runtime';
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

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read as the JSON they are */

let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
let projectId: string;

/** A CSV of the repository's test data as rows of column -> value (numbers where they parse, null where empty). */
function csvRows(name: string): Record<string, number | string | null>[] {
  const [head, ...lines] = fs
    .readFileSync(path.join(TEST_DATA, `${name}.csv`), 'utf8')
    .trim()
    .split('\n');
  const names = head.split(',');
  return lines.map((line) =>
    Object.fromEntries(
      line.split(',').map((cell, k) => [names[k], cell === '' ? null : Number.isFinite(Number(cell)) ? Number(cell) : cell]),
    ),
  );
}

/** A finished preliminary analysis of a shared dataset. */
async function analysis(name: string, outcome: object): Promise<string> {
  const text = fs.readFileSync(path.join(TEST_DATA, `${name}.csv`), 'utf8');
  const types = name === 'lung' ? { featureTypes: { status: 'event', time: 'timeToEvent' } } : {};
  const datasetId = await uploadDataset(t, owner.auth, projectId, text, { name, ...types });
  const { analysisId } = expectSuccess(
    await t
      .http()
      .post(`${API}/dataset/${datasetId}/analyze`)
      .set('Authorization', owner.auth)
      .send({ outcome, thoroughness: 'preliminary', coreCount: 1, name }),
  );
  await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${analysisId}/status`, (s) => s.state === 'finished', 240_000);
  return analysisId;
}

/** The ONNX file of a model, as a client downloads it. */
async function exported(analysisId: string, modelKey = 'best'): Promise<Buffer> {
  const res = await t
    .http()
    .get(`${API}/analysis/${analysisId}/model`)
    .query({ modelKey, format: 'onnx' })
    .set('Authorization', owner.auth)
    .buffer(true)
    .parse((r, done) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => done(null, Buffer.concat(parts)));
    });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/octet-stream/);
  return res.body as Buffer;
}

async function score(analysisId: string, body: object): Promise<any> {
  return t.http().post(`${API}/analysis/${analysisId}/score`).set('Authorization', owner.auth).send(body);
}

/** The columns the model card names, from the rows (numbers; texts of categories; missing as NaN or ''). */
function feeds(card: any, rows: Record<string, unknown>[]): Record<string, OnnxColumn> {
  return Object.fromEntries(
    card.inputs.map((i: { name: string; type: string }) => [
      i.name,
      rows.map((r) => (i.type === 'numerical' ? ((r[i.name] as number | null) ?? NaN) : r[i.name] == null ? '' : String(r[i.name]))),
    ]),
  );
}

beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2' });
  owner = await createUser(t);
  projectId = await createProject(t, owner.auth, 'model export');
}, 60_000);
afterAll(async () => {
  await t.close();
});

describe('models that leave the service', () => {
  let breast: string;
  beforeAll(async () => {
    breast = await analysis('breast_cancer', { classification: 'diagnosis' });
  }, 300_000);

  it('exports the best breast_cancer model: onnxruntime gives what score gives, within 1e-5, and the card describes it', async () => {
    const card = expectSuccess(
      await t.http().get(`${API}/analysis/${breast}/modelCard`).query({ modelKey: 'best' }).set('Authorization', owner.auth),
    );
    const result = expectSuccess(await t.http().get(`${API}/analysis/${breast}/result`).set('Authorization', owner.auth));
    expect(card.signature).toEqual(result.models.best.signatures[0]);
    expect(card.inputs.map((i: { name: string }) => i.name)).toEqual(card.signature);
    expect(card.outcome).toMatchObject({
      task: 'classification',
      columns: { classification: 'diagnosis' },
      classes: ['benign', 'malignant'],
    });
    expect(Object.keys(card.metrics)).toEqual(Object.keys(result.models.best.performance));
    expect(card.metrics[Object.keys(card.metrics)[0]].interval).toHaveLength(2);
    expect(card.trainingSamples).toBe(569);
    expect(card.engine).toBe(result.mlEngine);
    expect(card.parameters).toMatchObject({ thoroughness: 'preliminary' });
    // the report shows the card: a table of the inputs, with how a missing value is filled
    const report = await t.http().get(`${API}/analysis/${breast}/report`).set('Authorization', owner.auth);
    expect(report.text).toContain('<h3>Model card</h3>');
    expect(report.text).toContain(`<th scope="row">${card.inputs[0].name}</th>`);
    expect(report.text).toContain('Training samples');

    const rows = csvRows('breast_cancer');
    const scored = expectSuccess(await score(breast, { modelKey: 'best', rows }));
    expect(scored.predictions).toHaveLength(rows.length);
    const onnx = await runOnnx(await exported(breast), feeds(card, rows));
    const probabilities = scored.predictions.flatMap((p: any) => ['benign', 'malignant'].map((c) => p.probabilities[c]));
    expect(maxDifference(onnx.probabilities as number[], probabilities)).toBeLessThanOrEqual(1e-5);
    expect(onnx.label).toEqual(scored.predictions.map((p: any) => p.prediction));
  }, 120_000);

  it('scores 20 rows in one call as the six-call flow does (upload, dataset, predict, wait, read)', async () => {
    const text = fs.readFileSync(path.join(TEST_DATA, 'breast_cancer.csv'), 'utf8').trim().split('\n').slice(0, 21).join('\n');
    const datasetId = await uploadDataset(t, owner.auth, projectId, text, { name: 'twenty' });
    const { predictionId } = expectSuccess(
      await t.http().post(`${API}/analysis/${breast}/predict/${datasetId}`).set('Authorization', owner.auth).send({ modelKey: 'best' }),
    );
    await pollUntil<{ state: string }>(t, owner.auth, `/prediction/${predictionId}/status`, (s) => s.state === 'finished');
    const predicted = expectSuccess(await t.http().get(`${API}/prediction/${predictionId}/result`).set('Authorization', owner.auth));
    const scored = expectSuccess(await score(breast, { modelKey: 'best', rows: csvRows('breast_cancer').slice(0, 20) }));
    expect(scored).toMatchObject({ analysisId: breast, modelKey: 'best', signatureIndex: 0 });
    expect(scored.predictions).toEqual(predicted.predictions);
  }, 120_000);

  it('refuses what predictions refuse, with their codes: a missing column, a mistyped value, an unknown model or signature', async () => {
    const card = expectSuccess(
      await t.http().get(`${API}/analysis/${breast}/modelCard`).query({ modelKey: 'best' }).set('Authorization', owner.auth),
    );
    const [first] = card.signature as string[];
    const row = csvRows('breast_cancer')[0];
    const { [first]: _dropped, ...without } = row;
    const missing = await score(breast, { modelKey: 'best', rows: [without] });
    expectError(missing, 'badRequest-150-3-1');
    expect(missing.body.message).toContain(first);
    expectError(await score(breast, { modelKey: 'best', rows: [{ ...row, [first]: 'large' }] }), 'badRequest-150-3-2');
    expectError(await score(breast, { modelKey: 'nope', rows: [row] }), 'notFound-140-1-1');
    expectError(await score(breast, { modelKey: 'best', signatureIndex: 99, rows: [row] }), 'badRequest-150-0-1');
    expectError(await score(breast, { modelKey: 'best', rows: [] }), 'badRequest-1-0-6');
    expectError(await score(breast, { modelKey: 'best', rows: Array.from({ length: 1001 }, () => row) }), 'badRequest-1-0-6');
    expectError(await score(breast, { modelKey: 'best', rows: [row], times: [1] }), 'badRequest-1-0-7');
    const pmml = await t
      .http()
      .get(`${API}/analysis/${breast}/model`)
      .query({ modelKey: 'best', format: 'pmml' })
      .set('Authorization', owner.auth);
    expectError(pmml, 'badRequest-150-5-2');
    const index = await t
      .http()
      .get(`${API}/analysis/${breast}/modelCard`)
      .query({ modelKey: 'best', signatureIndex: 'x' })
      .set('Authorization', owner.auth);
    expectError(index, 'badRequest-1-0-6');
  });
});

describe('survival and regression exports', () => {
  it('a lung analysis: the ONNX risk and survival at the stored times match score within 1e-5', async () => {
    const lung = await analysis('lung', { survival: { event: 'status', timeToEvent: 'time' } });
    const card = expectSuccess(
      await t.http().get(`${API}/analysis/${lung}/modelCard`).query({ modelKey: 'best' }).set('Authorization', owner.auth),
    );
    const rows = csvRows('lung');
    const scored = expectSuccess(await score(lung, { modelKey: 'best', rows }));
    const onnx = await runOnnx(await exported(lung), feeds(card, rows));
    expect(
      maxDifference(
        onnx.risk as number[],
        scored.predictions.map((p: any) => p.risk),
      ),
    ).toBeLessThanOrEqual(1e-5);
    expect(card.outcome.survivalTimes).toEqual(scored.predictions[0].survival.map((s: any) => s.time));
    const survival = scored.predictions.flatMap((p: any) => p.survival.map((s: any) => s.probability));
    expect(maxDifference(onnx.survival as number[], survival)).toBeLessThanOrEqual(1e-5);
  }, 300_000);

  it('a diabetes analysis: the ONNX prediction matches score within 1e-5', async () => {
    const diabetes = await analysis('diabetes', { regression: 'progression' });
    const card = expectSuccess(
      await t.http().get(`${API}/analysis/${diabetes}/modelCard`).query({ modelKey: 'best' }).set('Authorization', owner.auth),
    );
    const rows = csvRows('diabetes');
    const scored = expectSuccess(await score(diabetes, { modelKey: 'best', rows }));
    const onnx = await runOnnx(await exported(diabetes), feeds(card, rows));
    expect(
      maxDifference(
        onnx.prediction as number[],
        scored.predictions.map((p: any) => p.prediction),
      ),
    ).toBeLessThanOrEqual(1e-5);
  }, 300_000);
});

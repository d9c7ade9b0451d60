import { API, createProject, createTestApp, createUser, expectError, TestApp } from './utils';

/**
 * Issue 41, findings 2 and 15: a report is drawn off the event loop (an engine process), once (a finished result never
 * changes: later readers get the same bytes), and a report asked for while its analysis goes (its dataset deleted)
 * answers only the codes its route declares.
 */

let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
let projectId: string;

beforeAll(async () => {
  t = await createTestApp();
  owner = await createUser(t);
  projectId = await createProject(t, owner.auth, 'reports');
});
afterAll(async () => {
  await t.close();
});

/** A dataset and a finished analysis of it with a stored result (model `best`), as the modules leave them. */
async function finishedAnalysis(name: string): Promise<{ analysisId: string; datasetId: string }> {
  const [ds] = await t.db.query(
    `INSERT INTO datasets (project_id, name, sample_count, feature_count, size_in_bytes) VALUES ($1, $2, 2, 1, 10) RETURNING id`,
    [projectId, name],
  );
  const parameters = { datasetId: String(ds.id), outcome: { classification: 'y' }, thoroughness: 'preliminary', coreCount: 1, name: 'm' };
  const [a] = await t.db.query(
    `INSERT INTO analyses (project_id, dataset_id, user_id, name, parameters, state, core_count, seed, start_time, end_time)
     VALUES ($1, $2, $3, 'm', $4, 'finished', 1, 1, now() - interval '1 minute', now()) RETURNING id`,
    [projectId, ds.id, owner.userId, JSON.stringify(parameters)],
  );
  const models = {
    best: {
      preprocessing: 'none',
      featureSelection: 'none',
      model: 'Logistic regression',
      signatures: [['x']],
      performance: { Accuracy: 0.9 },
    },
  };
  await t.db.query(
    `INSERT INTO analysis_results (analysis_id, ml_engine, models, plots, pipelines, stats) VALUES ($1, 'signet-engine 0.1.0', $2, '{"best":{}}', '{}', '{}')`,
    [a.id, JSON.stringify(models)],
  );
  return { analysisId: String(a.id), datasetId: String(ds.id) };
}

const report = (analysisId: string, host?: string) => {
  const req = t.http().get(`${API}/analysis/${analysisId}/report`).set('Authorization', owner.auth);
  return host ? req.set('Host', host) : req;
};

describe('the report route', () => {
  it('draws a report once and answers the same bytes again (its time of drawing included); each origin its own', async () => {
    const { analysisId } = await finishedAnalysis('drawn once');
    // supertest listens on a new port for each request: the Host header names one origin
    const first = await report(analysisId, 'localhost:8080');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(first.text).toContain('<h2>Best model</h2>');
    await new Promise((r) => setTimeout(r, 1100));
    const again = await report(analysisId, 'localhost:8080');
    expect(again.text === first.text).toBe(true);
    const elsewhere = await report(analysisId, 'reports.example.org');
    expect(elsewhere.text).toContain('http://reports.example.org/api/public/v1');
    expect(first.text).not.toContain('reports.example.org');
  });

  it('asked while its dataset is deleted, answers the report or notFound-120-2-1, never another code (finding 15)', async () => {
    const answers: string[] = [];
    for (let k = 0; k < 12; k++) {
      const { analysisId, datasetId } = await finishedAnalysis(`raced ${k}`);
      const [res] = await Promise.all([
        report(analysisId),
        new Promise((r) => setTimeout(r, k % 4)).then(() => t.db.query(`DELETE FROM datasets WHERE id = $1`, [datasetId])),
      ]);
      // the test app answers a code the route does not declare with HTTP 500 (checkErrorCodes)
      answers.push(
        res.status === 200 && res.headers['content-type']?.startsWith('text/html') ? 'report' : `${res.status} ${res.body.code}`,
      );
    }
    expect(answers.filter((a) => a !== 'report' && a !== '200 notFound-120-2-1')).toEqual([]);
    expect(answers).toContain('200 notFound-120-2-1');
  });

  it('answers an unfinished analysis as the result route does', async () => {
    const { analysisId } = await finishedAnalysis('unfinished');
    await t.db.query(`UPDATE analyses SET state = 'running' WHERE id = $1`, [analysisId]);
    await t.db.query(`DELETE FROM analysis_results WHERE analysis_id = $1`, [analysisId]);
    expectError(await report(analysisId), 'notFound-120-2-3');
  });
});

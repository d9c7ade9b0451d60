import * as fs from 'node:fs';
import * as path from 'node:path';
import { API, createProject, createTestApp, createUser, expectSuccess, pollUntil, TEST_DATA, TestApp, uploadDataset } from './utils';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2' });
});
afterAll(async () => {
  await t.close();
});

/** Rows that belong to a project, table by table. */
async function rowsOf(projectId: string): Promise<Record<string, number>> {
  const q = async (sql: string) => (await t.db.query(sql, [projectId]))[0].n as number;
  return {
    projects: await q('SELECT count(*)::int AS n FROM projects WHERE id = $1'),
    project_shares: await q('SELECT count(*)::int AS n FROM project_shares WHERE project_id = $1'),
    datasets: await q('SELECT count(*)::int AS n FROM datasets WHERE project_id = $1'),
    dataset_columns: await q(
      'SELECT count(*)::int AS n FROM dataset_columns c JOIN datasets d ON d.id = c.dataset_id WHERE d.project_id = $1',
    ),
    tasks: await q('SELECT count(*)::int AS n FROM tasks WHERE project_id = $1'),
    analyses: await q('SELECT count(*)::int AS n FROM analyses WHERE project_id = $1'),
    analysis_results: await q(
      'SELECT count(*)::int AS n FROM analysis_results r JOIN analyses a ON a.id = r.analysis_id WHERE a.project_id = $1',
    ),
    predictions: await q('SELECT count(*)::int AS n FROM predictions p JOIN analyses a ON a.id = p.analysis_id WHERE a.project_id = $1'),
    prediction_results: await q(
      'SELECT count(*)::int AS n FROM prediction_results r JOIN predictions p ON p.id = r.prediction_id JOIN analyses a ON a.id = p.analysis_id WHERE a.project_id = $1',
    ),
    jobs: await q('SELECT count(*)::int AS n FROM jobs WHERE project_id = $1'),
    image_uploads: await q('SELECT count(*)::int AS n FROM image_uploads u JOIN tasks k ON k.id = u.task_id WHERE k.project_id = $1'),
    image_samples: await q('SELECT count(*)::int AS n FROM image_samples s JOIN tasks k ON k.id = s.task_id WHERE k.project_id = $1'),
  };
}

it('deleting a project removes every row that belongs to it, and nothing of other projects', async () => {
  const owner = await createUser(t);
  const friend = await createUser(t);
  const keep = await createProject(t, owner.auth, 'kept');
  const keptDataset = await uploadDataset(t, owner.auth, keep, 'a,b\n1,x\n2,y\n');
  const p = await createProject(t, owner.auth, 'doomed');
  expectSuccess(
    await t
      .http()
      .post(`${API}/project/${p}/share`)
      .set('Authorization', owner.auth)
      .send({ username: friend.username, permissions: ['read'] }),
  );
  const ds = await uploadDataset(t, owner.auth, p, fs.readFileSync(path.join(TEST_DATA, 'iris.csv')));
  const { analysisId } = expectSuccess(
    await t
      .http()
      .post(`${API}/dataset/${ds}/analyze`)
      .set('Authorization', owner.auth)
      .send({ outcome: { classification: 'species' }, thoroughness: 'preliminary', coreCount: 1, name: 'a' }),
  );
  await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${analysisId}/status`, (s) => s.state === 'finished', 120_000);
  const { predictionId } = expectSuccess(
    await t.http().post(`${API}/analysis/${analysisId}/predict/${ds}`).set('Authorization', owner.auth).send({ modelKey: 'best' }),
  );
  await pollUntil<{ state: string }>(t, owner.auth, `/prediction/${predictionId}/status`, (s) => s.state === 'finished');
  // an image upload left uncommitted (its sample rows and the init file stay until the project goes)
  const init = await t
    .http()
    .post(`${API}/image/initUpload`)
    .set('Authorization', owner.auth)
    .attach('file', Buffer.from('id,label\ns1,a\ns2,b\n'), 'labels.csv')
    .field('attributes', JSON.stringify({ projectId: Number(p), name: 'scans' }));
  expect(expectSuccess(init).taskId).toMatch(/^\d+$/);
  // one more analysis still queued or running when the project goes
  expectSuccess(
    await t
      .http()
      .post(`${API}/dataset/${ds}/analyze`)
      .set('Authorization', owner.auth)
      .send({ outcome: { classification: 'species' }, thoroughness: 'typical', coreCount: 1, name: 'b' }),
  );

  const before = await rowsOf(p);
  expect(Object.values(before).every((n) => n > 0)).toBe(true);
  const keptBefore = await rowsOf(keep);

  expect(expectSuccess(await t.http().post(`${API}/project/${p}/delete`).set('Authorization', owner.auth))).toEqual({
    projectId: p,
    name: 'doomed',
  });
  const after = await rowsOf(p);
  expect(after).toEqual(Object.fromEntries(Object.keys(before).map((k) => [k, 0])));
  expect(await rowsOf(keep)).toEqual(keptBefore);
  expect(expectSuccess(await t.http().get(`${API}/dataset/${keptDataset}`).set('Authorization', owner.auth)).datasetId).toBe(keptDataset);
});

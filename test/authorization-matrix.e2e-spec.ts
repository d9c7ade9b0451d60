import { API, createProject, createTestApp, createUser, TestApp } from './utils';

/**
 * The authorization matrix: every protected route is called with no token, a bad token, an expired
 * token, a stranger's token and each share level; only the levels that hold the route's permission
 * get past the guard (any answer but 403), the others get 403 and change nothing.
 */
type Level = 'read' | 'write' | 'execute' | 'owner';
interface Route {
  method: 'get' | 'post';
  path: (ids: Ids) => string;
  body?: (ids: Ids) => object;
  /** Send the body's fields as a multipart form rather than JSON. */
  form?: boolean;
  allowed: Level[];
}
interface Ids {
  projectId: string;
  /** A pending image upload task with one sample lacking its image. */
  imageTaskId: string;
  datasetId: string;
  taskId: string;
  /** A finished analysis (with a stored result) and a finished prediction of it. */
  analysisId: string;
  predictionId: string;
  /** A finished prediction of that analysis on a dataset of another project, which no level can read. */
  foreignPredictionId: string;
}

const ALL: Level[] = ['read', 'write', 'execute', 'owner'];
const WRITE: Level[] = ['write', 'owner'];
const EXECUTE: Level[] = ['execute', 'owner'];

const ROUTES: Record<string, Route> = {
  'get project': { method: 'get', path: (i) => `/project/${i.projectId}`, allowed: ['read', 'write', 'execute', 'owner'] },
  'share project': {
    method: 'post',
    path: (i) => `/project/${i.projectId}/share`,
    body: () => ({ username: 'nobody-at-all', permissions: ['read'] }),
    allowed: ['owner'],
  },
  'unshare project': {
    method: 'post',
    path: (i) => `/project/${i.projectId}/unshare`,
    body: () => ({ username: 'nobody-at-all' }),
    allowed: ['owner'],
  },
  // image init names its project inside the multipart body: the service checks write on it as soon as the
  // attributes arrive (answers 1-0-5 for the missing file)
  'image init': {
    method: 'post',
    path: () => '/image/initUpload',
    form: true,
    body: (i) => ({ attributes: JSON.stringify({ projectId: Number(i.projectId), name: 'matrix-scans' }) }),
    allowed: ['write', 'owner'],
  },
  'image add': { method: 'post', path: (i) => `/image/${i.imageTaskId}/add`, body: () => ({}), allowed: ['write', 'owner'] },
  'image commit': { method: 'get', path: (i) => `/image/${i.imageTaskId}/commit`, allowed: ['write', 'owner'] },
  'image status': { method: 'get', path: (i) => `/image/${i.imageTaskId}/status`, allowed: ['read', 'write', 'execute', 'owner'] },
  'create dataset': {
    method: 'post',
    path: () => '/file/matrix-file/createDataset',
    body: (i) => ({ projectId: i.projectId, name: 'matrix dataset', fileSizeInBytes: 8 }),
    allowed: WRITE,
  },
  'task status': { method: 'get', path: (i) => `/task/${i.taskId}/status`, allowed: ALL },
  'get dataset': { method: 'get', path: (i) => `/dataset/${i.datasetId}`, allowed: ALL },
  'list datasets': { method: 'get', path: (i) => `/datasets/${i.projectId}/0/10`, allowed: ALL },
  'dataset features': { method: 'get', path: (i) => `/dataset/${i.datasetId}/features`, allowed: ALL },
  'change feature types': {
    method: 'post',
    path: (i) => `/dataset/${i.datasetId}/changeFeatureTypes`,
    body: () => ({ featureTypes: {} }),
    allowed: WRITE,
  },
  'delete dataset': { method: 'post', path: (i) => `/dataset/${i.datasetId}/delete`, allowed: WRITE },
  analyze: { method: 'post', path: (i) => `/dataset/${i.datasetId}/analyze`, body: () => ({}), allowed: EXECUTE },
  'check analyze': { method: 'post', path: (i) => `/check/dataset/${i.datasetId}/analyze`, body: () => ({}), allowed: EXECUTE },
  'get analysis': { method: 'get', path: (i) => `/analysis/${i.analysisId}`, allowed: ALL },
  'list analyses': { method: 'get', path: (i) => `/analyses/all/${i.projectId}/0/10`, allowed: ALL },
  'analysis status': { method: 'get', path: (i) => `/analysis/${i.analysisId}/status`, allowed: ALL },
  'analysis result': { method: 'get', path: (i) => `/analysis/${i.analysisId}/result`, allowed: ALL },
  'analysis configurations': { method: 'get', path: (i) => `/analysis/${i.analysisId}/configurations/0/10`, allowed: ALL },
  'out-of-fold predictions': { method: 'get', path: (i) => `/analysis/${i.analysisId}/outOfFoldPredictions?modelKey=best`, allowed: ALL },
  'analysis report': { method: 'get', path: (i) => `/analysis/${i.analysisId}/report`, allowed: ALL },
  'available plots (GET)': { method: 'get', path: (i) => `/analysis/${i.analysisId}/availablePlots?modelKey=best`, allowed: WRITE },
  'available plots (POST)': {
    method: 'post',
    path: (i) => `/analysis/${i.analysisId}/availablePlots`,
    body: () => ({ modelKey: 'best' }),
    allowed: WRITE,
  },
  'get plot (GET)': { method: 'get', path: (i) => `/analysis/${i.analysisId}/getPlot?modelKey=best&plotKey=x`, allowed: WRITE },
  'get plot (POST)': {
    method: 'post',
    path: (i) => `/analysis/${i.analysisId}/getPlot`,
    body: () => ({ modelKey: 'best', plotKey: 'x' }),
    allowed: WRITE,
  },
  'get plots (GET)': { method: 'get', path: (i) => `/analysis/${i.analysisId}/getPlots?modelKey=best`, allowed: WRITE },
  'get plots (POST)': {
    method: 'post',
    path: (i) => `/analysis/${i.analysisId}/getPlots`,
    body: () => ({ modelKey: 'best' }),
    allowed: WRITE,
  },
  predict: {
    method: 'post',
    path: (i) => `/analysis/${i.analysisId}/predict/${i.datasetId}`,
    body: () => ({ modelKey: 'best' }),
    allowed: EXECUTE,
  },
  'model card': { method: 'get', path: (i) => `/analysis/${i.analysisId}/modelCard?modelKey=best`, allowed: ALL },
  'model export (ONNX)': { method: 'get', path: (i) => `/analysis/${i.analysisId}/model?modelKey=best&format=onnx`, allowed: ALL },
  score: {
    method: 'post',
    path: (i) => `/analysis/${i.analysisId}/score`,
    body: () => ({ modelKey: 'best', rows: [{ x: 1 }] }),
    allowed: EXECUTE,
  },
  'prediction status': { method: 'get', path: (i) => `/prediction/${i.predictionId}/status`, allowed: ALL },
  'prediction result': { method: 'get', path: (i) => `/prediction/${i.predictionId}/result`, allowed: ALL },
  'list predictions': { method: 'get', path: (i) => `/analysis/${i.analysisId}/predictions/0/10`, allowed: ALL },
  // docs/decisions.md: reading a prediction needs read on its dataset's project too, whatever the level on the model's
  'foreign prediction status': { method: 'get', path: (i) => `/prediction/${i.foreignPredictionId}/status`, allowed: [] },
  'foreign prediction result': { method: 'get', path: (i) => `/prediction/${i.foreignPredictionId}/result`, allowed: [] },
  'foreign prediction result (CSV)': { method: 'get', path: (i) => `/prediction/${i.foreignPredictionId}/result?format=csv`, allowed: [] },
  'delete prediction': { method: 'post', path: (i) => `/prediction/${i.predictionId}/delete`, allowed: WRITE },
  'delete analysis': { method: 'post', path: (i) => `/analysis/${i.analysisId}/delete`, allowed: WRITE },
  // delete last: it destroys the fixture
  'delete project': { method: 'post', path: (i) => `/project/${i.projectId}/delete`, allowed: ['owner'] },
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function fixture() {
  const owner = await createUser(t);
  const projectId = await createProject(t, owner.auth, 'matrix');
  const levels: Record<Level, string> = { owner: owner.auth, read: '', write: '', execute: '' };
  for (const level of ['read', 'write', 'execute'] as const) {
    const u = await createUser(t);
    await t.db.query(`INSERT INTO project_shares (project_id, user_id, can_read, can_write, can_execute) VALUES ($1, $2, true, $3, $4)`, [
      projectId,
      u.userId,
      level === 'write',
      level === 'execute',
    ]);
    levels[level] = u.auth;
  }
  const stranger = await createUser(t);
  const expired = await createUser(t);
  await t.db.query(`UPDATE tokens SET expires_at = now() - interval '1 minute' WHERE user_id = $1`, [expired.userId]);
  const [imageTask] = await t.db.query(`INSERT INTO tasks (kind, user_id, project_id) VALUES ('imageUpload', $1, $2) RETURNING id`, [
    owner.userId,
    projectId,
  ]);
  await t.db.query(`INSERT INTO image_samples (task_id, idx, sample_id) VALUES ($1, 0, 's1')`, [imageTask.id]);
  // rows as the modules leave them, made directly: the matrix is about the guard, not the engine
  const [ds] = await t.db.query(
    `INSERT INTO datasets (project_id, name, sample_count, feature_count, size_in_bytes) VALUES ($1, 'matrix', 0, 0, 0) RETURNING id`,
    [projectId],
  );
  const [task] = await t.db.query(
    `INSERT INTO tasks (kind, user_id, project_id, state, dataset_id) VALUES ('createDataset', $1, $2, 'finished', $3) RETURNING id`,
    [owner.userId, projectId, ds.id],
  );
  const parameters = { datasetId: String(ds.id), outcome: { classification: 'y' }, thoroughness: 'preliminary', coreCount: 1, name: 'm' };
  const [analysis] = await t.db.query(
    `INSERT INTO analyses (project_id, dataset_id, user_id, name, parameters, state, core_count, seed, start_time, end_time)
     VALUES ($1, $2, $3, 'm', $4, 'finished', 1, 1, now(), now()) RETURNING id`,
    [projectId, ds.id, owner.userId, JSON.stringify(parameters)],
  );
  const models = { best: { preprocessing: '', featureSelection: '', model: '', signatures: [[]], performance: {} } };
  await t.db.query(
    `INSERT INTO analysis_results (analysis_id, ml_engine, models, plots, pipelines, stats) VALUES ($1, 'signet-engine 0.1.0', $2, '{}', '{}', '{}')`,
    [analysis.id, JSON.stringify(models)],
  );
  const [prediction] = await t.db.query(
    `INSERT INTO predictions (analysis_id, dataset_id, user_id, model_key, state) VALUES ($1, $2, $3, 'best', 'finished') RETURNING id`,
    [analysis.id, ds.id, owner.userId],
  );
  await t.db.query(`INSERT INTO prediction_results (prediction_id, rows) VALUES ($1, '[]')`, [prediction.id]);
  const foreignOwner = await createUser(t);
  const foreignProject = await createProject(t, foreignOwner.auth, 'foreign');
  const [foreignDs] = await t.db.query(
    `INSERT INTO datasets (project_id, name, sample_count, feature_count, size_in_bytes) VALUES ($1, 'foreign', 0, 0, 0) RETURNING id`,
    [foreignProject],
  );
  const [foreignPrediction] = await t.db.query(
    `INSERT INTO predictions (analysis_id, dataset_id, user_id, model_key, state) VALUES ($1, $2, $3, 'best', 'finished') RETURNING id`,
    [analysis.id, foreignDs.id, foreignOwner.userId],
  );
  await t.db.query(`INSERT INTO prediction_results (prediction_id, rows) VALUES ($1, '[]')`, [foreignPrediction.id]);
  const ids: Ids = {
    projectId,
    imageTaskId: String(imageTask.id),
    datasetId: String(ds.id),
    taskId: String(task.id),
    analysisId: String(analysis.id),
    predictionId: String(prediction.id),
    foreignPredictionId: String(foreignPrediction.id),
  };
  return { ids, levels, stranger: stranger.auth, expired: expired.auth };
}

function call(route: Route, ids: Ids, auth?: string) {
  const req = route.method === 'get' ? t.http().get(API + route.path(ids)) : t.http().post(API + route.path(ids));
  if (auth) req.set('Authorization', auth);
  if (route.body && route.form) {
    for (const [k, v] of Object.entries(route.body(ids))) req.field(k, String(v));
    return req;
  }
  return route.body ? req.send(route.body(ids)) : req;
}

describe.each(Object.entries(ROUTES))('%s', (_name, route) => {
  it('refuses callers without the permission (403) and lets the others past', async () => {
    const f = await fixture();
    const denied: Record<string, number> = {};
    for (const [who, auth] of [
      ['no token', undefined],
      ['bad token', 'Bearer not-a-real-token'],
      ['expired token', f.expired],
      ['stranger', f.stranger],
    ] as const) {
      denied[who] = (await call(route, f.ids, auth)).status;
    }
    expect(denied).toEqual({ 'no token': 403, 'bad token': 403, 'expired token': 403, stranger: 403 });

    const byLevel: Record<string, boolean> = {};
    const expected: Record<string, boolean> = {};
    // refused levels first: a destructive route must be refused before an allowed call removes its target
    const order = (['read', 'write', 'execute', 'owner'] as const)
      .slice()
      .sort((a, b) => Number(route.allowed.includes(a)) - Number(route.allowed.includes(b)));
    for (const level of order) {
      const res = await call(route, f.ids, f.levels[level]);
      byLevel[level] = res.status !== 403;
      expected[level] = route.allowed.includes(level);
    }
    expect(byLevel).toEqual(expected);
  });
});

it('changes nothing when access is refused', async () => {
  const f = await fixture();
  await call(ROUTES['delete project'], f.ids, f.levels.write);
  await call(ROUTES['delete project'], f.ids, f.stranger);
  const [row] = await t.db.query('SELECT count(*)::int AS n FROM projects WHERE id = $1', [f.ids.projectId]);
  expect(row.n).toBe(1);
});

// uploaded files belong to a user, not a project: any signed-in user may call the routes, on their own files only
it("files routes: refused without a valid token; one user never sees nor deletes another user's file", async () => {
  const f = await fixture();
  const up = await t.http().post(`${API}/file/mine.csv/upload`).set('Authorization', f.levels.owner).send(Buffer.from('a\n1\n'));
  expect(up.body.status).toBe('success');
  for (const auth of [undefined, 'Bearer not-a-real-token', f.expired]) {
    const list = t.http().get(`${API}/files/0/10`);
    const del = t.http().post(`${API}/file/mine.csv/delete`);
    if (auth) {
      list.set('Authorization', auth);
      del.set('Authorization', auth);
    }
    expect([(await list).status, (await del).status]).toEqual([403, 403]);
  }
  for (const auth of [f.stranger, f.levels.write]) {
    const list = await t.http().get(`${API}/files/0/10`).set('Authorization', auth);
    expect(list.body.payload).toEqual({ offset: 0, totalCount: 0, data: [] });
    const del = await t.http().post(`${API}/file/mine.csv/delete`).set('Authorization', auth);
    expect(del.body.code).toBe('notFound-115-1-1');
  }
  const mine = await t.http().get(`${API}/files/0/10`).set('Authorization', f.levels.owner);
  expect(mine.body.payload.data.map((x: { fileId: string }) => x.fileId)).toEqual(['mine.csv']);
});

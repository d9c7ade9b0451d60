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
  allowed: Level[];
}
interface Ids {
  projectId: string;
  /** A pending image upload task with one sample lacking its image. */
  imageTaskId: string;
}

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
  // image init names its project inside the body: the service checks write on it (answers 1-0-5 for the missing file)
  'image init': {
    method: 'post',
    path: () => '/image/initUpload',
    body: (i) => ({ attributes: JSON.stringify({ projectId: Number(i.projectId), name: 'matrix-scans' }) }),
    allowed: ['write', 'owner'],
  },
  'image add': { method: 'post', path: (i) => `/image/${i.imageTaskId}/add`, body: () => ({}), allowed: ['write', 'owner'] },
  'image commit': { method: 'get', path: (i) => `/image/${i.imageTaskId}/commit`, allowed: ['write', 'owner'] },
  'image status': { method: 'get', path: (i) => `/image/${i.imageTaskId}/status`, allowed: ['read', 'write', 'execute', 'owner'] },
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
    await t.db.query(
      `INSERT INTO project_shares (project_id, user_id, can_read, can_write, can_execute) VALUES ($1, $2, true, $3, $4)`,
      [projectId, u.userId, level === 'write', level === 'execute'],
    );
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
  return { ids: { projectId, imageTaskId: String(imageTask.id) }, levels, stranger: stranger.auth, expired: expired.auth };
}

function call(route: Route, ids: Ids, auth?: string) {
  const req = route.method === 'get' ? t.http().get(API + route.path(ids)) : t.http().post(API + route.path(ids));
  if (auth) req.set('Authorization', auth);
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
    for (const level of ['read', 'write', 'execute', 'owner'] as const) {
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

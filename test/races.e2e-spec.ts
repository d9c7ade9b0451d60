import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { UsersService } from '../src/auth/users.service';
import { API, createProject, createTestApp, createUser, expectError, expectSuccess, TestApp, uploadDataset } from './utils';

/**
 * A request that refers to a row (a project, a dataset, a file, its own user) while another request deletes it:
 * each answers with an envelope (success, or the row's notFound code), never HTTP 500, and leaves no half-made
 * rows. Each race failed with HTTP 500 (a foreign-key violation) or a wrong code before keepRow.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2' });
});
afterAll(async () => {
  await t.close();
});

type Res = { status: number; body: { status?: string; code?: string } };
/** What a response was: "success", or its error code; anything but HTTP 200 is reported with its status. */
const outcome = (r: Res) => (r.status !== 200 ? `HTTP ${r.status}` : r.body.status === 'success' ? 'success' : r.body.code);

/** Runs `rounds` rounds of `make` (fresh rows) then `pair` (the two racing requests at once); gives every outcome of the first. */
async function race<T>(rounds: number, make: () => Promise<T>, pair: (x: T) => [Promise<Res>, Promise<Res>]): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < rounds; i++) {
    const x = await make();
    const [first, deletion] = await Promise.all(pair(x));
    expectSuccess(deletion);
    seen.add(outcome(first) as string);
  }
  return seen;
}

const post = (path: string, auth: string, body: object = {}) =>
  t
    .http()
    .post(API + path)
    .set('Authorization', auth)
    .send(body);

describe('a create racing the delete of what it refers to', () => {
  it('share vs project delete: success or notFound-100-1-1', async () => {
    const [owner, other] = [await createUser(t), await createUser(t)];
    const seen = await race(
      15,
      () => createProject(t, owner.auth, `p${Math.random()}`),
      (p) => [
        post(`/project/${p}/share`, owner.auth, { username: other.username, permissions: ['read'] }),
        post(`/project/${p}/delete`, owner.auth),
      ],
    );
    expect([...seen].filter((o) => o !== 'success' && o !== 'notFound-100-1-1')).toEqual([]);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM project_shares WHERE user_id = $1', [other.userId]);
    expect(n).toBe(0);
  });

  it('createDataset and image initUpload vs project delete: success or notFound-100-1-1, no task left', async () => {
    const owner = await createUser(t);
    expectSuccess(await t.http().post(`${API}/file/rows.csv/upload`).set('Authorization', owner.auth).send(Buffer.from('a,b\n1,2\n3,4\n')));
    const create = await race(
      15,
      () => createProject(t, owner.auth, `p${Math.random()}`),
      (p) => [
        post('/file/rows.csv/createDataset', owner.auth, { projectId: Number(p), name: 'rows', fileSizeInBytes: 12 }),
        post(`/project/${p}/delete`, owner.auth),
      ],
    );
    const init = await race(
      15,
      () => createProject(t, owner.auth, `p${Math.random()}`),
      (p) => [
        t
          .http()
          .post(`${API}/image/initUpload`)
          .set('Authorization', owner.auth)
          .field('attributes', JSON.stringify({ projectId: Number(p), name: 'scans' }))
          .attach('file', Buffer.from('sampleId,y\ns1,a\ns2,b\n'), 'init.csv'),
        post(`/project/${p}/delete`, owner.auth),
      ],
    );
    expect([...create, ...init].filter((o) => o !== 'success' && o !== 'notFound-100-1-1')).toEqual([]);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM tasks WHERE user_id = $1', [owner.userId]);
    expect(n).toBe(0);
  });

  it('analyze vs dataset delete: success or notFound-110-1-1 (never a complaint about the outcome)', async () => {
    const owner = await createUser(t, undefined, 64);
    const p = await createProject(t, owner.auth);
    const csv = 'x,y\n' + Array.from({ length: 20 }, (_, i) => `${i},${i % 2 ? 'a' : 'b'}`).join('\n');
    const seen = await race(
      12,
      () => uploadDataset(t, owner.auth, p, csv),
      (ds) => [
        post(`/dataset/${ds}/analyze`, owner.auth, {
          outcome: { classification: 'y' },
          thoroughness: 'preliminary',
          coreCount: 1,
          name: 'a',
        }),
        post(`/dataset/${ds}/delete`, owner.auth),
      ],
    );
    expect([...seen].filter((o) => o !== 'success' && o !== 'notFound-110-1-1')).toEqual([]);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM analyses WHERE project_id = $1', [p]);
    expect(n).toBe(0);
  });
});

describe('an upload whose user is deleted meanwhile', () => {
  it('ends with an envelope (badRequest-1-0-4), not HTTP 500, and leaves no rows', async () => {
    const server = t.app.getHttpServer() as import('node:http').Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const user = await createUser(t);
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d.toString('utf8')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      `POST ${API}/file/big/upload HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${user.auth}\r\n` +
        `Content-Type: application/octet-stream\r\nContent-Length: ${3 * 1024 * 1024}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(Buffer.alloc(1024 * 1024 + 10, 'a')); // a first chunk is written
    const rows = async () => (await t.db.query('SELECT count(*)::int AS n FROM files WHERE user_id = $1', [user.userId]))[0].n;
    for (let i = 0; i < 200 && (await rows()) === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await t.app.get(UsersService).deleteUser(user.username);
    socket.write(Buffer.alloc(2 * 1024 * 1024 - 10, 'a'));
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200/);
    expect(received).toContain('"code":"badRequest-1-0-4"');
    expect(await rows()).toBe(0);
  });
});

describe('a file a dataset is being created from', () => {
  let paused: TestApp;
  beforeAll(async () => {
    paused = await createTestApp({ RUN_WORKERS: 'false' }); // the task stays pending
  });
  afterAll(async () => {
    await paused.close();
  });

  it('can be neither replaced nor deleted until the task ends (conflict-115-5-1)', async () => {
    const owner = await createUser(paused);
    const p = await createProject(paused, owner.auth);
    const up = (body: string) =>
      paused.http().post(`${API}/file/cohort.csv/upload`).set('Authorization', owner.auth).send(Buffer.from(body));
    expectSuccess(await up('a,b\n1,2\n'));
    expectSuccess(
      await paused
        .http()
        .post(`${API}/file/cohort.csv/createDataset`)
        .set('Authorization', owner.auth)
        .send({ projectId: Number(p), name: 'cohort', fileSizeInBytes: 8 }),
    );
    expectError(await up('a,b\n5,6\n7,8\n'), 'conflict-115-5-1');
    expectError(await paused.http().post(`${API}/file/cohort.csv/delete`).set('Authorization', owner.auth), 'conflict-115-5-1');
    const files = expectSuccess(await paused.http().get(`${API}/files/0/10`).set('Authorization', owner.auth));
    expect(files.data).toEqual([expect.objectContaining({ fileId: 'cohort.csv', sizeInBytes: 8, inUse: true })]);
    // once the task has ended, both work
    await paused.db.query(`UPDATE tasks SET state = 'failed' WHERE user_id = $1`, [owner.userId]);
    expectSuccess(await up('a,b\n5,6\n7,8\n'));
    expectSuccess(await paused.http().post(`${API}/file/cohort.csv/delete`).set('Authorization', owner.auth));
  });
});

describe('concurrent changes of the feature types of one dataset', () => {
  it('all succeed, one after the other (they deadlocked: HTTP 500), and the last one written wins whole', async () => {
    const owner = await createUser(t);
    const p = await createProject(t, owner.auth);
    const width = 3000;
    const names = Array.from({ length: width }, (_, i) => `c${i}`);
    const csv = `${names.join(',')}\n${names.map((_, i) => i).join(',')}\n${names.map((_, i) => i + 1).join(',')}\n`;
    const ds = await uploadDataset(t, owner.auth, p, csv);
    // the same columns named in opposite orders, half to categorical, half back to numerical
    const body = (type: string, reversed: boolean) => ({
      featureTypes: Object.fromEntries((reversed ? [...names].reverse() : names).map((n) => [n, type])),
    });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(`/dataset/${ds}/changeFeatureTypes`, owner.auth, body(i % 2 ? 'categorical' : 'numerical', i % 4 < 2)),
      ),
    );
    expect(answers.map(outcome)).toEqual(Array(8).fill('success'));
    const types = new Set(
      expectSuccess(await t.http().get(`${API}/dataset/${ds}/features`).set('Authorization', owner.auth)).features.map(
        (f: { type: string }) => f.type,
      ),
    );
    expect(types.size).toBe(1); // one request's types throughout, never a mix
  }, 60_000);
});

describe("one user's burst of requests that queue jobs", () => {
  let busy: TestApp;
  beforeAll(async () => {
    // a small pool that a burst could take whole; no workers (the builds stay queued); no queue limit (the lock holds them all)
    busy = await createTestApp({ DB_POOL_SIZE: '4', DB_POOL_WAIT_MS: '2000', RUN_WORKERS: 'false', MAX_QUEUED_JOBS_PER_USER: '0' });
  });
  afterAll(async () => {
    await busy.close();
  });

  it("waits its turns without pooled connections: another user's reads are answered, the surplus gets tooMany-1-0-1 (250 held every connection)", async () => {
    const [a, b] = [await createUser(busy), await createUser(busy)];
    const projectId = await createProject(busy, a.auth, 'burst');
    expectSuccess(await busy.http().post(`${API}/file/f/upload`).set('Authorization', a.auth).send(Buffer.from('x,y\n1,2\n')));
    const burst = Array.from({ length: 250 }, (_, i) =>
      busy
        .http()
        .post(`${API}/file/f/createDataset`)
        .set('Authorization', a.auth)
        .send({ projectId, name: `burst-${i}`, fileSizeInBytes: 8 })
        .then(outcome),
    );
    // b reads while the burst is under way
    await new Promise((r) => setTimeout(r, 100));
    const reads = await Promise.all(
      Array.from({ length: 10 }, () => busy.http().get(`${API}/projects/owned/0/10`).set('Authorization', b.auth).then(outcome)),
    );
    const answers = await Promise.all(burst);
    expect(new Set(reads)).toEqual(new Set(['success']));
    const counts = answers.reduce<Record<string, number>>((m, o) => ({ ...m, [String(o)]: (m[String(o)] ?? 0) + 1 }), {});
    expect(Object.keys(counts).sort()).toEqual(['success', 'tooMany-1-0-1']);
    const [{ n }] = await busy.db.query(`SELECT count(*)::int AS n FROM jobs WHERE user_id = $1`, [a.userId]);
    expect(n).toBe(counts.success);
  });
});

import { API, createProject, createTestApp, createUser, expectError, expectSuccess, TestApp } from './utils';
import * as fs from 'node:fs';
import * as path from 'node:path';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('envelope, version and operations', () => {
  it('serves the version without a token', async () => {
    const res = await t.http().get(`${API}/version`);
    expect(expectSuccess(res)).toEqual({ version: '0.1.0', mlEngine: expect.stringMatching(/^signet-engine \d+\.\d+\.\d+$/) });
  });

  it('answers 404 for an undefined endpoint, with or without a token', async () => {
    const u = await createUser(t);
    expect((await t.http().get(`${API}/nothing/here`)).status).toBe(404);
    expect((await t.http().post(`${API}/project`).set('Authorization', u.auth)).status).toBe(404);
    expect((await t.http().get('/other')).status).toBe(404);
  });

  it('reports liveness and readiness', async () => {
    expect((await t.http().get(`${API}/health/live`)).body).toEqual({ status: 'ok' });
    expect((await t.http().get(`${API}/health/ready`)).body).toEqual({ status: 'ok', database: 'ok' });
  });

  it('serves the OpenAPI document listing the routes, and the docs page', async () => {
    const doc = await t.http().get(`${API}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([`/${API.slice(1)}/login`, `/${API.slice(1)}/project/{projectId}/delete`]),
    );
    const page = await t.http().get(`${API}/docs`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger');
  });

  it('writes the admin credentials file (mode 0600) on first start, and they log in', async () => {
    const file = path.join(t.config.dataDir, 'admin-credentials.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(creds.username).toBe('admin');
    const res = await t.http().post(`${API}/login`).send({ usernameOrEmail: 'admin', password: creds.password });
    expect(expectSuccess(res).token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await t.http().get(`${API}/projects/owned/0/10`).set('Authorization', `Bearer ${creds.token}`);
    expect(expectSuccess(me).totalCount).toBe(0);
  });
});

describe('login and tokens', () => {
  it('logs in by username or email and rejects bad credentials with auth-10-3', async () => {
    const u = await createUser(t, 'carol');
    await t.db.query(`UPDATE users SET email = 'carol@example.org' WHERE id = $1`, [u.userId]);
    const byName = await t.http().post(`${API}/login`).send({ usernameOrEmail: 'carol', password: 'password-carol' });
    const token = expectSuccess(byName).token as string;
    const byEmail = await t.http().post(`${API}/login`).send({ usernameOrEmail: 'Carol@example.org', password: 'password-carol' });
    expect(expectSuccess(byEmail).token).not.toBe(token);
    expectError(await t.http().post(`${API}/login`).send({ usernameOrEmail: 'carol', password: 'nope' }), 'auth-10-3');
    expectError(await t.http().post(`${API}/login`).send({ usernameOrEmail: 'nobody', password: 'x' }), 'auth-10-3');
    expectError(await t.http().post(`${API}/login`).send({ usernameOrEmail: 'carol' }), 'badRequest-1-0-5');
    expectError(await t.http().post(`${API}/login`).send({ usernameOrEmail: 5, password: 'x' }), 'badRequest-1-0-6');
  });

  it('stores only hashes of passwords and tokens', async () => {
    const u = await createUser(t);
    const [row] = await t.db.query('SELECT password_hash FROM users WHERE id = $1', [u.userId]);
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain(`password-${u.username}`);
    const tokens = await t.db.query('SELECT token_hash FROM tokens WHERE user_id = $1', [u.userId]);
    expect(tokens.map((r: { token_hash: Buffer }) => r.token_hash.length)).toEqual([32]);
    expect(tokens[0].token_hash.toString('base64url')).not.toBe(u.token);
  });

  it('refuses missing, malformed, unknown, expired and revoked tokens with 403', async () => {
    const u = await createUser(t);
    const url = `${API}/projects/owned/0/10`;
    expect((await t.http().get(url)).status).toBe(403);
    expect((await t.http().get(url).set('Authorization', u.token)).status).toBe(403);
    expect(
      (
        await t
          .http()
          .get(url)
          .set('Authorization', 'Bearer ' + 'x'.repeat(43))
      ).status,
    ).toBe(403);
    expect((await t.http().get(url).set('Authorization', 'Basic abc')).status).toBe(403);
    expect((await t.http().get(url).set('Authorization', u.auth)).status).toBe(200);

    await t.db.query(`UPDATE tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [u.userId]);
    expect((await t.http().get(url).set('Authorization', u.auth)).status).toBe(403);

    const login = await t
      .http()
      .post(`${API}/login`)
      .send({ usernameOrEmail: u.username, password: `password-${u.username}` });
    const auth = `Bearer ${expectSuccess(login).token}`;
    expect((await t.http().get(url).set('Authorization', auth)).status).toBe(200);
    expect(expectSuccess(await t.http().post(`${API}/logout`).set('Authorization', auth))).toEqual({});
    expect((await t.http().get(url).set('Authorization', auth)).status).toBe(403);
  });

  it('gives tokens the configured lifetime', async () => {
    const u = await createUser(t);
    const [row] = await t.db.query(`SELECT extract(epoch FROM expires_at - created_at) AS seconds FROM tokens WHERE user_id = $1`, [
      u.userId,
    ]);
    expect(Math.round(Number(row.seconds) / 3600)).toBe(168);
  });
});

describe('projects', () => {
  it('creates, gets and lists owned projects with the spec shapes', async () => {
    const u = await createUser(t);
    const a = expectSuccess(
      await t.http().post(`${API}/createProject`).set('Authorization', u.auth).send({ name: 'Alpha', description: 'first' }),
    ).projectId;
    const b = await createProject(t, u.auth, 'Beta');
    expect(a).toMatch(/^[1-9]\d*$/);
    expect(expectSuccess(await t.http().get(`${API}/project/${a}`).set('Authorization', u.auth))).toEqual({
      projectId: a,
      name: 'Alpha',
      description: 'first',
    });
    expect(expectSuccess(await t.http().get(`${API}/project/${b}`).set('Authorization', u.auth))).toEqual({
      projectId: b,
      name: 'Beta',
    });
    const list = expectSuccess(await t.http().get(`${API}/projects/owned/0/100`).set('Authorization', u.auth));
    expect(list).toEqual({
      offset: 0,
      totalCount: 2,
      data: [
        { projectId: a, name: 'Alpha', description: 'first' },
        { projectId: b, name: 'Beta' },
      ],
    });
  });

  it('paginates with data length min(count, totalCount - offset)', async () => {
    const u = await createUser(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createProject(t, u.auth, `p${i}`));
    const page = async (offset: number | string, count: number | string) =>
      t.http().get(`${API}/projects/owned/${offset}/${count}`).set('Authorization', u.auth);
    expect(expectSuccess(await page(1, 2)).data.map((p: { projectId: string }) => p.projectId)).toEqual(ids.slice(1, 3));
    expect(expectSuccess(await page(3, 100))).toMatchObject({ offset: 3, totalCount: 5 });
    expect(expectSuccess(await page(3, 100)).data).toHaveLength(2);
    expect(expectSuccess(await page(5, 10))).toEqual({ offset: 5, totalCount: 5, data: [] });
    expect(expectSuccess(await page(50, 10))).toEqual({ offset: 50, totalCount: 5, data: [] });
    expect(expectSuccess(await page(0, 0))).toEqual({ offset: 0, totalCount: 5, data: [] });
    for (const [o, c] of [
      [-1, 10],
      [0, 101],
      ['a', 1],
      [0, 'x'],
      [1.5, 2],
      [0, -3],
      ['1e3', 2],
    ]) {
      expectError(await page(o, c), 'badRequest-1-0-1');
    }
  });

  it('validates project fields', async () => {
    const u = await createUser(t);
    const post = (body: unknown) =>
      t
        .http()
        .post(`${API}/createProject`)
        .set('Authorization', u.auth)
        .send(body as object);
    expectError(await post({}), 'badRequest-1-0-5');
    expectError(await post({ name: '' }), 'badRequest-100-0-1');
    expectError(await post({ name: 'x'.repeat(61) }), 'badRequest-100-0-1');
    expectError(await post({ name: 7 }), 'badRequest-1-0-6');
    expectError(await post({ name: 'ok', description: 'd'.repeat(256) }), 'badRequest-100-0-2');
    expectError(await post({ name: 'ok', extra: 1 }), 'badRequest-1-0-7');
    expectError(await post([1, 2]), 'badRequest-1-0-4');
    expect(expectSuccess(await post({ name: 'x'.repeat(60), description: 'd'.repeat(255) })).projectId).toMatch(/^\d+$/);
  });

  it('gives notFound for unknown ids and badRequest-1-0-2 for malformed ones', async () => {
    const u = await createUser(t);
    expectError(await t.http().get(`${API}/project/999999`).set('Authorization', u.auth), 'notFound-100-1-1');
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999', "1'%20OR%201=1", '%2e%2e']) {
      expectError(await t.http().get(`${API}/project/${bad}`).set('Authorization', u.auth), 'badRequest-1-0-2');
    }
  });

  it('lets only the owner delete, and returns the deleted project', async () => {
    const owner = await createUser(t);
    const other = await createUser(t);
    const p = expectSuccess(
      await t.http().post(`${API}/createProject`).set('Authorization', owner.auth).send({ name: 'Gone', description: 'd' }),
    ).projectId;
    expect((await t.http().post(`${API}/project/${p}/delete`).set('Authorization', other.auth)).status).toBe(403);
    expect(expectSuccess(await t.http().post(`${API}/project/${p}/delete`).set('Authorization', owner.auth))).toEqual({
      projectId: p,
      name: 'Gone',
      description: 'd',
    });
    expectError(await t.http().get(`${API}/project/${p}`).set('Authorization', owner.auth), 'notFound-100-1-1');
    expectError(await t.http().post(`${API}/project/${p}/delete`).set('Authorization', owner.auth), 'notFound-100-1-1');
  });
});

describe('sharing and permissions', () => {
  it('shares with read, write, execute and enforces them per route', async () => {
    const owner = await createUser(t);
    const reader = await createUser(t);
    const stranger = await createUser(t);
    const p = await createProject(t, owner.auth, 'Shared');

    expect((await t.http().get(`${API}/project/${p}`).set('Authorization', reader.auth)).status).toBe(403);
    const shared = await t
      .http()
      .post(`${API}/project/${p}/share`)
      .set('Authorization', owner.auth)
      .send({ username: reader.username, permissions: ['write'] });
    expect(expectSuccess(shared)).toEqual({ projectId: p, username: reader.username, permissions: ['read', 'write'] });

    expect(expectSuccess(await t.http().get(`${API}/project/${p}`).set('Authorization', reader.auth)).name).toBe('Shared');
    expect((await t.http().get(`${API}/project/${p}`).set('Authorization', stranger.auth)).status).toBe(403);
    // owned routes stay with the owner
    expect((await t.http().post(`${API}/project/${p}/delete`).set('Authorization', reader.auth)).status).toBe(403);
    expect(
      (
        await t
          .http()
          .post(`${API}/project/${p}/share`)
          .set('Authorization', reader.auth)
          .send({ username: stranger.username, permissions: ['read'] })
      ).status,
    ).toBe(403);

    const list = expectSuccess(await t.http().get(`${API}/projects/shared/0/10`).set('Authorization', reader.auth));
    expect(list).toEqual({ offset: 0, totalCount: 1, data: [{ projectId: p, name: 'Shared' }] });
    expect(expectSuccess(await t.http().get(`${API}/projects/owned/0/10`).set('Authorization', reader.auth)).totalCount).toBe(0);

    expect(
      expectSuccess(
        await t.http().post(`${API}/project/${p}/unshare`).set('Authorization', owner.auth).send({ username: reader.username }),
      ),
    ).toEqual({ projectId: p, username: reader.username });
    expect((await t.http().get(`${API}/project/${p}`).set('Authorization', reader.auth)).status).toBe(403);
    expect(expectSuccess(await t.http().get(`${API}/projects/shared/0/10`).set('Authorization', reader.auth)).totalCount).toBe(0);
  });

  it('validates share requests', async () => {
    const owner = await createUser(t);
    const p = await createProject(t, owner.auth);
    const share = (body: object) => t.http().post(`${API}/project/${p}/share`).set('Authorization', owner.auth).send(body);
    expectError(await share({ username: 'nobody-here', permissions: ['read'] }), 'badRequest-10-0-1');
    expectError(await share({ username: owner.username, permissions: ['read'] }), 'badRequest-10-0-3');
    // nor unshared from the owner: the owner keeps every permission
    expectError(
      await t.http().post(`${API}/project/${p}/unshare`).set('Authorization', owner.auth).send({ username: owner.username }),
      'badRequest-10-0-3',
    );
    const other = await createUser(t);
    expectError(await share({ username: other.username, permissions: ['admin'] }), 'badRequest-10-0-2');
    expectError(await share({ username: other.username, permissions: [] }), 'badRequest-10-0-2');
    expectError(await share({ username: other.username, permissions: 'read' }), 'badRequest-1-0-6');
    expectError(await share({ username: other.username }), 'badRequest-1-0-5');
  });
});

describe('malformed requests', () => {
  it('answers a corpus of bad requests with envelopes or 403/404, never 500, and stores strings verbatim', async () => {
    const u = await createUser(t);
    const p = await createProject(t, u.auth);
    const huge = 'x'.repeat(2 * 1024 * 1024);
    const cases: Array<() => Promise<{ status: number; body: { status?: string } }>> = [
      () => t.http().post(`${API}/createProject`).set('Authorization', u.auth).set('Content-Type', 'application/json').send('{"name":'),
      () => t.http().post(`${API}/createProject`).set('Authorization', u.auth).set('Content-Type', 'application/json').send('null'),
      () => t.http().post(`${API}/createProject`).set('Authorization', u.auth).set('Content-Type', 'application/json').send('"str"'),
      () =>
        t
          .http()
          .post(`${API}/createProject`)
          .set('Authorization', u.auth)
          .set('Content-Type', 'application/json')
          .send(`{"name":"${huge}"}`),
      () =>
        t
          .http()
          .post(`${API}/createProject`)
          .set('Authorization', u.auth)
          .send({ name: { $ne: 1 } }),
      () =>
        t
          .http()
          .post(`${API}/createProject`)
          .set('Authorization', u.auth)
          .send({ name: ["'; DROP TABLE projects; --"] }),
      () => t.http().post(`${API}/createProject`).set('Authorization', u.auth).send({ name: "'; DROP TABLE projects; --" }),
      () => t.http().post(`${API}/createProject`).set('Authorization', u.auth).send({ name: '../../etc/passwd' }),
      () => t.http().post(`${API}/createProject`).set('Authorization', u.auth).send({ name: 'ok', description: null }),
      () =>
        t
          .http()
          .post(`${API}/createProject`)
          .set('Authorization', u.auth)
          .send({ __proto__: { admin: true }, name: 'x' }),
      () => t.http().post(`${API}/createProject`).set('Authorization', u.auth).set('Content-Type', 'text/plain').send('name=x'),
      () =>
        t
          .http()
          .post(`${API}/createProject`)
          .set('Authorization', u.auth)
          .set('Content-Type', 'application/json; charset=latin9')
          .send('{}'),
      () =>
        t
          .http()
          .post(`${API}/login`)
          .send({ usernameOrEmail: 'a'.repeat(5000), password: 'b' }),
      () => t.http().post(`${API}/login`).send({ usernameOrEmail: null, password: null }),
      () => t.http().post(`${API}/login`).set('Content-Type', 'application/json').send('{{{{'),
      () =>
        t
          .http()
          .get(`${API}/project/${'9'.repeat(300)}`)
          .set('Authorization', u.auth),
      () => t.http().get(`${API}/project/-5`).set('Authorization', u.auth),
      () => t.http().get(`${API}/project/0x10`).set('Authorization', u.auth),
      () => t.http().get(`${API}/project/1%00`).set('Authorization', u.auth),
      () => t.http().get(`${API}/project/%27%20OR%201%3D1--`).set('Authorization', u.auth),
      () => t.http().get(`${API}/project/..%2F..%2Fetc`).set('Authorization', u.auth),
      () => t.http().get(`${API}/projects/owned/99999999999999999999/1`).set('Authorization', u.auth),
      () => t.http().get(`${API}/projects/owned/0/1e2`).set('Authorization', u.auth),
      () =>
        t
          .http()
          .post(`${API}/project/${p}/share`)
          .set('Authorization', u.auth)
          .send({ username: 12, permissions: [1] }),
      () =>
        t
          .http()
          .post(`${API}/project/${p}/share`)
          .set('Authorization', u.auth)
          .send({ username: 'x'.repeat(10000), permissions: ['read'] }),
      () => t.http().post(`${API}/project/${p}/unshare`).set('Authorization', u.auth).send({}),
      () =>
        t
          .http()
          .get(`${API}/project/${p}`)
          .set('Authorization', 'Bearer ' + 'a'.repeat(10000)),
    ];
    for (const [i, make] of cases.entries()) {
      const res = await make();
      // valid-but-odd strings (SQL or path fragments as a name) may succeed; nothing may fail with a 500
      const ok = (res.status === 200 && ['error', 'success'].includes(res.body.status ?? '')) || res.status === 403 || res.status === 404;
      expect({ i, ok, status: res.status }).toEqual({ i, ok: true, status: res.status });
    }
    expect(expectSuccess(await t.http().get(`${API}/project/${p}`).set('Authorization', u.auth)).projectId).toBe(p);
    const names = expectSuccess(await t.http().get(`${API}/projects/owned/0/100`).set('Authorization', u.auth)).data.map(
      (x: { name: string }) => x.name,
    );
    expect(names).toEqual(expect.arrayContaining(["'; DROP TABLE projects; --", '../../etc/passwd']));
    expectError(
      await t
        .http()
        .post(`${API}/createProject`)
        .set('Authorization', u.auth)
        .set('Content-Type', 'application/json')
        .send(`{"name":"${huge}"}`),
      'badRequest-1-0-3',
    );
  });
});

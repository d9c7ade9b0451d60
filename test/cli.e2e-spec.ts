import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from './free-port';
import { promisify } from 'node:util';
import { API, createProject, createTestApp, expectError, expectSuccess, freshDatabase, TestApp, uploadDataset } from './utils';

/**
 * The operator CLI as built (`node dist/src/cli.js`, what `npm run cli` runs) against a test database given
 * by DATABASE_URL, with the real app on the same database to see each command's effect through the API.
 */
const ROOT = path.resolve(__dirname, '..');
const execFileP = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the CLI', () => {
  let t: TestApp;
  let databaseUrl: string;

  /** Runs the CLI; never throws: the exit code is part of the result. */
  async function cli(args: string[], input?: string, envChange: Record<string, string | undefined> = {}): Promise<Run> {
    const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'error', ...envChange };
    const p = execFileP(process.execPath, ['dist/src/cli.js', ...args], { cwd: ROOT, env });
    if (input !== undefined) {
      p.child.stdin?.end(input);
    }
    return p.then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
  }
  const json = (r: Run) =>
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  const login = (username: string, password: string) => t.http().post(`${API}/login`).send({ usernameOrEmail: username, password });
  const projectsOf = (token: string) => t.http().get(`${API}/projects/owned/0/10`).set('Authorization', `Bearer ${token}`);

  beforeAll(async () => {
    databaseUrl = await freshDatabase();
    t = await createTestApp({}, databaseUrl);
  });
  afterAll(() => t.close());

  it('prints usage for --help at every level, exit 0', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Usage: signet-cli');
    expect(top.stdout).toMatch(/users\s+create, list, disable, delete users/);
    const users = await cli(['users', '--help']);
    expect(users.code).toBe(0);
    for (const c of ['create', 'list', 'disable', 'enable', 'delete', 'password']) expect(users.stdout).toMatch(new RegExp(`\\n  ${c} `));
    const revoke = await cli(['tokens', 'revoke', '--help']);
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toContain('Usage: signet-cli tokens revoke [options] <username>');
  });

  it('refuses a missing option or an unknown command with usage, exit 1, touching no database', async () => {
    const r = await cli(['users', 'create', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("required option '--password <password>' not specified");
    expect(r.stderr).not.toContain('database:');
    const bad = await cli(['users', 'frobnicate']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("unknown command 'frobnicate'");
  });

  it('users create prints the user and a working token; says which database it used', async () => {
    const r = await cli(['users', 'create', 'carol', '--password', 'carol-password', '--cores', '2']);
    expect(r.code).toBe(0);
    const url = new URL(databaseUrl);
    expect(r.stderr).toBe(`database: postgresql://${url.username}@${url.host}${url.pathname} (DATABASE_URL)\n`);
    expect(r.stderr).not.toContain(decodeURIComponent(url.password));
    const [created] = json(r);
    expect(created).toEqual({ userId: expect.stringMatching(/^\d+$/), token: expect.any(String) });
    expect(expectSuccess(await projectsOf(created.token))).toEqual({ offset: 0, totalCount: 0, data: [] });
  });

  it('two creates of one name at once: one user, and the other is told the name is taken (exit 1, no stack)', async () => {
    const runs = await Promise.all([1, 2, 3].map(() => cli(['users', 'create', 'twin', '--password', 'twin-password'])));
    expect(runs.map((r) => r.code).sort()).toEqual([0, 1, 1]);
    for (const r of runs.filter((x) => x.code === 1)) {
      expect(r.stderr).toContain('user twin already exists');
      expect(r.stderr).not.toMatch(/QueryFailedError|duplicate key|\n\s+at /);
    }
  });

  it('users list prints one line per user with its state', async () => {
    await cli(['users', 'create', 'lister', '--password', 'lister-password', '--email', 'l@example.org']);
    const rows = json(await cli(['users', 'list']));
    const lister = rows.find((u) => u.username === 'lister');
    expect(lister).toEqual({
      userId: expect.stringMatching(/^\d+$/),
      username: 'lister',
      email: 'l@example.org',
      cores: null,
      disabled: false,
      projects: 0,
      activeTokens: 1,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('users disable: no login and tokens refused; enable restores both', async () => {
    const [u] = json(await cli(['users', 'create', 'dave', '--password', 'dave-password']));
    expect(expectSuccess(await login('dave', 'dave-password')).token).toEqual(expect.any(String));
    const r = await cli(['users', 'disable', 'dave']);
    expect(json(r)).toEqual([{ userId: u.userId, disabled: true }]);
    expectError(await login('dave', 'dave-password'), 'auth-10-3');
    expect((await projectsOf(u.token)).status).toBe(403);
    expect(json(await cli(['users', 'list'])).find((x) => x.username === 'dave').disabled).toBe(true);

    expect(json(await cli(['users', 'enable', 'dave']))).toEqual([{ userId: u.userId, disabled: false }]);
    expectSuccess(await login('dave', 'dave-password'));
    expectSuccess(await projectsOf(u.token));
  });

  it('users delete needs --yes, then deletes the user with their projects', async () => {
    const [u] = json(await cli(['users', 'create', 'erin', '--password', 'erin-password']));
    const projectId = await createProject(t, `Bearer ${u.token}`, 'erin-project');
    const unconfirmed = await cli(['users', 'delete', 'erin']);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('--yes');
    expectSuccess(await projectsOf(u.token));

    const r = await cli(['users', 'delete', 'erin', '--yes']);
    expect(r.code).toBe(0);
    expect(json(r)).toEqual([
      { userId: u.userId, deletedProjects: 1, deletedFiles: 0, passedToProjectOwners: { tasks: 0, analyses: 0, predictions: 0 } },
    ]);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM projects WHERE id = $1', [projectId]);
    expect(n).toBe(0);
    expect((await projectsOf(u.token)).status).toBe(403);
    expect(json(await cli(['users', 'list'])).map((x) => x.username)).not.toContain('erin');
    const again = await cli(['users', 'delete', 'erin', '--yes']);
    expect({ code: again.code, lastLine: again.stderr.trim().split('\n').pop() }).toEqual({
      code: 1,
      lastLine: 'error: no user erin',
    });
  });

  it("users delete keeps the user's work in projects they do not own: it passes to the owner (a collaborator's delete took the owner's analysis and prediction)", async () => {
    const [owner] = json(await cli(['users', 'create', 'olga', '--password', 'olga-password']));
    const [collab] = json(await cli(['users', 'create', 'carl', '--password', 'carl-password']));
    const projectId = await createProject(t, `Bearer ${owner.token}`, 'olga-project');
    await t.db.query(
      'INSERT INTO project_shares (project_id, user_id, can_read, can_write, can_execute) VALUES ($1, $2, true, true, true)',
      [projectId, collab.userId],
    );
    const datasetId = await uploadDataset(t, `Bearer ${owner.token}`, projectId, 'x,y\n1,2\n3,4\n');
    const [analysis] = await t.db.query(
      `INSERT INTO analyses (project_id, dataset_id, user_id, name, parameters, core_count, seed, state)
       VALUES ($1, $2, $3, 'carl-analysis', '{}', 1, 1, 'finished') RETURNING id`,
      [projectId, datasetId, collab.userId],
    );
    // the collaborator's prediction, and the owner's made with the collaborator's analysis
    await t.db.query(
      `INSERT INTO predictions (analysis_id, dataset_id, user_id, model_key, state) VALUES ($1, $2, $3, 'best', 'finished'), ($1, $2, $4, 'best', 'finished')`,
      [analysis.id, datasetId, collab.userId, owner.userId],
    );
    // a job of the collaborator's analysis, not due before tomorrow (no runner claims it meanwhile)
    await t.db.query(
      `INSERT INTO jobs (kind, project_id, analysis_id, user_id, run_after) VALUES ('analysis', $1, $2, $3, now() + interval '1 day')`,
      [projectId, analysis.id, collab.userId],
    );
    const carlOwn = await createProject(t, `Bearer ${collab.token}`, 'carl-own');

    const r = await cli(['users', 'delete', 'carl', '--yes']);
    expect(r.code).toBe(0);
    expect(json(r)).toEqual([
      { userId: collab.userId, deletedProjects: 1, deletedFiles: 0, passedToProjectOwners: { tasks: 0, analyses: 1, predictions: 1 } },
    ]);
    const analyses = await t.db.query('SELECT user_id, project_id FROM analyses WHERE id = $1', [analysis.id]);
    expect(analyses).toEqual([{ user_id: owner.userId, project_id: projectId }]);
    const kept = await t.db.query('SELECT user_id FROM predictions WHERE analysis_id = $1 ORDER BY id', [analysis.id]);
    expect(kept).toEqual([{ user_id: owner.userId }, { user_id: owner.userId }]);
    // the job followed its analysis (the jobs module's step of the deletion): it counts for the owner now
    expect(await t.db.query('SELECT user_id FROM jobs WHERE analysis_id = $1', [analysis.id])).toEqual([{ user_id: owner.userId }]);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM projects WHERE id = $1', [carlOwn]);
    expect(n).toBe(0);
  });

  it('users password sets a new password from --password or from stdin', async () => {
    await cli(['users', 'create', 'frank', '--password', 'frank-password']);
    expect((await cli(['users', 'password', 'frank', '--password', 'second-password'])).code).toBe(0);
    expectError(await login('frank', 'frank-password'), 'auth-10-3');
    expectSuccess(await login('frank', 'second-password'));

    const piped = await cli(['users', 'password', 'frank'], 'third-password\n');
    expect(piped.code).toBe(0);
    expectSuccess(await login('frank', 'third-password'));
    expectError(await login('frank', 'second-password'), 'auth-10-3');

    const short = await cli(['users', 'password', 'frank', '--password', 'short']);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password must have at least 8 characters');
  });

  it("tokens revoke revokes every token of that user and no one else's", async () => {
    const [g] = json(await cli(['users', 'create', 'gina', '--password', 'gina-password']));
    const [second] = json(await cli(['tokens', 'create', 'gina']));
    const [other] = json(await cli(['users', 'create', 'hank', '--password', 'hank-password']));
    expectSuccess(await projectsOf(second.token));
    const r = await cli(['tokens', 'revoke', 'gina']);
    expect(json(r)).toEqual([{ userId: g.userId, revokedTokens: 2 }]);
    expect((await projectsOf(g.token)).status).toBe(403);
    expect((await projectsOf(second.token)).status).toBe(403);
    expectSuccess(await projectsOf(other.token));
    // a fresh login still works: revoking tokens does not disable the user
    expectSuccess(await login('gina', 'gina-password'));
  });
  it('users delete of an unknown user says there is no such user, with or without --yes', async () => {
    for (const args of [
      ['users', 'delete', 'nobody-here'],
      ['users', 'delete', 'nobody-here', '--yes'],
    ]) {
      const r = await cli(args);
      expect({ code: r.code, stdout: r.stdout, lastLine: r.stderr.trim().split('\n').pop() }).toEqual({
        code: 1,
        stdout: '',
        lastLine: 'error: no user nobody-here',
      });
    }
  });

  it("users set changes a user's cores and email, validated; the list and a login by email show it", async () => {
    const [u] = json(await cli(['users', 'create', 'ivan', '--password', 'ivan-password', '--cores', '1']));
    await cli(['users', 'create', 'jill', '--password', 'jill-password', '--email', 'jill@example.org']);
    const r = await cli(['users', 'set', 'ivan', '--cores', '3', '--email', 'ivan@example.org']);
    expect(r.code).toBe(0);
    expect(json(r)).toEqual([{ userId: u.userId, username: 'ivan', email: 'ivan@example.org', cores: 3 }]);
    expect(json(await cli(['users', 'set', 'ivan', '--cores', '2']))).toEqual([
      { userId: u.userId, username: 'ivan', email: 'ivan@example.org', cores: 2 },
    ]);
    const listed = json(await cli(['users', 'list'])).find((x) => x.username === 'ivan');
    expect([listed.cores, listed.email]).toEqual([2, 'ivan@example.org']);
    expectSuccess(await login('ivan@example.org', 'ivan-password'));

    const refusals: [string[], string][] = [
      [['users', 'set', 'ivan'], 'error: nothing to set: give --cores and/or --email'],
      [['users', 'set', 'ivan', '--cores', '0'], "error: option '--cores <n>' argument '0' is invalid. must be an integer from 1 to 1024"],
      [
        ['users', 'set', 'ivan', '--cores', '2.5'],
        "error: option '--cores <n>' argument '2.5' is invalid. must be an integer from 1 to 1024",
      ],
      // issue 41, finding 9: PostgreSQL's "out of range for type integer" reached the operator
      [
        ['users', 'set', 'ivan', '--cores', '99999999999'],
        "error: option '--cores <n>' argument '99999999999' is invalid. must be an integer from 1 to 1024",
      ],
      [['users', 'set', 'ivan', '--email', 'not-an-address'], 'error: email not-an-address is not an email address'],
      [['users', 'set', 'ivan', '--email', 'JILL@example.org'], 'error: email JILL@example.org belongs to another user'],
      [['users', 'set', 'nobody-here', '--cores', '2'], 'error: no user nobody-here'],
    ];
    for (const [args, said] of refusals) {
      const bad = await cli(args);
      expect({ args, code: bad.code, stdout: bad.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(bad.stderr).toContain(said);
    }
    // nothing changed
    const after = json(await cli(['users', 'list'])).find((x) => x.username === 'ivan');
    expect([after.cores, after.email]).toEqual([2, 'ivan@example.org']);
  });

  it('users create refuses an email another user has in another case, naming the email (issue 41, finding 11), and cores past 1024', async () => {
    json(await cli(['users', 'create', 'lena', '--password', 'lena-password', '--email', 'Lena@Example.org']));
    const twice = await cli(['users', 'create', 'lena2', '--password', 'lena-password', '--email', 'lena@example.org']);
    expect({ code: twice.code, stdout: twice.stdout }).toEqual({ code: 1, stdout: '' });
    expect(twice.stderr).toContain('error: email lena@example.org belongs to another user');
    const huge = await cli(['users', 'create', 'lena3', '--password', 'lena-password', '--cores', '99999999999']);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toContain('must be an integer from 1 to 1024');
    expect(huge.stderr).not.toContain('out of range');
    const names = json(await cli(['users', 'list'])).map((x) => x.username);
    expect(names.filter((n) => String(n).startsWith('lena'))).toEqual(['lena']);
  });

  it("tokens list prints a user's live tokens (created, last used, expiry), never a token", async () => {
    const [k] = json(await cli(['users', 'create', 'kim', '--password', 'kim-password']));
    const [second] = json(await cli(['tokens', 'create', 'kim']));
    const [revoked] = json(await cli(['users', 'create', 'kurt', '--password', 'kurt-password']));
    expectSuccess(await projectsOf(k.token));
    // the use is recorded without the request waiting for it
    for (let i = 0; i < 50; i++) {
      const [row] = await t.db.query('SELECT last_used_at FROM tokens WHERE user_id = $1 AND last_used_at IS NOT NULL', [k.userId]);
      if (row) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = await cli(['tokens', 'list', 'kim']);
    expect(r.code).toBe(0);
    const listed = json(r);
    const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(listed).toEqual([
      { tokenId: expect.stringMatching(/^\d+$/), createdAt: iso, lastUsedAt: iso, expiresAt: iso },
      { tokenId: expect.stringMatching(/^\d+$/), createdAt: iso, lastUsedAt: null, expiresAt: iso },
    ]);
    expect(Math.abs(Date.parse(listed[0].lastUsedAt) - Date.now())).toBeLessThan(60_000);
    // TOKEN_TTL_HOURS (168 by default) after creation
    expect(Date.parse(listed[0].expiresAt) - Date.parse(listed[0].createdAt)).toBeCloseTo(168 * 3600_000, -4);
    expect(r.stdout).not.toContain(k.token);
    expect(r.stdout).not.toContain(second.token);
    // revoked tokens are not live; another user's are not listed
    await cli(['tokens', 'revoke', 'kurt']);
    expect(await cli(['tokens', 'list', 'kurt'])).toMatchObject({ code: 0, stdout: '' });
    expect(revoked.userId).not.toBe(k.userId);
    expect(json(await cli(['tokens', 'list', 'kim']))).toHaveLength(2);
    expect((await cli(['tokens', 'list', 'nobody-here'])).stderr).toContain('error: no user nobody-here');
  });

  it("pointed at a DATA_DIR without a database, refuses without naming another OS user's data directory", async () => {
    // a Signet server of another OS user, as the CLI sees one: a process named postgres whose -D sits beside a
    // pg-password file, here owned by nobody (65534)
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-other-user-'));
    fs.writeFileSync(path.join(otherDir, 'pg-password'), 'secret', { mode: 0o600 });
    fs.chownSync(path.join(otherDir, 'pg-password'), 65534, 65534);
    const fake = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)', '--', '-D', path.join(otherDir, 'pg'), '-p', '5999'], {
      argv0: 'postgres',
      stdio: 'ignore',
    });
    const emptyDir = path.join(os.tmpdir(), `signet-empty-${process.pid}-${Date.now()}`);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const r = await cli(['users', 'list'], undefined, {
        DATABASE_URL: undefined,
        DATA_DIR: emptyDir,
        EMBEDDED_PG_PORT: String(await freePort()),
      });
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
      expect(r.stderr).toContain(`error: DATA_DIR ${emptyDir} holds no database`);
      expect(r.stderr).toMatch(/\d+ of (another OS user|other OS users)/);
      expect(r.stderr).toContain('Nothing was created');
      expect(r.stderr).not.toContain(otherDir);
      expect(fs.existsSync(emptyDir)).toBe(false);
    } finally {
      fake.kill('SIGKILL');
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

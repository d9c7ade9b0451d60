import { Client } from 'pg';
import { safePool } from '../src/database/pg-pool';
import { poolOf } from '../src/database/sql';
import { API, createTestApp, freshDatabase, TestApp } from './utils';

/**
 * Readiness (GET /health/ready): the database answers (a check under 1.5 s old); HTTP 503 with "unreachable" when
 * it does not.
 */
describe('readiness', () => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    url = await freshDatabase();
    t = await createTestApp({}, url);
  });
  afterAll(() => t.close());

  it('is ok while the database answers, and says 503 when it does not', async () => {
    expect((await t.http().get(`${API}/health/ready`)).body).toEqual({ status: 'ok', database: 'ok' });

    // the database goes away (dropped, its sessions ended)
    const admin = new Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString() });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    // the pool's connections were ended by the server: the next probe checks for itself (within 1.5 s at worst)
    let gone = await t.http().get(`${API}/health/ready`);
    for (const end = Date.now() + 3000; gone.status === 200 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 100));
      gone = await t.http().get(`${API}/health/ready`);
    }
    expect(gone.status).toBe(503);
    expect(gone.body).toEqual({ status: 'unavailable', database: 'unreachable' });
  });

  it('answers from a recent check, without waiting behind requests for a pooled connection', async () => {
    const busy = await createTestApp({ DB_POOL_SIZE: '2' });
    const watcher = new Client({ connectionString: busy.databaseUrl });
    await watcher.connect();
    try {
      expect((await busy.http().get(`${API}/health/ready`)).body).toEqual({ status: 'ok', database: 'ok' });
      // both pooled connections are taken for 3 s
      let ended = 0;
      const hold = Promise.all([1, 2].map(() => busy.db.query('SELECT pg_sleep(3)').then(() => ended++)));
      const sleeping = async () =>
        Number((await watcher.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(3)'`)).rows[0].n);
      while ((await sleeping()) < 2) await new Promise((r) => setTimeout(r, 10));

      const probe = await busy.http().get(`${API}/health/ready`);
      expect(probe.body).toEqual({ status: 'ok', database: 'ok' });
      expect(ended).toBe(0); // answered while the pool was still busy
      await hold;
    } finally {
      await watcher.end();
      await busy.close();
    }
  });

  it("a pooled connection the server ends while it is held between queries does not take the process down (the app's pool, an engine thread's)", async () => {
    const app = await createTestApp();
    const threadPool = safePool({ connectionString: app.databaseUrl, max: 1 });
    try {
      for (const pool of [poolOf(app.db), threadPool]) {
        // held as a query runner holds one between the checkout and its own listener: only the pool's hook listens
        const client = await pool.connect();
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const ended = new Promise((resolve) => client.once('end', resolve));
        await app.db.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
        await ended; // the server's FATAL came first: without a listener it was an uncaught 'error' event
        await expect(client.query('SELECT 1')).rejects.toThrow(/not queryable/);
        client.release(true);
        // the pool serves on, with a new connection
        expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      }
      expect((await app.http().get(`${API}/health/ready`)).body).toEqual({ status: 'ok', database: 'ok' });
    } finally {
      await threadPool.end();
      await app.close();
    }
  });
});

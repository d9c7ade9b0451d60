import { Client } from 'pg';
import { API, createTestApp, freshDatabase, TestApp } from './utils';

/** Readiness (GET /health/ready): the database answers; HTTP 503 with "unreachable" when it does not. */
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
    const gone = await t.http().get(`${API}/health/ready`);
    expect(gone.status).toBe(503);
    expect(gone.body).toEqual({ status: 'unavailable', database: 'unreachable' });
  });
});

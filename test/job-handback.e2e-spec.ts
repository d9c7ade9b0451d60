import * as fs from 'node:fs';
import * as path from 'node:path';
import { API, createProject, createTestApp, createUser, expectSuccess, pollUntil, TEST_DATA, TestApp, uploadDataset } from './utils';

/**
 * A worker that stops cleanly (SIGTERM / SIGINT: the service closes its Nest application, app.close()) hands its
 * running jobs back: queued again with no attempt spent, the subject pending, taken at once by the next worker
 * rather than after its lease (the default 30 s here). `reader` serves HTTP and runs no workers; each worker is a
 * whole application on the same database, started and closed as the service's process would be.
 */
let reader: TestApp;
let worker: TestApp | undefined;
let owner: Awaited<ReturnType<typeof createUser>>;
let projectId: string;
let cancer: string;

async function startWorker(): Promise<void> {
  if (worker) throw new Error('one worker at a time: stop the running one first');
  worker = await createTestApp({ WORKER_CORES: '1', JOB_LEASE_SECONDS: '30' }, reader.databaseUrl);
}

async function stopWorker(): Promise<number> {
  const t0 = Date.now();
  await worker?.close();
  worker = undefined;
  return Date.now() - t0;
}

async function analyze(): Promise<string> {
  const res = await reader
    .http()
    .post(`${API}/dataset/${cancer}/analyze`)
    .set('Authorization', owner.auth)
    .send({ outcome: { classification: 'diagnosis' }, thoroughness: 'preliminary', coreCount: 1, name: 'hand-back' });
  return expectSuccess(res).analysisId as string;
}

async function jobOf(analysisId: string) {
  const [job] = await reader.db.query(
    `SELECT state, attempts, lease_owner IS NOT NULL AS leased, lease_expires_at IS NOT NULL AS lease FROM jobs WHERE analysis_id = $1`,
    [analysisId],
  );
  return job as { state: string; attempts: number; leased: boolean; lease: boolean };
}

interface Status {
  state: string;
  startTime?: string;
  executionTimeInSeconds?: number;
  progress?: number;
}
const status = (id: string) => `/analysis/${id}/status`;
/** Running, and past its first progress report: the engine is mid-way. */
const midRun = (s: Status) => s.state === 'running' && (s.progress ?? 0) > 0;

beforeAll(async () => {
  reader = await createTestApp({ RUN_WORKERS: 'false' });
  owner = await createUser(reader, undefined, 4);
  projectId = await createProject(reader, owner.auth, 'hand-back');
  // the dataset is built by a worker too; each test then starts its own
  await startWorker();
  cancer = await uploadDataset(reader, owner.auth, projectId, fs.readFileSync(path.join(TEST_DATA, 'breast_cancer.csv')));
  await stopWorker();
}, 120_000);

afterEach(async () => {
  await stopWorker();
  await reader.db.query(`DROP TRIGGER IF EXISTS fail_hand_back ON jobs`);
});

afterAll(async () => {
  await stopWorker();
  await reader.close();
});

it('an analysis stopped three times mid-run by a clean shutdown finishes on its first attempt, pending while it waits', async () => {
  await startWorker();
  const id = await analyze();
  for (let stop = 1; stop <= 3; stop++) {
    await pollUntil<Status>(reader, owner.auth, status(id), midRun, 120_000);
    expect((await jobOf(id)).attempts).toBe(1);
    expect(await stopWorker()).toBeLessThan(10_000);
    // back in the queue at once, the attempt given back, its status that of an analysis not yet started
    expect(await jobOf(id)).toEqual({ state: 'queued', attempts: 0, leased: false, lease: false });
    const waiting = expectSuccess(
      await reader
        .http()
        .get(`${API}${status(id)}`)
        .set('Authorization', owner.auth),
    );
    expect(waiting).toEqual({
      analysisId: id,
      projectId,
      parameters: expect.objectContaining({ thoroughness: 'preliminary' }),
      state: 'pending',
      // the estimate made when it was created (docs/api-guide.md, "Running time and time limit"), not a measured one
      estimate: expect.objectContaining({ basis: 'shape' }),
    });
    // the restarted worker takes it at once: well before the 30 s lease would have let it
    const restarted = Date.now();
    await startWorker();
    await pollUntil<Status>(reader, owner.auth, status(id), (s) => s.state === 'running', 10_000);
    expect(Date.now() - restarted).toBeLessThan(10_000);
  }
  const end = await pollUntil<Status>(reader, owner.auth, status(id), (s) => s.state === 'finished' || s.state === 'failed', 300_000);
  expect(end.state).toBe('finished');
  // the job row is marked done just after the result is stored
  let job = await jobOf(id);
  for (let i = 0; i < 50 && job.state === 'running'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    job = await jobOf(id);
  }
  expect({ state: job.state, attempts: job.attempts }).toEqual({ state: 'done', attempts: 1 });
  const result = expectSuccess(await reader.http().get(`${API}/analysis/${id}/result`).set('Authorization', owner.auth));
  expect(result.models.best.performance['Area Under the ROC Curve']).toBeGreaterThan(0.9);
}, 600_000);

/**
 * A fault injected in the database: a BEFORE trigger `name` on `table` that does `action` to the first `times` rows
 * for which `when` holds, counted by the sequence `<name>_tries` (which no rollback undoes).
 */
async function injectFault(name: string, table: string, event: 'INSERT' | 'UPDATE', when: string, action: string, times: number) {
  await reader.db.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}; DROP SEQUENCE IF EXISTS ${name}_tries; CREATE SEQUENCE ${name}_tries`);
  await reader.db.query(`
    CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger AS $$
    BEGIN
      IF ${when} AND nextval('${name}_tries') <= ${times} THEN
        ${action};
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await reader.db.query(`CREATE TRIGGER ${name} BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
}
/** How many rows the fault `name` has seen. */
const triesOf = async (name: string) =>
  Number((await reader.db.query(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM ${name}_tries`))[0].n);
const HANDING_BACK = `OLD.state = 'running' AND NEW.state = 'queued'`;
/** The connection that runs the statement ended by the server (as a restart or pg_terminate_backend does) under it. */
const CUT_CONNECTION = 'PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5)';

/** Makes the next `failures` hand-backs fail in the database. */
const failHandBacks = (failures: number) =>
  injectFault('fail_hand_back', 'jobs', 'UPDATE', HANDING_BACK, `RAISE EXCEPTION 'injected: the database refused the hand-back'`, failures);
const tries = () => triesOf('fail_hand_back');

it('a hand-back that fails is tried again, and after its last try the job is left to its lease, never lost', async () => {
  await startWorker();
  const id = await analyze();
  await pollUntil<Status>(reader, owner.auth, status(id), midRun, 120_000);

  // two failures, then the third try hands it back
  await failHandBacks(2);
  expect(await stopWorker()).toBeLessThan(10_000);
  expect(await tries()).toBe(3);
  expect(await jobOf(id)).toEqual({ state: 'queued', attempts: 0, leased: false, lease: false });

  // every try fails: the worker still stops (bounded), and the job keeps its lease, to be taken again when it expires
  await startWorker();
  await pollUntil<Status>(reader, owner.auth, status(id), midRun, 120_000);
  await failHandBacks(1000);
  expect(await stopWorker()).toBeLessThan(10_000);
  expect(await tries()).toBe(5);
  expect(await jobOf(id)).toEqual({ state: 'running', attempts: 1, leased: true, lease: true });
  expectSuccess(await reader.http().post(`${API}/analysis/${id}/delete`).set('Authorization', owner.auth));
}, 300_000);

/**
 * Issue 41, finding 5: the database connection cut under a stopping worker. The first hand-back's own connection is
 * ended by the server in the middle of its transaction (a trigger that terminates its own backend), and every other
 * connection of the database is ended too (the worker's idle pooled ones among them): the hand-back is tried again on
 * a sound connection, and the job is queued with its attempt given back.
 */
it('a stopping worker whose database connections are cut under its hand-back hands the job back on a new one, no attempt spent', async () => {
  await startWorker();
  const id = await analyze();
  await pollUntil<Status>(reader, owner.auth, status(id), midRun, 120_000);
  await injectFault('fail_hand_back', 'jobs', 'UPDATE', HANDING_BACK, CUT_CONNECTION, 1);
  // every other connection of the database: the worker's idle ones (and the reader's, which it opens again)
  await reader.db.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  expect(await stopWorker()).toBeLessThan(10_000);
  expect(await tries()).toBe(2);
  expect(await jobOf(id)).toEqual({ state: 'queued', attempts: 0, leased: false, lease: false });
  expectSuccess(await reader.http().post(`${API}/analysis/${id}/delete`).set('Authorization', owner.auth));
}, 300_000);

/**
 * Issue 41, finding 4: a job whose worker lost the database (here its result's store: the connection is ended by the
 * server as it writes) is handed back with its attempt given back, not retried as a failed attempt, and the next run
 * finishes on attempt 1.
 */
it('a job whose worker lost the database under it is handed back without spending an attempt, then finishes', async () => {
  await injectFault('lose_store', 'analysis_results', 'INSERT', 'true', CUT_CONNECTION, 1);
  try {
    await startWorker();
    const id = await analyze();
    const end = await pollUntil<Status>(reader, owner.auth, status(id), (s) => s.state === 'finished' || s.state === 'failed', 300_000);
    expect(end.state).toBe('finished');
    expect(await triesOf('lose_store')).toBe(2);
    let job = await jobOf(id);
    for (let i = 0; i < 50 && job.state === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      job = await jobOf(id);
    }
    expect({ state: job.state, attempts: job.attempts }).toEqual({ state: 'done', attempts: 1 });
  } finally {
    await reader.db.query(`DROP TRIGGER IF EXISTS lose_store ON analysis_results`);
  }
}, 600_000);

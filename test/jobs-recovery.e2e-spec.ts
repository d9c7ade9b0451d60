import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SPARE_ARG } from '../src/common/engine-process';
import { API, createProject, createTestApp, createUser, expectSuccess, pollUntil, TEST_DATA, TestApp, uploadDataset } from './utils';

/**
 * The job system across processes: worker processes (`node dist/src/worker-main.js`, what `npm run worker`
 * runs) against the test database, with the API process running no workers.
 */
const ROOT = path.resolve(__dirname, '..');
let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
let projectId: string;
let iris: string;
let cancer: string;
const children: ChildProcess[] = [];

function worker(env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ['dist/src/worker-main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: t.databaseUrl,
      WORKER_CORES: '1',
      LOG_LEVEL: 'error',
      JOB_POLL_MS: '100',
      JOB_LEASE_SECONDS: '3',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

async function analyze(datasetId: string, thoroughness = 'preliminary', outcome: object = { classification: 'species' }) {
  const res = await t
    .http()
    .post(`${API}/dataset/${datasetId}/analyze`)
    .set('Authorization', owner.auth)
    .send({ outcome, thoroughness, coreCount: 1, name: 'job test' });
  return expectSuccess(res).analysisId as string;
}

async function jobOf(analysisId: string) {
  const [job] = await t.db.query(`SELECT state, attempts, error FROM jobs WHERE kind = 'analysis' AND payload->>'analysisId' = $1`, [
    analysisId,
  ]);
  return job as { state: string; attempts: number; error: string | null };
}

/** The analysis ends finished, and its job row done after two attempts (the row is marked just after the result is stored). */
async function expectFinishedOnSecondAttempt(id: string): Promise<void> {
  const end = await pollUntil<{ state: string }>(
    t,
    owner.auth,
    `/analysis/${id}/status`,
    (s) => s.state === 'finished' || s.state === 'failed',
    240_000,
  );
  expect(end.state).toBe('finished');
  let job = await jobOf(id);
  for (let i = 0; i < 50 && job.state === 'running'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    job = await jobOf(id);
  }
  expect({ state: job.state, attempts: job.attempts }).toEqual({ state: 'done', attempts: 2 });
}

beforeAll(async () => {
  t = await createTestApp({ RUN_WORKERS: 'false', JOB_LEASE_SECONDS: '3' });
  owner = await createUser(t, undefined, 100);
  projectId = await createProject(t, owner.auth, 'jobs');
  // datasets are created by a worker too: the API process runs none
  const w = worker();
  iris = await uploadDataset(t, owner.auth, projectId, fs.readFileSync(path.join(TEST_DATA, 'iris.csv')), { name: 'iris' });
  cancer = await uploadDataset(t, owner.auth, projectId, fs.readFileSync(path.join(TEST_DATA, 'breast_cancer.csv')), { name: 'cancer' });
  w.kill('SIGTERM');
  await new Promise((r) => w.once('exit', r));
}, 120_000);

async function stopAll(): Promise<void> {
  const live = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of live) c.kill('SIGTERM');
  await Promise.all(live.map((c) => new Promise((r) => c.once('exit', r))));
}

// each test starts its own workers
afterEach(stopAll);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await t.close();
});

it('two worker processes share six queued analyses, each run exactly once', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(await analyze(iris));
  const a = worker();
  const b = worker();
  for (const id of ids) {
    await pollUntil<{ state: string }>(
      t,
      owner.auth,
      `/analysis/${id}/status`,
      (s) => s.state === 'finished' || s.state === 'failed',
      240_000,
    );
  }
  const rows = await t.db.query(
    `SELECT a.id, a.state, j.attempts, j.state AS job_state, j.error, (SELECT count(*)::int FROM analysis_results r WHERE r.analysis_id = a.id) AS results
       FROM analyses a JOIN jobs j ON j.payload->>'analysisId' = a.id::text WHERE a.id = ANY($1::bigint[])`,
    [ids],
  );
  expect(rows).toHaveLength(6);
  // every row as it must be, so a failure shows which analysis ran twice or did not finish
  expect(
    rows.filter(
      (r: { state: string; attempts: number; job_state: string; results: number }) =>
        !(r.state === 'finished' && r.attempts === 1 && r.job_state === 'done' && r.results === 1),
    ),
  ).toEqual([]);
  // both processes took part (a done job keeps the id of the worker that ran it)
  const [{ n }] = await t.db.query(
    `SELECT count(DISTINCT lease_owner)::int AS n FROM jobs WHERE kind = 'analysis' AND payload->>'analysisId' = ANY($1::text[])`,
    [ids],
  );
  expect(n).toBe(2);
  expect([a.pid, b.pid].every((pid) => typeof pid === 'number')).toBe(true);
}, 300_000);

it('an analysis whose worker is killed (-9) is finished by another worker after its lease expires', async () => {
  const first = worker();
  const id = await analyze(cancer, 'preliminary', { classification: 'diagnosis' });
  await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${id}/status`, (s) => s.state === 'running', 60_000);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  const killedAt = Date.now();
  worker();
  await expectFinishedOnSecondAttempt(id);
  // the lease is 3 s: the second worker took over well within lease + analysis time
  expect(Date.now() - killedAt).toBeLessThan(120_000);
}, 300_000);

it('an analysis whose worker dies on its last attempt is failed with a reason, never left running', async () => {
  await t.db.query(`UPDATE jobs SET max_attempts = 1 WHERE state = 'queued'`);
  const first = worker();
  const id = await analyze(cancer, 'typical', { classification: 'diagnosis' });
  await t.db.query(`UPDATE jobs SET max_attempts = 1 WHERE kind = 'analysis' AND payload->>'analysisId' = $1`, [id]);
  await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${id}/status`, (s) => s.state === 'running', 60_000);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  worker(); // its runner finds the expired lease
  const end = await pollUntil<{ state: string; error?: { code: string; message: string } }>(
    t,
    owner.auth,
    `/analysis/${id}/status`,
    (s) => s.state !== 'running' && s.state !== 'pending',
    60_000,
  );
  expect(end.state).toBe('failed');
  expect(end.error?.code).toBe('internal-120-4-1');
  expect(end.error?.message).toMatch(/lease expired/);
  expect((await jobOf(id)).state).toBe('failed');
}, 180_000);

/** Engine processes (engine-host.js) started by the process `pid` that run a job, not its spare (Linux /proc). */
function engineProcessesOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((p) => {
      try {
        const argv = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
        if (!argv.includes('engine-host.js') || argv.split('\0').includes(SPARE_ARG)) return [];
        const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(p)] : [];
      } catch {
        return [];
      }
    });
}

it('kill -9 of the worker running an analysis while another worker runs: its engine process stops, the other finishes the job', async () => {
  const a = worker();
  const b = worker();
  const id = await analyze(cancer, 'typical', { classification: 'diagnosis' });
  await pollUntil<{ state: string }>(t, owner.auth, `/analysis/${id}/status`, (s) => s.state === 'running', 60_000);
  // the lease owner's id is host:pid:nonce
  const [{ lease_owner }] = await t.db.query(`SELECT lease_owner FROM jobs WHERE kind = 'analysis' AND payload->>'analysisId' = $1`, [id]);
  const ownerPid = Number(String(lease_owner).split(':')[1]);
  const [running, other] = ownerPid === a.pid ? [a, b] : [b, a];
  expect(running.pid).toBe(ownerPid);
  let engines: number[] = [];
  for (let i = 0; i < 100 && !engines.length; i++) {
    engines = engineProcessesOf(ownerPid);
    if (!engines.length) await new Promise((r) => setTimeout(r, 50));
  }
  expect(engines.length).toBe(1);
  running.kill('SIGKILL');
  await new Promise((r) => running.once('exit', r));
  const killedAt = Date.now();
  // the orphaned engine process sees its channel close and stops computing
  while (engines.some((p) => fs.existsSync(`/proc/${p}`)) && Date.now() - killedAt < 5000) await new Promise((r) => setTimeout(r, 50));
  expect(engines.filter((p) => fs.existsSync(`/proc/${p}`))).toEqual([]);
  await expectFinishedOnSecondAttempt(id);
  const [{ results, owner: finisher }] = await t.db.query(
    `SELECT (SELECT count(*)::int FROM analysis_results WHERE analysis_id = $1) AS results,
            (SELECT lease_owner FROM jobs WHERE kind = 'analysis' AND payload->>'analysisId' = $1::text) AS owner`,
    [id],
  );
  expect(results).toBe(1);
  expect(Number(String(finisher).split(':')[1])).toBe(other.pid);
}, 300_000);
